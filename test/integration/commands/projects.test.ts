// @database-dependent: projects are created, edited and read back through the repositories.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

describe('project commands', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
  });
  afterEach(async () => {
    await rt.cleanup();
  });

  it('creates a project with spec defaults, its workspace folder and a project_created event', async () => {
    const result = await rt.exec('create_project', { name: 'My Project' });
    const workspace = path.join(rt.config.workspaceDir, 'my-project');
    expect(result).toEqual({ created: 'my-project', name: 'My Project', workspace, auto_create_channels: false });
    expect(existsSync(workspace)).toBe(true);
    expect(await rt.exec('list_projects')).toEqual({
      projects: [{ id: 'my-project', name: 'My Project', status: 'ACTIVE', credit_weight: 1, max_concurrent_agents: 2, workspace }],
      total: 1,
      next_offset: null,
    });
    const events = await rt.db.events.recent(5);
    expect(events.map((e) => e.type)).toEqual(['project_created']);
  });

  it('totals list_projects on every page: full, short, past the end, and empty', async () => {
    expect(await rt.exec('list_projects')).toEqual({ projects: [], total: 0, next_offset: null });
    for (const name of ['a', 'b', 'c']) await rt.exec('create_project', { name });
    const ids = async (args: Record<string, number>) => {
      const page = (await rt.exec('list_projects', args)) as { projects: Array<{ id: string }>; total: number; next_offset: number | null };
      return { ids: page.projects.map((p) => p.id), total: page.total, next_offset: page.next_offset };
    };
    expect(await ids({ limit: 2 })).toEqual({ ids: ['a', 'b'], total: 3, next_offset: 2 });
    expect(await ids({ limit: 2, offset: 2 })).toEqual({ ids: ['c'], total: 3, next_offset: null });
    expect(await ids({ limit: 3 })).toEqual({ ids: ['a', 'b', 'c'], total: 3, next_offset: null });
    expect(await ids({ offset: 5 })).toEqual({ ids: [], total: 3, next_offset: null });
  });

  it('takes auto_create_channels from the config when absent and from the argument when given', async () => {
    const withConfig = await makeTestRuntime({ AQ_AUTO_CREATE_CHANNELS: 'true' });
    try {
      expect((await withConfig.exec('create_project', { name: 'a' })).auto_create_channels).toBe(true);
      expect((await withConfig.exec('create_project', { name: 'b', auto_create_channels: false })).auto_create_channels).toBe(false);
    } finally {
      await withConfig.cleanup();
    }
  });

  it('rejects names that would escape the workspace folder and duplicates', async () => {
    expect(await rt.exec('create_project', { name: '../evil' })).toEqual({
      error: expect.stringContaining('cannot be used as a folder name'),
    });
    expect(existsSync(path.join(rt.config.workspaceDir, '..', 'evil'))).toBe(false);
    await rt.exec('create_project', { name: 'dup' });
    expect(await rt.exec('create_project', { name: 'Dup' })).toEqual({ error: expect.stringContaining("'dup' already exists") });
  });

  it('names the bad field when input is invalid', async () => {
    expect(await rt.exec('create_project', {})).toEqual({ error: "Missing required field 'name'." });
    expect(await rt.exec('create_project', { name: 'x', max_concurrent_agents: 'many' })).toEqual({
      error: expect.stringMatching(/^Field 'max_concurrent_agents' must be a number/),
    });
    expect(await rt.exec('create_project', { name: 'x', max_concurrent_agents: 1.5 })).toEqual({
      error: expect.stringMatching(/^Field 'max_concurrent_agents' must be a whole number/),
    });
    expect(await rt.exec('no_such_command')).toEqual({ error: 'Unknown command: no_such_command' });
  });

  it('pauses, resumes and edits, and reports unknown projects', async () => {
    await rt.exec('create_project', { name: 'p' });
    expect(await rt.exec('pause_project', { project_id: 'p' })).toEqual({ paused: 'p', name: 'p' });
    expect((await rt.db.projects.get('p'))?.status).toBe('PAUSED');
    expect(await rt.exec('resume_project', { project_id: 'p' })).toEqual({ resumed: 'p', name: 'p' });
    expect(await rt.exec('edit_project', { project_id: 'p', credit_weight: '2.5', max_concurrent_agents: 4 })).toEqual({
      updated: 'p',
      fields: ['credit_weight', 'max_concurrent_agents'],
    });
    expect(await rt.exec('edit_project', { project_id: 'p' })).toEqual({ error: expect.stringContaining('Nothing to update') });
    expect(await rt.exec('pause_project', { project_id: 'nope' })).toEqual({ error: "Project 'nope' not found." });
  });

  it('reads back every field of a project and its repositories as the ORM wrote them', async () => {
    // The reads are plain statements mapped by hand: booleans, JSON, a bigint and a double come
    // back differently from each database, and must give the records the ORM's writes returned.
    await rt.db.projects.create({ id: 'a', name: 'A', workspace: '/w/a' });
    const written = await rt.db.projects.update('a', {
      name: 'Alpha',
      status: 'PAUSED',
      creditWeight: 2.5,
      maxConcurrentAgents: 7,
      chatChannelId: 'CALPHA',
      budgetLimit: 5_000_000_000,
      approvalsByRequester: true,
      taskRooms: 'all',
      overlapPolicy: 'serialize',
      checkCommand: 'npm test',
      checkTimeoutSeconds: 90,
      landing: 'merge',
      landingTries: 5,
      backends: ['acp:codex', 'claude-code'],
    });
    const plain = await rt.db.projects.create({ id: 'b', name: 'B', workspace: '/w/b' });
    expect(written).toMatchObject({ approvalsByRequester: true, backends: ['acp:codex', 'claude-code'], budgetLimit: 5_000_000_000 });
    expect(await rt.db.projects.get('a')).toEqual(written);
    expect(await rt.db.projects.findByChannel('CALPHA')).toEqual(written);
    expect(await rt.db.projects.list()).toEqual([written, plain]);
    expect(await rt.db.projects.list({ limit: 1, offset: 1 })).toEqual([plain]);
    expect(await rt.db.projects.count()).toBe(2);
    expect(await rt.db.projects.get('nope')).toBeNull();

    const base = { projectId: 'a', sourceType: 'clone' as const, sourcePath: null, defaultBranch: 'main' };
    const first = await rt.db.repos.create({ ...base, id: 'r1', name: 'r1', url: 'https://example.com/r1.git', checkoutBasePath: '/w/a' });
    const second = await rt.db.repos.create({
      ...base,
      id: 'r2',
      name: 'r2',
      url: null,
      sourceType: 'link',
      sourcePath: '/src/r2',
      checkoutBasePath: null,
    });
    const other = await rt.db.repos.create({ ...base, projectId: 'b', id: 'r3', name: 'r3', url: null, checkoutBasePath: null });
    expect(await rt.db.repos.get('r2')).toEqual(second);
    expect(await rt.db.repos.list('a')).toEqual([first, second]);
    expect(await rt.db.repos.list(undefined, { limit: 2, offset: 1 })).toEqual([second, other]);
    expect(await rt.db.repos.listOfProjects(['b', 'a'])).toEqual([first, second, other]);
    expect(await rt.db.repos.count('a')).toBe(2);
    expect(await rt.db.repos.count()).toBe(3);
  });
});
