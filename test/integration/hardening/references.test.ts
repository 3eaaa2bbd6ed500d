// @database-dependent: references are checked by queries and deletes cascade in SQL.
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { expectCleanError } from './clean-error';

/**
 * Every stored reference names something that exists: a command given an unknown id answers
 * with a not-found sentence and stores nothing.
 */
describe('reference fields', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
    await rt.exec('create_project', { name: 'beta' });
    expect(await rt.exec('add_repo', { project_id: 'beta', source: 'init', name: 'svc' })).toMatchObject({ created: 'svc' });
  });
  afterAll(() => rt.cleanup());

  const taskCount = async () => (await rt.exec('list_tasks')).total as number;

  it('create_task refuses an unknown project, repo or upstream task, and a repo of another project', async () => {
    const before = await taskCount();
    const base = { title: 't', description: 'd' };
    expect(await rt.exec('create_task', { ...base, project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
    expect(await rt.exec('create_task', { ...base, project_id: 'alpha', repo_id: 'ghost' })).toEqual({ error: "Repo 'ghost' not found." });
    expect(await rt.exec('create_task', { ...base, project_id: 'alpha', repo_id: 'svc' })).toEqual({
      error: "Repo 'svc' belongs to project 'beta', not 'alpha'.",
    });
    expectCleanError(await rt.exec('create_task', { ...base, project_id: 'alpha', depends_on: ['ghost'] }), 'ghost');
    expect(await taskCount()).toBe(before);
    expect(await rt.exec('create_task', { ...base, project_id: 'beta', repo_id: 'svc' })).toMatchObject({ repo_id: 'svc' });
  });

  it('agents, dependencies, hooks and channels check what they point at', async () => {
    expect(await rt.exec('create_agent', { name: 'a', repo_id: 'ghost' })).toEqual({ error: "Repo 'ghost' not found." });
    expect(await rt.db.agents.get('a')).toBeNull();

    const task = (await rt.exec('create_task', { project_id: 'alpha', title: 't', description: 'd' })).created as string;
    expect(await rt.exec('add_dependency', { task_id: task, depends_on: 'ghost' })).toEqual({ error: "Task 'ghost' not found." });
    expect(await rt.exec('add_dependency', { task_id: 'ghost', depends_on: task })).toEqual({ error: "Task 'ghost' not found." });
    expect(await rt.exec('get_task_dependencies', { task_id: task })).toMatchObject({ task_id: task, depends_on: [], dependents: [] });

    const hook = { name: 'h', prompt_template: 'p', trigger: { type: 'periodic', interval_seconds: 60 } };
    expect(await rt.exec('create_hook', { ...hook, project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
    expect((await rt.exec('list_hooks')).hooks).toEqual([]);
    expect(await rt.exec('edit_hook', { hook_id: 'ghost', enabled: false })).toEqual({ error: "Hook 'ghost' not found." });

    expect(await rt.exec('set_project_channel', { project_id: 'ghost', channel_id: 'C1' })).toEqual({
      error: "Project 'ghost' not found.",
    });
    expect(await rt.exec('set_task_status', { task_id: 'ghost', status: 'READY' })).toEqual({ error: "Task 'ghost' not found." });
    expect(await rt.exec('set_active_project', { project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
  });

  it('deleting a project leaves no agent tied to one of its repos', async () => {
    await rt.exec('create_project', { name: 'gamma' });
    await rt.exec('add_repo', { project_id: 'gamma', source: 'init', name: 'lib' });
    expect(await rt.exec('create_agent', { name: 'tied', repo_id: 'lib' })).toEqual({ created: 'tied', name: 'tied', repo_id: 'lib' });
    expect(await rt.exec('delete_project', { project_id: 'gamma' })).toMatchObject({ deleted: 'gamma' });
    expect((await rt.db.agents.get('tied'))?.repoId).toBeNull();
  });
});
