import { makeHarness, waitFor, type Harness } from './harness';

// An agent's text is not ours: a NUL (which cut the SQL statement short) or a lone surrogate in
// its summary or error must be stored, not fail the run's bookkeeping.
const HOSTILE = 'done\u0000 with \ud800 care';
const STORED = 'done\ufffd with \ufffd care';

describe('agent text with characters SQLite cannot take', () => {
  let h: Harness;
  afterEach(() => h.cleanup());

  it('completes the task and stores the summary with U+FFFD in their place', async () => {
    h = await makeHarness();
    h.adapter.fallback = async () => ({ summary: HOSTILE });
    await h.start();
    const id = await h.task('Hostile summary');
    await h.waitStatus(id, 'COMPLETED');
    expect(await h.rt.db.taskResults.latest(id)).toMatchObject({ result: 'COMPLETED', summary: STORED });
    const completed = await waitFor(async () => h.eventsOf('task_completed', id)[0]);
    // The merge train completes the task after it lands, from the stored result.
    expect(completed.payload.summary).toBe(STORED);
  });

  it('records a failure whose error message carries them', async () => {
    h = await makeHarness();
    h.adapter.fallback = async () => ({ status: 'failed', errorMessage: HOSTILE, summary: HOSTILE });
    await h.start();
    const id = await h.task('Hostile error', { maxRetries: 1 });
    await h.waitStatus(id, 'BLOCKED');
    expect(await h.rt.db.taskResults.latest(id)).toMatchObject({ result: 'FAILED', errorMessage: STORED, summary: STORED });
  });
});
