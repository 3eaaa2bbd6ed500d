import { closedFolders, sandboxSettings } from '../../../src/agents/confinement';

describe('the folder of every workspace, closed to agents', () => {
  it("is closed, with the task's roots read again inside it", () => {
    const policy = { workspacesRoot: '/srv/aq/workspaces' };
    expect(closedFolders(policy, '/home/app')).toEqual(['/srv/aq/workspaces']);
    const roots = ['/srv/aq/workspaces/alpha/workspaces/ws-1', '/srv/shared'];
    const filesystem = sandboxSettings('/home/app', roots, policy).filesystem!;
    expect(filesystem.denyRead).toContain('/srv/aq/workspaces');
    expect(filesystem.allowRead).toEqual(roots);
  });

  it('stays open when it holds the home folder, or is not set', () => {
    for (const workspacesRoot of ['/home/app', '/home', '/']) expect(closedFolders({ workspacesRoot }, '/home/app')).toEqual([]);
    expect(closedFolders({}, '/home/app')).toEqual([]);
    const filesystem = sandboxSettings('/home/app', ['/home/app/ws'], { workspacesRoot: '/home' }).filesystem!;
    expect(filesystem.denyRead).not.toContain('/home');
    expect(filesystem).not.toHaveProperty('allowRead');
  });
});

describe("a run's own temporary folder, among the hidden ones of every agent", () => {
  it('is written and read again inside the hidden folder that holds it', () => {
    const hidden = ['/home/app/.agent-queue/agent-tmp'];
    const temp = '/home/app/.agent-queue/agent-tmp/claude-x1';
    const filesystem = sandboxSettings('/home/app', ['/home/app/ws', '/srv/shared'], {}, hidden, temp).filesystem!;
    expect(filesystem.denyRead).toContain(hidden[0]);
    expect(filesystem.allowRead).toEqual(['/home/app/ws', '/srv/shared', temp]);
    expect(filesystem.allowWrite).toEqual(['/srv/shared', temp]);
  });
});
