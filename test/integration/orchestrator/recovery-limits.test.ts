import { makeHarness, waitFor, type Harness } from './harness';

describe('crash recovery, rate limits and the daemon lease', () => {
  let h: Harness;
  afterEach(() => h.cleanup());

  it('a usage-limit message pauses the task until the named reset, then the cycle resumes it', async () => {
    h = await makeHarness();
    h.adapter.fallback = async (_req, attempt) =>
      attempt === 1 ? { status: 'rate_limited', errorMessage: "You've hit your limit · resets 3pm (UTC)", summary: '' } : { summary: 'ok' };
    await h.start();
    const id = await h.task('Limited');
    await h.waitStatus(id, 'PAUSED');
    const paused = await h.rt.db.tasks.get(id);
    const resume = paused!.resumeAfter!;
    expect(resume.getUTCHours()).toBe(15);
    expect(resume.getUTCMinutes()).toBe(0);
    expect(resume.getTime()).toBeGreaterThan(Date.now());
    expect(resume.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    const event = await waitFor(async () => h.eventsOf('task_paused', id)[0]);
    expect(event.payload).toMatchObject({ title: 'Limited', resume_after: resume.toISOString() });
    expect(String(event.payload.reason)).toContain('hit your limit');
    expect((await h.rt.db.taskResults.latest(id))?.result).toBe('PAUSED_RATE_LIMIT');
    expect(paused!.retryCount).toBe(0);

    // Time passes: the cycle resumes it and it runs again.
    await h.rt.db.tasks.update(id, { resumeAfter: new Date(Date.now() - 1000) });
    h.rt.daemon()!.kick();
    await h.waitStatus(id, 'COMPLETED');
    expect(h.eventsOf('task_resumed', id)).toHaveLength(1);
  });

  it('a 429 without a reset time pauses for the bounded backoff; a resetsAt from the stream wins', async () => {
    h = await makeHarness({ agents: 2, workspaces: 2 });
    const resetsAt = new Date(Date.now() + 3_600_000);
    h.adapter.fallback = async (req) =>
      req.prompt.includes('With reset')
        ? { status: 'rate_limited', errorMessage: 'API Error: 429 rate_limit_error', resetsAt }
        : { status: 'rate_limited', errorMessage: 'API Error: 429 rate_limit_error' };
    await h.start({ rateLimitBackoffMs: 90_000 });
    const plain = await h.task('Plain 429');
    const withReset = await h.task('With reset');
    const before = Date.now();
    await h.waitStatus(plain, 'PAUSED');
    await h.waitStatus(withReset, 'PAUSED');
    const wait = (await h.rt.db.tasks.get(plain))!.resumeAfter!.getTime() - before;
    expect(wait).toBeGreaterThan(80_000);
    expect(wait).toBeLessThan(100_000);
    expect((await h.rt.db.tasks.get(withReset))!.resumeAfter!.getTime()).toBe(resetsAt.getTime());
  });
});
