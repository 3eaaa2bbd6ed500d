import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/** Where a task's room is and what it last showed, as the room keeper writes them, on each database. */
describe('task rooms', () => {
  let rt: TestRuntime;
  let taskId: string;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'web' });
    taskId = String((await rt.exec('create_task', { project_id: 'web', title: 'T', description: 'd' })).created);
  });
  afterEach(() => rt.cleanup());

  it('keeps one room a task, what each change wrote, and opens an archived one again', async () => {
    const rooms = rt.db.taskRooms;
    expect(await rooms.get(taskId)).toBeNull();
    await rooms.save(taskId, 'CROOM1', null);
    await rooms.update(taskId, {
      views: ['plan', 'diff', 'plan'],
      contextHash: 'ctx-1',
      diffHash: 'diff-1',
      diffStats: { files: 2, insertions: 10, deletions: 3 },
      archivedAt: new Date(Date.UTC(2026, 10, 29)),
    });
    expect(await rooms.get(taskId)).toEqual({
      taskId,
      channelId: 'CROOM1',
      url: null,
      views: ['plan', 'diff'],
      contextHash: 'ctx-1',
      diffHash: 'diff-1',
      diffStats: { files: 2, insertions: 10, deletions: 3 },
      archivedAt: new Date(Date.UTC(2026, 10, 29)),
    });
    // Slack gives the same session's channel again: the room is open again, what it showed stays.
    await rooms.save(taskId, 'CROOM2', 'https://slack.example/archives/CROOM2');
    await rooms.update(taskId, { contextHash: null });
    await rooms.update(taskId, {});
    expect(await rooms.get(taskId)).toMatchObject({
      channelId: 'CROOM2',
      url: 'https://slack.example/archives/CROOM2',
      views: ['plan', 'diff'],
      contextHash: null,
      diffHash: 'diff-1',
      archivedAt: null,
    });
    expect(await rooms.taskFor('CROOM2')).toBe(taskId);
    expect(await rooms.taskFor('CROOM1')).toBeNull();
    // A task without a room is left without one.
    await rooms.update('no-such-task', { contextHash: 'x' });
    expect(await rooms.get('no-such-task')).toBeNull();
  });
});
