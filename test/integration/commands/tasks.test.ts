// @database-dependent: tasks are filtered, ordered and counted in SQL.
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { putTask } from '../../support/task-fixtures';
import { succeeded } from '../../support/outcome';

describe('task commands', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
  });
  afterEach(() => rt.cleanup());

  const create = async (args: Record<string, unknown> = {}) =>
    (await rt.exec('create_task', { project_id: 'alpha', title: 'T', description: 'D', ...args })) as Record<string, unknown>;

  it('creates READY tasks with spec defaults and readable ids', async () => {
    const result = await create({ title: 'Write docs', description: 'All of them' });
    expect(result).toEqual({ created: expect.stringMatching(/^[a-z]+-[a-z]+-\d{3}$/), title: 'Write docs', project_id: 'alpha' });
    expect(await rt.exec('get_task', { task_id: result.created })).toEqual({
      id: result.created,
      project_id: 'alpha',
      title: 'Write docs',
      description: 'All of them',
      status: 'READY',
      priority: 100,
      assigned_agent: null,
      // No daemon runs in this test: get_task says so for a task waiting to start.
      waiting_code: 'no_daemon',
      waiting_reason: 'No daemon is running, so nothing is scheduled: start the app (npm start).',
      retry_count: 0,
      max_retries: 3,
      requires_approval: false,
      tokens: 0,
      cost_usd: 0,
    });
    const withFlags = await create({ requires_approval: 'true', priority: '5' });
    expect(withFlags.requires_approval).toBe(true);
    expect((await rt.exec('get_task', { task_id: withFlags.created })).priority).toBe(5);
  });

  it('falls back to the active project and errors when none can be resolved', async () => {
    expect(await rt.exec('create_task', { title: 'x', description: 'y' })).toEqual({
      error: expect.stringContaining('No project given and no active project set'),
    });
    expect(await rt.exec('set_active_project', { project_id: 'alpha' })).toEqual({ active_project: 'alpha', name: 'alpha' });
    expect(await rt.exec('create_task', { title: 'x', description: 'y' })).toMatchObject({ project_id: 'alpha' });
    expect(await rt.exec('create_task', { project_id: 'nope', title: 'x', description: 'y' })).toEqual({
      error: "Project 'nope' not found.",
    });
    expect(await rt.exec('create_task', { project_id: 'alpha', title: 'x', description: 'y', repo_id: 'r' })).toEqual({
      error: "Repo 'r' not found.",
    });
  });

  it('lists at most 200 tasks in priority order with the full total', async () => {
    for (let i = 0; i < 205; i++) {
      await rt.db.tasks.create({ projectId: 'alpha', title: `t${i}`, description: 'd', priority: 300 - i });
    }
    const all = (await rt.exec('list_tasks')) as { tasks: Array<{ priority: number }>; total: number };
    expect(all.total).toBe(205);
    expect(all.tasks).toHaveLength(200);
    expect(all.tasks[0]).toEqual(expect.objectContaining({ priority: 96, status: 'READY', project_id: 'alpha', assigned_agent: null }));
    expect(Object.keys(all.tasks[0]).sort()).toEqual(['assigned_agent', 'id', 'priority', 'project_id', 'status', 'title']);
    expect(all.tasks.map((t) => t.priority)).toEqual([...all.tasks.map((t) => t.priority)].sort((a, b) => a - b));
    expect(((await rt.exec('list_tasks', { status: 'completed' })) as { total: number }).total).toBe(0);
    expect(await rt.exec('list_tasks', { status: 'DONE' })).toEqual({
      error: expect.stringMatching(/^Field 'status' must be one of DEFINED, READY/),
    });
  });

  it('edits fields, refuses an empty edit and unknown tasks', async () => {
    const { created } = await create();
    expect(await rt.exec('edit_task', { task_id: created, title: 'New', priority: 1 })).toEqual({
      updated: created,
      fields: ['title', 'priority'],
    });
    expect((await rt.exec('get_task', { task_id: created })).title).toBe('New');
    expect(await rt.exec('edit_task', { task_id: created })).toEqual({ error: expect.stringContaining('Nothing to update') });
    expect(await rt.exec('edit_task', { task_id: 'ghost', title: 'x' })).toEqual({ error: "Task 'ghost' not found." });
    expect(await rt.exec('get_task', {})).toEqual({ error: "Missing required field 'task_id'." });
  });

  it('forces a status and reports old and new', async () => {
    const { created } = await create();
    expect(await rt.exec('set_task_status', { task_id: created, status: 'blocked' })).toEqual({
      task_id: created,
      old_status: 'READY',
      new_status: 'BLOCKED',
      title: 'T',
    });
    expect(await rt.exec('set_task_status', { task_id: 'ghost', status: 'READY' })).toEqual({ error: "Task 'ghost' not found." });
  });

  it('restarts any task but a running one, resetting retries and the agent', async () => {
    const { created } = await create();
    await putTask(rt.db, created as string, 'FAILED', { retryCount: 3, assignedAgent: 'a1' });
    expect(await rt.exec('restart_task', { task_id: created })).toEqual({ restarted: created, title: 'T', previous_status: 'FAILED' });
    expect(await rt.exec('get_task', { task_id: created })).toMatchObject({ status: 'READY', retry_count: 0, assigned_agent: null });
    await putTask(rt.db, created as string, 'IN_PROGRESS');
    expect(await rt.exec('restart_task', { task_id: created })).toEqual({ error: expect.stringContaining('IN_PROGRESS') });
  });

  it('approves only AWAITING_APPROVAL tasks and logs task_completed', async () => {
    const { created } = await create();
    expect(await rt.exec('approve_task', { task_id: created })).toEqual({ error: expect.stringContaining('not AWAITING_APPROVAL') });
    await putTask(rt.db, created as string, 'AWAITING_APPROVAL');
    expect(await rt.exec('approve_task', { task_id: created })).toEqual({ approved: created, title: 'T' });
    expect((await rt.exec('get_task', { task_id: created })).status).toBe('COMPLETED');
    const [latest] = await rt.db.events.recent(1);
    expect(latest).toMatchObject({ type: 'task_completed', taskId: created, projectId: 'alpha' });
    expect(await rt.exec('approve_task', { task_id: created })).toEqual({ error: expect.stringContaining('is COMPLETED') });
  });

  it('deletes tasks, stopping a running one first and releasing its agent and workspace', async () => {
    const { created } = await create();
    await rt.db.agents.create({ id: 'a1', name: 'a1', type: 'claude' });
    await rt.db.workspaces.create({ id: 'w1', projectId: 'alpha', name: 'w1', path: '/tmp/w1', sourceType: 'link', repoId: null });
    await rt.db.workspaces.acquire('w1', created as string, 'a1');
    await rt.db.em().getConnection().execute("update agents set state = 'BUSY', current_task = ? where id = 'a1'", [created]);
    await putTask(rt.db, created as string, 'IN_PROGRESS', { assignedAgent: 'a1' });
    expect(await rt.exec('delete_task', { task_id: created })).toEqual({ deleted: created, title: 'T' });
    expect(await rt.exec('get_task', { task_id: created })).toEqual({ error: `Task '${created}' not found.` });
    expect(await rt.db.agents.get('a1')).toMatchObject({ state: 'IDLE', currentTask: null });
    expect(await rt.db.workspaces.get('w1')).toMatchObject({ lockedByTaskId: null });
    expect(await rt.exec('delete_task', { task_id: created })).toEqual({ error: `Task '${created}' not found.` });
  });

  it('filters list_tasks by project and status, and shows pr_url only when set', async () => {
    await rt.exec('create_project', { name: 'beta' });
    const a = await create({ title: 'A' });
    await create({ title: 'B', project_id: 'beta' });
    await putTask(rt.db, a.created as string, 'AWAITING_APPROVAL', { prUrl: 'https://example.test/pr/1' });
    const inBeta = (await rt.exec('list_tasks', { project_id: 'beta' })) as { tasks: Array<{ title: string }>; total: number };
    expect(inBeta.total).toBe(1);
    expect(inBeta.tasks.map((t) => t.title)).toEqual(['B']);
    const awaiting = (await rt.exec('list_tasks', { status: 'AWAITING_APPROVAL' })) as { tasks: Array<{ id: string }>; total: number };
    expect(awaiting).toEqual({ tasks: [expect.objectContaining({ id: a.created })], total: 1, next_offset: null, next_cursor: null });
    expect(await rt.exec('get_task', { task_id: a.created })).toMatchObject({ pr_url: 'https://example.test/pr/1' });
    expect(await rt.exec('list_tasks', { project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
    expect(await rt.exec('list_tasks', { project_id: 'ghost', cursor: 'not-a-cursor' })).toEqual({ error: "Project 'ghost' not found." });
    await rt.exec('create_project', { name: 'empty' });
    expect(await rt.exec('list_tasks', { project_id: 'empty', status: 'READY' })).toEqual({
      tasks: [],
      total: 0,
      next_offset: null,
      next_cursor: null,
    });
  });

  it('records forced status changes and refuses unknown statuses', async () => {
    const { created } = await create();
    await rt.exec('set_task_status', { task_id: created, status: 'FAILED' });
    const [latest] = await rt.db.events.recent(1);
    expect(latest).toMatchObject({
      type: 'task_status_forced',
      taskId: created,
      payload: { old_status: 'READY', new_status: 'FAILED', outside_state_machine: true },
    });
    // FAILED → READY is a move the state machine makes (a retry), so it is not marked as outside it.
    await rt.exec('set_task_status', { task_id: created, status: 'READY' });
    expect((await rt.db.events.recent(1))[0].payload).toMatchObject({
      old_status: 'FAILED',
      new_status: 'READY',
      outside_state_machine: false,
    });
    expect(await rt.exec('set_task_status', { task_id: created, status: 'DONE' })).toEqual({
      error: expect.stringMatching(/^Field 'status' must be one of /),
    });
    expect(await rt.exec('set_task_status', { task_id: created })).toEqual({ error: "Missing required field 'status'." });
  });

  it('lets a Slack user outside AQ_ADMINS queue and inspect tasks', async () => {
    const guarded = await makeTestRuntime({ AQ_ADMINS: 'U1' });
    try {
      await guarded.exec('create_project', { name: 'p' });
      const asSlack = (name: string, args: Record<string, unknown> = {}) =>
        guarded.handler.executeAny(name, args, { source: 'slack', userId: 'U2' });
      const { created } = await asSlack('create_task', { project_id: 'p', title: 'x', description: 'y' });
      expect(created).toEqual(expect.any(String));
      expect(await asSlack('get_task', { task_id: created })).toMatchObject({ id: created });
      expect(await asSlack('list_tasks')).toMatchObject({ total: 1 });
      expect(await asSlack('get_status')).toMatchObject({ projects: 1 });
      expect(await asSlack('list_agents')).toEqual({ agents: [], total: 0, next_offset: null });
      expect(await asSlack('get_chain_health', { project_id: 'p' })).toMatchObject({ total_stuck_chains: 0 });
    } finally {
      await guarded.cleanup();
    }
  });

  it('records where a task was asked for: given by hand, or the Slack thread of a chat request', async () => {
    const byHand = await create({ source_url: ' https://tracker.example/BUG-7 ' });
    expect((await rt.exec('get_task', { task_id: byHand.created })).source_url).toBe('https://tracker.example/BUG-7');
    expect((await rt.exec('get_task', { task_id: (await create()).created })).source_url).toBeUndefined();
    const thread = 'https://acme.slack.com/archives/C1/p1700000000000100';
    const fromChat = succeeded(
      await rt.handler.execute(
        'create_task',
        { project_id: 'alpha', title: 'T', description: 'D', source_url: 'https://elsewhere.example/' },
        { source: 'chat', userId: 'U1', sourceUrl: thread },
      ),
    );
    expect((await rt.exec('get_task', { task_id: fromChat.created })).source_url).toBe(thread);
  });

  it('reads back every field of a task as the ORM wrote it', async () => {
    // get is a plain statement mapped by hand: booleans, dates and nulls come back differently
    // from each database, and must give the record the ORM's write returned.
    const plain = await rt.db.tasks.create({ projectId: 'alpha', title: 'Plain', description: 'Nothing set' });
    expect(await rt.db.tasks.get(plain.id)).toEqual(plain);
    const task = await rt.db.tasks.create({
      projectId: 'alpha',
      title: 'Everything',
      description: 'Every field set',
      priority: 7,
      requiresApproval: true,
      repoId: 'repo-1',
      branchName: 'feature/x',
      parentTaskId: plain.id,
      isPlanSubtask: true,
      planDepth: 2,
      planSource: '/w/plan.md',
      autoTasks: false,
      preferredWorkspaceId: 'ws-1',
      maxRetries: 5,
      sourceUrl: 'https://tracker.example/BUG-7',
      requestedBy: 'U1',
      backend: 'acp:codex',
    });
    const edited = await rt.db.tasks.update(task.id, {
      assignedAgent: 'agent-1',
      retryCount: 2,
      prUrl: 'https://github.com/o/r/pull/1',
      workspaceId: 'ws-1',
      resumeAfter: new Date(1_800_000_000_123),
      pauseReason: 'usage limit',
      skipped: true,
      currentRunId: 'run-1',
      startedAt: new Date(1_800_000_000_456),
      completedAt: new Date(1_800_000_000_789),
    });
    expect(edited?.after).toMatchObject({
      requiresApproval: true,
      autoTasks: false,
      skipped: true,
      resumeAfter: new Date(1_800_000_000_123),
    });
    expect(await rt.db.tasks.get(task.id)).toEqual(edited?.after);
    expect(await rt.db.tasks.get('nope')).toBeNull();
  });

  it('moves a task with its fields as the ORM writes them, and only from the statuses and run given', async () => {
    // transition is a plain statement with its own column list: each field it sets must read back
    // as the same field set through the ORM's update.
    const changes = {
      title: 'Moved',
      description: 'Every field a move can set',
      priority: 3,
      assignedAgent: 'agent-1',
      retryCount: 2,
      maxRetries: 6,
      requiresApproval: true,
      prUrl: 'https://github.com/o/r/pull/2',
      repoId: 'repo-2',
      branchName: 'feature/y',
      parentTaskId: 'parent-1',
      isPlanSubtask: true,
      planDepth: 1,
      planSource: '/w/plan.md',
      autoTasks: false,
      preferredWorkspaceId: 'ws-2',
      workspaceId: 'ws-2',
      resumeAfter: new Date(1_800_000_000_123),
      pauseReason: "it's <late> & \u0000 done",
      sourceUrl: 'https://tracker.example/BUG-8',
      requestedBy: 'U2',
      skipped: true,
      backend: 'acp:codex',
      currentRunId: 'run-2',
      startedAt: new Date(1_800_000_000_456),
      completedAt: null,
    };
    const viaOrm = await rt.db.tasks.create({ projectId: 'alpha', title: 'A', description: 'a' });
    const moved = await rt.db.tasks.create({ projectId: 'alpha', title: 'B', description: 'b' });
    await rt.db.tasks.update(viaOrm.id, changes);
    const ormAfter = await rt.db.tasks.get(viaOrm.id);
    // The move answers the task as it was before it.
    expect(await rt.db.tasks.transition(moved.id, ['READY'], 'ASSIGNED', changes)).toEqual(moved);
    const after = await rt.db.tasks.get(moved.id);
    const { id: _a, status: _s, createdAt: _c, updatedAt: _u, ...fields } = after ?? ({} as never);
    const { id: _b, status: _t, createdAt: _d, updatedAt: _v, ...ormFields } = ormAfter ?? ({} as never);
    expect(fields).toEqual(ormFields);
    expect(fields.pauseReason).toBe("it's <late> & \uFFFD done");
    expect(after?.status).toBe('ASSIGNED');
    expect(after?.updatedAt.getTime()).toBeGreaterThanOrEqual(moved.updatedAt.getTime());

    // Not from a status it is not in, nor for another run than the one holding it.
    expect(await rt.db.tasks.transition(moved.id, ['READY'], 'IN_PROGRESS')).toBeNull();
    expect(await rt.db.tasks.transition(moved.id, [], 'IN_PROGRESS')).toBeNull();
    expect(await rt.db.tasks.transition(moved.id, ['ASSIGNED'], 'IN_PROGRESS', {}, { runId: 'run-other' })).toBeNull();
    expect((await rt.db.tasks.get(moved.id))?.status).toBe('ASSIGNED');
    expect(
      await rt.db.tasks.transition(moved.id, ['ASSIGNED', 'PAUSED'], 'IN_PROGRESS', { pauseReason: undefined }, { runId: 'run-2' }),
    ).toMatchObject({ id: moved.id, status: 'ASSIGNED', currentRunId: 'run-2' });
    expect(await rt.db.tasks.get(moved.id)).toMatchObject({ status: 'IN_PROGRESS', pauseReason: null, startedAt: changes.startedAt });
  });
});
