import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/** A project's and a repo's record as the repositories write and read them, on each database. */
describe('projects and repos', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
  });
  afterEach(() => rt.cleanup());

  it("stores a project with each setting's column default when none is given", async () => {
    const before = Date.now();
    const created = await rt.db.projects.create({ id: 'bare', name: 'Bare', workspace: '/ws/bare' });
    expect(created).toEqual({
      id: 'bare',
      name: 'Bare',
      status: 'ACTIVE',
      creditWeight: 1,
      maxConcurrentAgents: 2,
      workspace: '/ws/bare',
      chatChannelId: null,
      budgetLimit: null,
      approvalsByRequester: false,
      taskRooms: 'approval',
      overlapPolicy: 'warn',
      checkCommand: '',
      checkTimeoutSeconds: 600,
      landing: 'rebase',
      landingTries: 3,
      backends: null,
      createdAt: expect.any(Date),
    });
    expect(created.createdAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(await rt.db.projects.get('bare')).toEqual(created);
  });

  it('stores every setting given, changes only those an update names, and deletes the project', async () => {
    const settings = {
      status: 'PAUSED',
      creditWeight: 2.5,
      maxConcurrentAgents: 7,
      chatChannelId: 'C123',
      budgetLimit: 3_000_000_000,
      approvalsByRequester: true,
      taskRooms: 'all',
      overlapPolicy: 'serialize',
      checkCommand: 'npm test',
      checkTimeoutSeconds: 90,
      landing: 'merge',
      landingTries: 5,
      backends: ['acp:codex', 'claude-code'],
    } as const;
    const created = await rt.db.projects.create({
      id: 'full',
      name: 'Full',
      workspace: '/ws/full',
      ...settings,
      backends: [...settings.backends],
    });
    expect(created).toEqual({ id: 'full', name: 'Full', workspace: '/ws/full', ...settings, createdAt: expect.any(Date) });
    expect(await rt.db.projects.findByChannel('C123')).toEqual(created);

    const updated = await rt.db.projects.update('full', {
      name: 'Renamed',
      chatChannelId: null,
      backends: null,
      approvalsByRequester: false,
    });
    expect(updated).toEqual({ ...created, name: 'Renamed', chatChannelId: null, backends: null, approvalsByRequester: false });
    expect(await rt.db.projects.get('full')).toEqual(updated);
    expect(await rt.db.projects.update('full', {})).toEqual(updated);
    expect(await rt.db.projects.update('no-such-project', { name: 'X' })).toBeNull();
    expect(await rt.db.projects.get('no-such-project')).toBeNull();

    await rt.db.repos.create({
      id: 'full-repo',
      projectId: 'full',
      name: 'full-repo',
      sourceType: 'init',
      url: null,
      sourcePath: null,
      defaultBranch: 'main',
      checkoutBasePath: '/ws/full/full-repo',
    });
    expect(await rt.db.projects.delete('full')).toBe(true);
    expect(await rt.db.projects.get('full')).toBeNull();
    expect(await rt.db.repos.get('full-repo')).toBeNull();
    expect(await rt.db.projects.delete('full')).toBe(false);
  });

  it('stores a repo as given and lists it with its project', async () => {
    await rt.db.projects.create({ id: 'web', name: 'Web', workspace: '/ws/web' });
    const linked = {
      id: 'docs',
      projectId: 'web',
      name: 'docs',
      sourceType: 'link' as const,
      url: null,
      sourcePath: '/srv/docs',
      defaultBranch: 'trunk',
      checkoutBasePath: '/ws/web',
    };
    const cloned = {
      id: 'site',
      projectId: 'web',
      name: 'site',
      sourceType: 'clone' as const,
      url: 'https://git.example/site.git',
      sourcePath: null,
      defaultBranch: 'main',
      checkoutBasePath: null,
    };
    expect(await rt.db.repos.create(linked)).toEqual(linked);
    expect(await rt.db.repos.create(cloned)).toEqual(cloned);
    expect(await rt.db.repos.get('docs')).toEqual(linked);
    expect(await rt.db.repos.list('web')).toEqual([linked, cloned]);
    expect(await rt.db.repos.sourcePaths()).toEqual(['/srv/docs']);
    await expect(rt.db.repos.create(linked)).rejects.toThrow();
    expect(await rt.db.repos.count('web')).toBe(2);
  });
});
