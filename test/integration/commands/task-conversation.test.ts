// @database-dependent: task messages are inserted with a dialect-specific returning id.
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { putTask } from '../../support/task-fixtures';

/** message_task's rules: who may steer, which statuses take a message, and where it goes. */
describe('message_task', () => {
  let rt: TestRuntime;
  let id: string;
  beforeEach(async () => {
    rt = await makeTestRuntime({ AQ_ADMINS: 'UADMIN' });
    await rt.exec('create_project', { name: 'alpha' });
    id = (await rt.db.tasks.create({ projectId: 'alpha', title: 'Build it', description: 'Build it' })).id;
  });
  afterEach(() => rt.cleanup());

  const asSlackUser = (userId: string, args: Record<string, unknown>) =>
    rt.handler.executeAny('message_task', args, { source: 'slack', userId });

  it('refuses people outside AQ_ADMINS and stores nothing', async () => {
    await putTask(rt.db, id, 'IN_PROGRESS');
    expect(await asSlackUser('U2', { task_id: id, text: 'Stop that' })).toEqual({
      error: expect.stringContaining("Only the project's steerers or admins (AQ_ADMINS) may steer its agents"),
    });
    expect(await rt.db.taskMessages.list(id)).toEqual([]);
  });

  it("a project's steerers may steer its agents; others still may not, admins still may", async () => {
    await putTask(rt.db, id, 'IN_PROGRESS');
    expect(await asSlackUser('U2', { task_id: id, text: 'x' })).toEqual({ error: expect.stringContaining('steerers') });
    expect(
      await rt.handler.execute('set_project_steerers', { project_id: 'alpha', user_ids: ['USTEER'] }, { source: 'slack', userId: 'U2' }),
    ).toEqual({
      error: expect.stringContaining('admin'),
    });
    expect(await rt.exec('set_project_steerers', { project_id: 'alpha', user_ids: ['USTEER', 'USTEER'] })).toEqual({
      project_id: 'alpha',
      steerers: ['USTEER'],
    });
    expect(await rt.db.steerers.list('alpha')).toEqual(['USTEER']);
    expect(await asSlackUser('USTEER', { task_id: id, text: 'From a steerer' })).toMatchObject({ delivery: 'live' });
    expect(await asSlackUser('UADMIN', { task_id: id, text: 'From an admin' })).toMatchObject({ delivery: 'live' });
    expect(await asSlackUser('U2', { task_id: id, text: 'From someone else' })).toEqual({
      error: expect.stringContaining("Only the project's steerers or admins"),
    });
    expect((await rt.db.taskMessages.list(id)).map((m) => m.author)).toEqual(['USTEER', 'UADMIN']);
    expect(await rt.exec('set_project_steerers', { project_id: 'alpha', user_ids: ['not-a-user'] })).toEqual({
      error: expect.stringContaining('Slack user id'),
    });
    expect(await rt.exec('set_project_steerers', { project_id: 'nope', user_ids: [] })).toEqual({ error: expect.stringContaining('nope') });
  });

  it('stores a live message for a running task, with its Slack author', async () => {
    await putTask(rt.db, id, 'IN_PROGRESS');
    const sent = await asSlackUser('UADMIN', { task_id: id, text: '  Use tabs  ' });
    expect(sent).toEqual({ task_id: id, title: 'Build it', delivery: 'live', message_id: expect.any(Number), status: 'IN_PROGRESS' });
    expect(await rt.db.taskMessages.pending(id, 'live')).toEqual([
      expect.objectContaining({ text: 'Use tabs', author: 'UADMIN', kind: 'live' }),
    ]);
    expect(await rt.db.tasks.get(id)).toMatchObject({ status: 'IN_PROGRESS' });
  });

  it.each(['READY', 'DEFINED', 'ASSIGNED', 'PAUSED'] as const)('refuses a task that is %s and leaves it as it was', async (status) => {
    await putTask(rt.db, id, status);
    const refused = await rt.exec('message_task', { task_id: id, text: 'Hello' });
    expect(refused).toEqual({
      error: `Task '${id}' is ${status}: messages reach a running task, or one that is AWAITING_APPROVAL, COMPLETED, FAILED, BLOCKED (as a follow-up run). Wait until it runs or finishes.`,
    });
    expect(await rt.db.tasks.get(id)).toMatchObject({ status });
    expect(await rt.db.taskMessages.list(id)).toEqual([]);
  });

  it('says when the task does not exist, and refuses an empty message', async () => {
    expect(await rt.exec('message_task', { task_id: 'no-such-task', text: 'Hi' })).toEqual({ error: "Task 'no-such-task' not found." });
    expect(await rt.exec('message_task', { task_id: id, text: '   ' })).toEqual({ error: expect.stringMatching(/text/) });
  });

  it('a finished task goes back to the queue with the message as a follow-up that resumes its session', async () => {
    await putTask(rt.db, id, 'COMPLETED');
    await rt.db.taskResults.add({
      taskId: id,
      agentId: null,
      result: 'COMPLETED',
      summary: 'ok',
      errorMessage: null,
      filesChanged: null,
      tokensUsed: 1,
      costUsd: 0,
      sessionId: 'sess-1',
    });
    expect(await rt.exec('message_task', { task_id: id, text: 'Add tests too' })).toEqual({
      task_id: id,
      title: 'Build it',
      delivery: 'follow_up',
      message_id: expect.any(Number),
      status: 'READY',
      previous_status: 'COMPLETED',
      resumes_session: true,
    });
    expect(await rt.db.tasks.get(id)).toMatchObject({ status: 'READY', completedAt: null });
    expect(await rt.db.taskMessages.pending(id, 'follow_up')).toEqual([expect.objectContaining({ text: 'Add tests too' })]);
  });

  it('a second message before the follow-up starts joins it, without moving the task again', async () => {
    await putTask(rt.db, id, 'COMPLETED');
    await rt.exec('message_task', { task_id: id, text: 'Add tests too' });
    expect(await rt.exec('message_task', { task_id: id, text: 'And docs' })).toMatchObject({
      delivery: 'follow_up',
      status: 'READY',
      previous_status: 'READY',
    });
    expect((await rt.db.taskMessages.pending(id, 'follow_up')).map((m) => m.text)).toEqual(['Add tests too', 'And docs']);
    const queued = (await rt.exec('get_recent_events', { limit: 20 })) as { events: Array<{ type: string }> };
    expect(queued.events.filter((e) => e.type === 'task_follow_up_queued')).toHaveLength(1);
  });
});
