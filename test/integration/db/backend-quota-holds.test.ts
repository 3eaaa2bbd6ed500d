import path from 'node:path';
import { TaskStateMachine } from '../../../src/orchestrator/state-machine';
import { claimLaunch } from '../../../src/orchestrator/task-moves';
import { QUOTA_PAUSE_PREFIX } from '../../../src/db/repositories/scheduling';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/**
 * The scheduling queries behind quota failover, on each database: usage-limit holds grouped per
 * backend (rows from before backends count as Claude Code), agents keyed and counted by backend,
 * a project's backends and a READY task's backend as the scheduler reads them, and the claim's
 * check, which refuses only an agent whose own backend is held.
 */
describe('scheduling by backend', () => {
  let rt: TestRuntime;
  afterEach(() => rt.cleanup());

  it('holds per backend, keys agents by backend, and refuses a claim only on the held backend', async () => {
    rt = await makeTestRuntime({ AQ_AGENTS: '0' });
    const now = Date.now();
    await rt.db.projects.create({ id: 'web', name: 'web', workspace: path.join(rt.home, 'web'), maxConcurrentAgents: 5 });
    await rt.db.projects.update('web', { backends: ['acp:codex', 'claude-code'] });
    await rt.db.agents.create({ id: 'claude', name: 'Claude', type: 'claude' });
    await rt.db.agents.create({ id: 'codex', name: 'Codex', type: 'acp', backend: 'acp', profile: 'codex' });
    await rt.db.agents.create({ id: 'gemini', name: 'Gemini', type: 'acp', backend: 'acp', profile: 'gemini' });
    for (const id of ['ws-1', 'ws-2', 'ws-3']) {
      await rt.db.workspaces.create({ id, projectId: 'web', name: id, path: path.join(rt.home, id), sourceType: 'clone', repoId: null });
    }
    const paused = async (backend: string | null, resumeAt: number, reason: string) => {
      const t = await rt.db.tasks.create({ projectId: 'web', title: `on ${backend}`, description: 'd', backend });
      await rt.db.tasks.transition(t.id, ['READY'], 'PAUSED', { resumeAfter: new Date(resumeAt), pauseReason: reason });
    };
    const quota = `${QUOTA_PAUSE_PREFIX} later, when the API says it resets`;
    await paused('claude-code', now + 2 * 3600_000, quota);
    await paused(null, now + 3600_000, quota); // from before backends: ran on Claude Code
    await paused('acp:gemini', now + 3600_000, 'Rate limit with no reset time given'); // holds nothing
    await paused('acp:gemini', now - 1000, quota); // its reset has passed

    expect(await rt.db.scheduling.quotaHolds(new Date(now))).toEqual([{ backend: 'claude-code', until: new Date(now + 3600_000) }]);

    const ready = await rt.db.tasks.create({ projectId: 'web', title: 'Bound', description: 'd', backend: 'acp:codex' });
    const free = await rt.db.tasks.create({ projectId: 'web', title: 'Free', description: 'd' });
    const readRows = await rt.db.scheduling.readyTasks(10);
    expect(new Map(readRows.web.map((t) => [t.id, t.backend]))).toEqual(
      new Map([
        [ready.id, 'acp:codex'],
        [free.id, null],
      ]),
    );
    expect((await rt.db.scheduling.projects()).find((p) => p.id === 'web')?.backends).toEqual(['acp:codex', 'claude-code']);

    const machine = new TaskStateMachine(rt.db, () => undefined);
    const claim = (taskId: string, agentId: string, workspaceId: string) =>
      claimLaunch(rt.db, machine, { taskId, agentId, workspaceId, runId: `run-${agentId}` });
    expect(await claim(free.id, 'claude', 'ws-1')).toBe('quota_hold');
    expect(await claim(free.id, 'gemini', 'ws-2')).toBeNull();
    expect(await claim(ready.id, 'codex', 'ws-3')).toBeNull();

    expect((await rt.db.scheduling.idleAgents({ workerId: null })).map((a) => [a.id, a.key])).toEqual([['claude', 'claude-code']]);
    const byKey = await rt.db.scheduling.agentBackends();
    expect(byKey.sort((a, b) => a.key.localeCompare(b.key))).toEqual([
      { key: 'acp:codex', total: 1, idle: 0 },
      { key: 'acp:gemini', total: 1, idle: 0 },
      { key: 'claude-code', total: 1, idle: 1 },
    ]);
  });
});
