// @database-dependent: a plan's steps are read back in chain order through new queries, and revised in one transaction.
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

describe('plan commands', () => {
  let rt: TestRuntime;
  let parentId: string;
  let steps: Array<{ id: string; title: string }>;

  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'p' });
    parentId = (await rt.exec('create_task', { project_id: 'p', title: 'Plan it', description: 'd', requires_approval: true }))
      .created as string;
    const parent = (await rt.db.tasks.get(parentId))!;
    steps = await rt.db.planChains.create({
      parent: { ...parent, id: parentId },
      planSource: '.agent/plans/plan.md',
      children: ['First', 'Second', 'Third'].map((title, i) => ({ title, description: `Do the ${title} thing.`, priority: 100 + i })),
    });
  });
  afterEach(() => rt.cleanup());

  it('get_plan lists the steps in chain order, from the parent or from any step', async () => {
    const expected = {
      task_id: parentId,
      title: 'Plan it',
      project_id: 'p',
      steps: steps.map((s) => ({ id: s.id, title: s.title, status: 'DEFINED' })),
    };
    expect(await rt.exec('get_plan', { task_id: parentId })).toMatchObject(expected);
    expect(await rt.exec('get_plan', { task_id: steps[1].id })).toMatchObject(expected);
    const lone = (await rt.exec('create_task', { project_id: 'p', title: 'No plan', description: 'd' })).created as string;
    expect(await rt.exec('get_plan', { task_id: lone })).toMatchObject({ task_id: lone, steps: [] });
    expect(await rt.exec('get_plan', { task_id: 'nope' })).toEqual({ error: "Task 'nope' not found." });
  });
});
