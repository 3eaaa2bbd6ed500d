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
