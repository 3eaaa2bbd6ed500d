import { trainOf } from '../../../src/orchestrator/landing';
import { makeHarness, untilAborted, waitFor, writeIn, type Harness } from './harness';

/** The runner's side of messages: a message the run never took is not lost. */
describe('messages a run ends without taking', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await makeHarness();
  });
  afterEach(() => h.cleanup());

  it('become a follow-up run that resumes the session, with the message as its prompt', async () => {
    let id = '';
    h.adapter.fallback = async (req, attempt) => {
      // This agent reads no inbox, as a run that ends right when the message arrives.
      if (attempt === 1)
        expect(await h.rt.exec('message_task', { task_id: id, text: 'LATE: also update the docs' })).toMatchObject({ delivery: 'live' });
      await writeIn(req, `run-${attempt}.txt`, 'x\n');
      return { summary: `run ${attempt}` };
    };
    await h.start();
    id = await h.task('Write code');
    await waitFor(async () => h.eventsOf('task_completed', id).length === 2, 60_000, 'the follow-up run');

    const [first, second] = h.adapter.calls;
    expect(first.resumeSessionId ?? null).toBeNull();
    expect(first.prompt).not.toContain('LATE');
    expect(second.resumeSessionId).toBe(`s-${id}-1`);
    expect(second.prompt).toContain('LATE: also update the docs');
    expect(h.eventsOf('task_follow_up_queued', id)[0].payload).toMatchObject({ previous_status: 'COMPLETED', resumes_session: true });
    expect(h.eventsOf('task_message_delivered', id)[0].payload).toMatchObject({ via: 'follow_up' });
    expect(await h.rt.db.taskMessages.pending(id)).toEqual([]);
    expect(await h.status(id)).toBe('COMPLETED');
  });

  it('wait for the landing when the daemon, not the run, lands the work; then follow up from COMPLETED', async () => {
    // The daemon's train pass holds the train when the run ends (here the test holds it), so the
    // run leaves its task queued to land: the follow-up must not pull it out of the train.
    let id = '';
    let train = '';
    h.adapter.fallback = async (req, attempt) => {
      if (attempt === 1) {
        const task = (await h.rt.db.tasks.get(id))!;
        train = trainOf(task);
        expect(await h.rt.db.mergeTrain.acquireLock(train, 'the test', 600_000, Date.now())).toBe(true);
        expect(await h.rt.exec('message_task', { task_id: id, text: 'LATE: also update the docs' })).toMatchObject({ delivery: 'live' });
      }
      await writeIn(req, `run-${attempt}.txt`, 'x\n');
      return { summary: `run ${attempt}` };
    };
    await h.start();
    id = await h.task('Write code');
    await waitFor(async () => h.adapter.calls.length === 1 && !h.rt.daemon()!.runningTaskIds.includes(id), 60_000, 'the first run to end');

    expect(await h.status(id)).toBe('AWAITING_APPROVAL');
    expect(await h.rt.db.mergeTrain.get(id)).toMatchObject({ state: 'waiting' });
    expect(await h.rt.db.taskMessages.pending(id, 'follow_up')).toEqual([expect.objectContaining({ text: 'LATE: also update the docs' })]);
    expect(h.eventsOf('task_follow_up_queued', id)).toEqual([]);

    await h.rt.db.mergeTrain.releaseLock(train, 'the test');
    h.rt.daemon()!.kick();
    await waitFor(async () => h.eventsOf('task_completed', id).length === 2, 60_000, 'the landing, then the follow-up run');
    expect(h.eventsOf('task_follow_up_queued', id).map((e) => e.payload.previous_status)).toEqual(['COMPLETED']);
    expect(h.adapter.calls[1].prompt).toContain('LATE: also update the docs');
    expect(h.adapter.calls[1].resumeSessionId).toBe(`s-${id}-1`);
    expect(h.eventsOf('landed', id)).toHaveLength(2);
    expect(await h.rt.db.taskMessages.pending(id)).toEqual([]);
  });

  it('do not restart a run someone stopped; they wait for its next run', async () => {
    h.adapter.fallback = async (req) => {
      await untilAborted(req);
      return { status: 'aborted', summary: '' };
    };
    await h.start();
    const id = await h.task('Stopped job');
    await waitFor(async () => h.adapter.calls.length === 1);
    expect(await h.rt.exec('message_task', { task_id: id, text: 'Unread' })).toMatchObject({ delivery: 'live' });
    expect(await h.rt.exec('stop_task', { task_id: id })).toEqual({ stopped: id });
    await waitFor(async () => (await h.rt.db.taskResults.latest(id))?.result === 'STOPPED', 60_000, 'the stopped run to be recorded');
    await h.rt.stopDaemon();
    expect(await h.status(id)).toBe('BLOCKED');
    expect(h.eventsOf('task_follow_up_queued', id)).toEqual([]);
    expect(await h.rt.db.taskMessages.pending(id, 'live')).toEqual([expect.objectContaining({ text: 'Unread' })]);
  });
});
