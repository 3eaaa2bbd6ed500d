import { gitOut } from '../../support/git-fixtures';
import { makeHarness, untilAborted, waitFor, writeIn, type Harness } from './harness';

describe('orchestrator lifecycle (agent double, real git and SQLite)', () => {
  let h: Harness;
  afterEach(() => h.cleanup());

  it('runs a READY task to COMPLETED: branch, commit, merge to origin, tokens, events, cleanup', async () => {
    h = await makeHarness();
    h.adapter.fallback = async (req) => {
      req.onProgress?.('Write · hello.txt');
      await writeIn(req, 'hello.txt', 'hi\n');
      return { summary: 'Wrote hello.txt' };
    };
    await h.start();
    const id = await h.task('Say hello');
    await h.waitStatus(id, 'COMPLETED');

    const task = await h.rt.db.tasks.get(id);
    expect(task?.branchName).toMatch(new RegExp(`^${id}/say-hello$`));
    expect(await gitOut(h.origin, 'show', 'main:hello.txt')).toBe('hi');
    expect(await gitOut(h.origin, 'log', '-1', '--format=%B', 'main')).toContain(`Task-Id: ${id}`);

    const started = h.eventsOf('task_started', id)[0];
    expect(started.payload).toMatchObject({
      title: 'Say hello',
      agent_id: 'agent-0',
      agent_name: 'Agent 0',
      branch: task?.branchName,
      workspace_path: h.workspace,
    });
    const completed = await waitFor(async () => h.eventsOf('task_completed', id)[0]);
    expect(completed.payload).toEqual({
      title: 'Say hello',
      summary: 'Wrote hello.txt',
      tokens: 128,
      cost_usd: 0.01,
      branch: task?.branchName,
      merged: true,
    });
    await waitFor(async () => h.eventsOf('task_progress', id).length > 0);
    expect(h.eventsOf('task_progress', id)[0].payload.text).toContain('Write · hello.txt');

    const result = await h.rt.db.taskResults.latest(id);
    expect(result).toMatchObject({
      result: 'COMPLETED',
      summary: 'Wrote hello.txt',
      tokensUsed: 128,
      costUsd: 0.01,
      sessionId: `s-${id}-1`,
    });
    const usage = await h.rt.db.em().getConnection().execute('select * from token_usage where task_id = ?', [id]);
    expect(usage[0]).toMatchObject({
      source: 'agent',
      input_tokens: 100,
      output_tokens: 20,
      cache_read_tokens: 5,
      cache_creation_tokens: 3,
      tokens: 128,
    });

    await waitFor(async () => (await h.rt.db.agents.get('agent-0'))?.state === 'IDLE');
    expect((await h.rt.db.workspaces.get('ws0'))?.lockedByTaskId).toBeNull();
    expect(h.adapter.calls).toHaveLength(1);
  });

  it('runs a dependency chain in order, promoting the dependant when its upstream completes', async () => {
    h = await makeHarness({ agents: 2, workspaces: 2 });
    const order: string[] = [];
    h.adapter.fallback = async (req) => {
      order.push(req.taskId);
      return { summary: `summary of ${req.taskId}` };
    };
    const a = await h.task('First');
    const b = await h.task('Second', {}, [a]);
    expect(await h.status(b)).toBe('DEFINED');
    await h.start();
    await h.waitStatus(b, 'COMPLETED');
    expect(order).toEqual([a, b]);
    // The dependant's prompt carries its upstream's summary.
    expect(h.adapter.calls[1].prompt).toContain(`summary of ${a}`);
  });

  it('retries a failing task up to max_retries, then BLOCKs it and reports the stuck chain', async () => {
    h = await makeHarness();
    h.adapter.fallback = async (req) =>
      req.taskId.length ? { status: 'failed', errorMessage: 'Error: permission denied opening /etc/x', summary: '' } : {};
    await h.start();
    const a = await h.task('Doomed', { maxRetries: 2 });
    const b = await h.task('Waits', {}, [a]);
    const c = await h.task('Waits more', {}, [b]);
    await h.waitStatus(a, 'BLOCKED');
    await waitFor(async () => h.eventsOf('chain_stuck', a).length > 0);
    expect(h.adapter.attempts.get(a)).toBe(2);
    const failed = h.eventsOf('task_failed', a).map((e) => e.payload);
    expect(failed[0]).toMatchObject({ title: 'Doomed', error_type: 'Permission denied', retry_count: 1, max_retries: 2, will_retry: true });
    expect(failed[0].suggested_fix).toEqual(expect.any(String));
    expect(failed[1]).toMatchObject({ retry_count: 2, will_retry: false });
    expect(h.eventsOf('task_retrying', a)).toHaveLength(1);
    expect(h.eventsOf('task_blocked', a)[0].payload.reason).toContain('Permission denied');
    expect(h.eventsOf('chain_stuck', a)[0].payload).toEqual({
      title: 'Doomed',
      stuck_downstream: [
        { id: b, title: 'Waits' },
        { id: c, title: 'Waits more' },
      ],
    });
    expect((await h.rt.db.tasks.get(a))?.retryCount).toBe(2);
  });

  it('stop_task aborts the live run; the task is BLOCKED and the agent and workspace are freed', async () => {
    h = await makeHarness();
    let aborted = false;
    h.adapter.fallback = async (req) => {
      await untilAborted(req);
      aborted = true;
      return { status: 'aborted', summary: '' };
    };
    await h.start();
    const id = await h.task('Long job');
    await h.waitStatus(id, 'IN_PROGRESS');
    await waitFor(async () => h.adapter.calls.length === 1);
    expect(await h.rt.exec('stop_task', { task_id: id })).toEqual({ stopped: id });
    expect(aborted).toBe(true);
    expect(await h.status(id)).toBe('BLOCKED');
    await waitFor(async () => (await h.rt.db.agents.get('agent-0'))?.state === 'IDLE');
    expect((await h.rt.db.workspaces.get('ws0'))?.lockedByTaskId).toBeNull();
    expect((await h.rt.db.taskResults.latest(id))?.result).toBe('STOPPED');
    expect(h.adapter.calls).toHaveLength(1);
  });
});
