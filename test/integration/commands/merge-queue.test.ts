// @database-dependent: the merge train is listed, reordered and emptied through its SQL.
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { putTask } from '../../support/task-fixtures';

const slack = (userId: string) => ({ source: 'slack' as const, userId, channelId: 'CELSEWHERE' });

describe('merge queue commands', () => {
  let rt: TestRuntime;
  const ids: string[] = [];
  beforeEach(async () => {
    rt = await makeTestRuntime({ AQ_ADMINS: 'UADMIN' });
    await rt.exec('create_project', { name: 'alpha' });
    ids.length = 0;
    for (const [i, title] of ['One', 'Two', 'Three'].entries()) {
      const id = (await rt.exec('create_task', { project_id: 'alpha', title, description: title })).created as string;
      ids.push(id);
      await rt.db.mergeTrain.enter({ taskId: id, projectId: 'alpha', train: 'project:alpha' }, Date.UTC(2026, 10, 25, 12, 0, i));
    }
  });
  afterEach(() => rt.cleanup());

  const as = (userId: string, name: string, args: Record<string, unknown>) => rt.handler.executeAny(name, args, slack(userId));
  const order = async () =>
    ((await rt.exec('get_merge_queue', { project_id: 'alpha' })).entries as Array<{ task_id: string }>).map((e) => e.task_id);

  it('lists the train in landing order with each entry’s place, state and since', async () => {
    expect(await rt.exec('get_merge_queue', { project_id: 'alpha' })).toEqual({
      entries: ids.map((id, i) => ({
        task_id: id,
        title: ['One', 'Two', 'Three'][i],
        train: 'project:alpha',
        place: i + 1,
        state: 'waiting',
        since: new Date(Date.UTC(2026, 10, 25, 12, 0, i)).toISOString(),
        tries: 0,
        last_outcome: null,
      })),
      total: 3,
      next_offset: null,
    });
    expect(await rt.exec('get_merge_queue', {})).toEqual({ error: 'Give project_id or repo_id to say which merge train to show.' });
    expect(await rt.exec('get_merge_queue', { project_id: 'nope' })).toEqual({ error: "Project 'nope' not found." });
  });

  it('get_task shows a queued task’s place and state in its train, and nothing once it left', async () => {
    await rt.db.mergeTrain.advance(ids[0], ['waiting'], 'sent_back', Date.UTC(2026, 10, 25, 12, 5), {
      lastOutcome: 'The check failed.',
      countTry: true,
    });
    expect((await rt.exec('get_task', { task_id: ids[0] })).merge_queue).toEqual({
      train: 'project:alpha',
      place: 1,
      state: 'sent_back',
      since: new Date(Date.UTC(2026, 10, 25, 12, 5)).toISOString(),
      tries: 1,
      last_outcome: 'The check failed.',
    });
    await rt.db.mergeTrain.advance(ids[1], ['waiting'], 'checking', Date.UTC(2026, 10, 25, 12, 6));
    expect((await rt.exec('get_task', { task_id: ids[1] })).merge_queue).toMatchObject({ place: 2, state: 'checking', tries: 0 });
    expect((await rt.exec('get_task', { task_id: ids[2] })).merge_queue).toMatchObject({ place: 3, state: 'waiting' });
    await rt.db.mergeTrain.remove(ids[1]);
    expect(await rt.exec('get_task', { task_id: ids[1] })).not.toHaveProperty('merge_queue');
    expect((await rt.exec('get_task', { task_id: ids[2] })).merge_queue).toMatchObject({ place: 2, state: 'waiting' });
  });

  it('lets admins move a task to the front or a place and take one out; others are refused', async () => {
    expect(await as('UOTHER', 'move_in_merge_queue', { task_id: ids[2] })).toEqual({ error: expect.stringContaining('AQ_ADMINS') });
    expect(await as('UOTHER', 'remove_from_merge_queue', { task_id: ids[0] })).toEqual({ error: expect.stringContaining('AQ_ADMINS') });
    expect(await order()).toEqual(ids);
    expect(await as('UADMIN', 'move_in_merge_queue', { task_id: ids[2] })).toEqual({ moved: ids[2], place: 1, state: 'waiting' });
    expect(await order()).toEqual([ids[2], ids[0], ids[1]]);
    expect(await as('UADMIN', 'move_in_merge_queue', { task_id: ids[2], place: 3 })).toEqual({ moved: ids[2], place: 3, state: 'waiting' });
    expect(await as('UADMIN', 'remove_from_merge_queue', { task_id: ids[0] })).toEqual({ removed: ids[0] });
    expect(await order()).toEqual([ids[1], ids[2]]);
    expect(await as('UADMIN', 'remove_from_merge_queue', { task_id: ids[0] })).toEqual({
      error: `Task '${ids[0]}' is not in a merge train; see get_merge_queue for the tasks waiting to land.`,
    });
    expect(await as('UADMIN', 'move_in_merge_queue', { task_id: 'nope' })).toEqual({ error: "Task 'nope' not found." });
    // A landing under way is not pulled out from under its holder.
    await rt.db.mergeTrain.advance(ids[1], ['waiting'], 'checking', Date.now());
    expect(await as('UADMIN', 'remove_from_merge_queue', { task_id: ids[1] })).toEqual({
      error: `Task '${ids[1]}' is landing right now (checking); try again when the landing is over.`,
    });
  });

  it('a task waiting to land keeps its workspace after its run; sent back or taken out, it lets go', async () => {
    const lockOf = async (id: string) => (await rt.db.workspaces.get(id))?.lockedByTaskId ?? null;
    for (const [i, id] of ids.entries()) {
      await rt.db.workspaces.create({
        id: `ws${i}`,
        projectId: 'alpha',
        name: `ws${i}`,
        path: `/tmp/aq-mq-ws${i}`,
        sourceType: 'link',
        repoId: null,
      });
      await putTask(rt.db, id, 'AWAITING_APPROVAL', { workspaceId: `ws${i}` });
      expect(await rt.db.workspaces.acquire(`ws${i}`, id, null)).toBe(true);
    }
    await rt.db.mergeTrain.advance(ids[1], ['waiting'], 'sent_back', Date.now());
    for (const [i, id] of ids.entries()) await rt.db.taskRuns.finishRun(id, 'no-agent', `ws${i}`);
    // Queued: kept, so no other task takes the workspace it lands from. Sent back: free.
    expect([await lockOf('ws0'), await lockOf('ws1'), await lockOf('ws2')]).toEqual([ids[0], null, ids[2]]);
    expect(await as('UADMIN', 'remove_from_merge_queue', { task_id: ids[2] })).toEqual({ removed: ids[2] });
    expect(await lockOf('ws2')).toBeNull();
    expect(await lockOf('ws0')).toBe(ids[0]);
  });
});
