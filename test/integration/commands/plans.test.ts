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

  const planText = (...steps: string[]) =>
    `# Plan it\n\nShared background for every step.\n\n${steps.map((t, i) => `## Step ${i + 1}: ${t}\n\nDo the ${t} thing, carefully and well.\n`).join('\n')}`;

  it('revise_plan shows the changes and applies them only when confirmed, keeping the chain whole', async () => {
    const after = (await rt.exec('create_task', { project_id: 'p', title: 'After', description: 'd', depends_on: [steps[2].id] }))
      .created as string;
    const revised = planText('First', 'Second, better', 'Fourth');
    const preview = await rt.exec('revise_plan', { task_id: parentId, plan: revised });
    expect(preview).toEqual({
      task_id: parentId,
      title: 'Plan it',
      added: [],
      removed: [],
      changed: [
        { id: steps[1].id, from: 'Second', to: 'Second, better' },
        { id: steps[2].id, from: 'Third', to: 'Fourth' },
      ],
      applied: false,
    });
    expect((await rt.exec('get_plan', { task_id: parentId })).steps).toMatchObject(steps.map((s) => ({ title: s.title })));

    const reordered = planText('Zeroth', 'First', 'Fourth');
    expect(await rt.exec('revise_plan', { task_id: parentId, plan: reordered })).toMatchObject({
      added: [{ title: 'Zeroth', position: 1 }],
      // Between kept steps, standing and new ones pair up in order: Second becomes Fourth, Third goes.
      removed: [{ id: steps[2].id, title: 'Third' }],
      changed: [{ id: steps[1].id, from: 'Second', to: 'Fourth' }],
    });
    const applied = await rt.exec('revise_plan', { task_id: steps[0].id, plan: reordered, confirm: true });
    expect(applied).toMatchObject({ applied: true });
    const plan = (await rt.exec('get_plan', { task_id: parentId })) as { steps: Array<{ id: string; title: string; status: string }> };
    expect(plan.steps.map((s) => s.title)).toEqual(['Zeroth', 'First', 'Fourth']);
    expect(plan.steps[1].id).toBe(steps[0].id);
    expect(plan.steps[2].id).toBe(steps[1].id);
    expect(await rt.db.tasks.get(steps[2].id)).toBeNull();
    const zeroth = plan.steps[0].id;
    const task = async (id: string) => (await rt.db.tasks.get(id))!;
    expect(await task(zeroth)).toMatchObject({ status: 'DEFINED', parentTaskId: parentId, isPlanSubtask: true, requiresApproval: false });
    expect((await task(zeroth)).description).toContain('Do the Zeroth thing');
    expect((await task(steps[0].id)).description).toBe('Do the First thing.');
    expect((await task(steps[1].id)).requiresApproval).toBe(true);
    expect((await task(steps[1].id)).description).toContain('Do the Fourth thing');
    const upstream = async (id: string) => (await rt.db.tasks.upstream(id)).map((t) => t.id);
    expect(await upstream(zeroth)).toEqual([parentId]);
    expect(await upstream(steps[0].id)).toEqual([zeroth]);
    expect(await upstream(steps[1].id)).toEqual([steps[0].id]);
    expect(await upstream(after)).toEqual([steps[1].id]);

    // Unchanged text changes nothing, even confirmed.
    expect(await rt.exec('revise_plan', { task_id: parentId, plan: reordered, confirm: true })).toMatchObject({
      applied: false,
      changed: [],
    });
  });

  it('revise_plan refuses a text the parser cannot read, a task without a plan, and a plan whose steps started', async () => {
    expect(await rt.exec('revise_plan', { task_id: parentId, plan: 'Just do it all, somehow.', confirm: true })).toEqual({
      error: expect.stringMatching(/^The revised plan reads as one document rather than separate steps.*Nothing was changed\.$/),
    });
    expect(await rt.exec('revise_plan', { task_id: parentId, plan: '# Title only', confirm: true })).toEqual({
      error: expect.stringMatching(/^The revised plan has no steps I can read/),
    });
    const lone = (await rt.exec('create_task', { project_id: 'p', title: 'No plan', description: 'd' })).created as string;
    expect(await rt.exec('revise_plan', { task_id: lone, plan: planText('A') })).toEqual({
      error: `Task '${lone}' made no plan to revise.`,
    });
    await rt.exec('set_task_status', { task_id: steps[0].id, status: 'IN_PROGRESS' });
    expect(await rt.exec('revise_plan', { task_id: parentId, plan: planText('First', 'Second'), confirm: true })).toEqual({
      error: `Step '${steps[0].id}' of this plan is already in progress: a plan can be revised only before its steps run. Change single steps with edit_task or delete_task instead.`,
    });
    expect((await rt.exec('get_plan', { task_id: parentId })).steps).toHaveLength(3);
  });
});
