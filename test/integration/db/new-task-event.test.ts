import type { EventRecord } from '../../../src/db/repositories/events';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/** A new task and the `task_created` event that reports it are stored in one transaction. */
describe('a new task and its event', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'web' });
  });
  afterEach(() => rt.cleanup());

  it('create_task stores its task_created event and hands it to the listeners once, as stored', async () => {
    const heard: EventRecord[] = [];
    const stop = rt.events.subscribe((e) => {
      if (e.type === 'task_created') heard.push(e);
    });
    const id = String((await rt.exec('create_task', { project_id: 'web', title: 'Build it', description: 'd' })).created);
    stop();
    const stored = (await rt.db.events.recent(10)).filter((e) => e.type === 'task_created');
    expect(stored).toEqual([
      expect.objectContaining({
        projectId: 'web',
        taskId: id,
        payload: { title: 'Build it', status: 'READY' },
        origin: expect.any(String),
      }),
    ]);
    expect(heard).toEqual(stored);
  });

  it('stores no task when its event cannot be stored', async () => {
    const before = await rt.db.tasks.countInStatus('READY', 'web');
    const eventsBefore = await rt.db.events.count();
    await expect(
      rt.db.tasks.createReported({ projectId: 'web', title: 'T', description: 'd' }, [], (task) =>
        // A payload JSON cannot write: the event's insert fails inside the task's transaction.
        rt.events.event('task_created', { projectId: 'web', taskId: task.id, payload: { size: BigInt(1) } }),
      ),
    ).rejects.toThrow(/BigInt/);
    expect(await rt.db.tasks.countInStatus('READY', 'web')).toBe(before);
    expect(await rt.db.events.count()).toBe(eventsBefore);
  });
});
