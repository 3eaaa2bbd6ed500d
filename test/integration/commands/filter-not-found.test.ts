import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/** A list filtered by a task or project that does not exist says so, as the spec's not-found errors do. */
describe('filters naming nothing', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'demo' });
  });
  afterEach(() => rt.cleanup());

  it('answers "not found" for a task or project that does not exist, and lists for one that does', async () => {
    expect(await rt.exec('list_agent_requests', { task_id: 'no-such-task' })).toEqual({ error: "Task 'no-such-task' not found." });
    expect(await rt.exec('list_agent_requests', { project_id: 'nope' })).toEqual({ error: "Project 'nope' not found." });
    expect(await rt.exec('list_tasks', { project_id: 'nope' })).toEqual({ error: "Project 'nope' not found." });
    expect(await rt.exec('list_hooks', { project_id: 'nope' })).toEqual({ error: "Project 'nope' not found." });
    expect(await rt.exec('list_repos', { project_id: 'nope' })).toEqual({ error: "Project 'nope' not found." });
    expect(await rt.exec('list_workspaces', { project_id: 'nope' })).toEqual({ error: "Project 'nope' not found." });

    const id = (await rt.exec('create_task', { project_id: 'demo', title: 'T', description: 'd' })).created as string;
    expect(await rt.exec('list_agent_requests', { task_id: id })).toMatchObject({ requests: [], total: 0 });
    expect(await rt.exec('list_agent_requests', { project_id: 'demo' })).toMatchObject({ requests: [], total: 0 });
    expect(await rt.exec('list_tasks', { project_id: 'demo' })).toMatchObject({ total: 1 });
    expect(await rt.exec('list_hooks', { project_id: 'demo' })).toMatchObject({ hooks: [], total: 0 });
  });
});
