import path from 'node:path';
import { AcpAdapter } from '../../../src/agents/acp';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { ManualClock } from '../../../src/util/clock';
import { scriptedProfile } from '../../support/acp/scripted-profile';
import { gitOut } from '../../support/git-fixtures';
import { makeHarness, waitFor, type Harness } from './harness';

jest.setTimeout(90_000);

/**
 * Quota failover through the real orchestrator, database and git, with a Claude agent (the
 * scripted adapter) and an ACP agent (the scripted ACP agent over stdio, in its sandbox): a usage
 * limit on one backend holds only that backend's agents, the next task goes to the other backend
 * and its thread says why, and a task keeps its backend for its follow-ups.
 */
describe('a usage limit on one backend sends the next task to another', () => {
  let h: Harness;
  let clock: ManualClock;
  afterEach(() => h.cleanup());

  const startedBy = (id: string) => h.eventsOf('task_started', id).map((e) => e.agentId);
  const cycle = () => h.rt.daemon()!.runCycle();

  it('holds Claude until its reset, runs the next task on ACP, and keeps each task on its backend', async () => {
    h = await makeHarness({ agents: 1, workspaces: 2 });
    clock = new ManualClock();
    await h.rt.db.agents.create({ id: 'acp-1', name: 'ACP <b>&one', type: 'acp', backend: 'acp', profile: 'scripted' });
    const acp = new AcpAdapter({
      profiles: [scriptedProfile(path.join(h.rt.home, 'acp-state'))],
      hiddenPaths: [h.rt.config.databasePath],
      tempRoot: path.join(h.rt.home, 'agent-tmp'),
    });
    await h.rt.exec('edit_project', { project_id: 'proj', backends: ['claude-code', 'acp'] });
    const reset = new Date(clock.now().getTime() + 2 * 3600_000);
    h.adapter.fallback = async (req, attempt) =>
      req.prompt.includes('Limited') && attempt === 1
        ? { status: 'rate_limited', errorMessage: "You've hit your limit", resetsAt: reset, summary: '' }
        : {};
    await h.start({ adapters: { claude: h.adapter, acp }, git: new GitManagerTaskGit(new GitManager()), clock });

    // Claude is preferred: the first task runs there and meets the limit.
    const limited = await h.task('Limited on Claude');
    await h.waitStatus(limited, 'PAUSED');
    expect(startedBy(limited)).toEqual(['agent-0']);
    expect((await h.rt.db.tasks.get(limited))?.backend).toBe('claude-code');

    // The Claude agent is idle but held: the next task goes to the ACP agent, and says why.
    const next = await h.task('Goes to ACP', { description: 'acp:write next.txt from ACP' });
    await cycle();
    await h.waitStatus(next, 'COMPLETED');
    expect(startedBy(next)).toEqual(['acp-1']);
    expect(await gitOut(h.origin, 'show', 'main:next.txt')).toBe('from ACP');
    expect((await h.rt.db.tasks.get(next))?.backend).toBe('acp:scripted');
    const [failover] = h.eventsOf('task_failover', next);
    expect(failover.payload).toEqual({
      title: 'Goes to ACP',
      agent_id: 'acp-1',
      agent_name: 'ACP <b>&one',
      backend: 'acp:scripted',
      limited_backend: 'claude-code',
      until: reset.toISOString(),
      reason: `ACP <b>&one (acp:scripted) took it: claude-code is at its usage limit until ${reset.toISOString()}.`,
    });

    // A task bound to the held backend waits for the reset, and says so.
    const bound = await h.task('Bound to Claude', { backend: 'claude-code' });
    await cycle();
    expect(await h.rt.exec('get_task', { task_id: bound })).toMatchObject({
      status: 'READY',
      waiting_code: 'waiting_quota',
      waiting_reason: `The agents' usage limit is reached on claude-code; new tasks start after it resets at ${reset.toISOString()}.`,
      waiting_until: reset.toISOString(),
    });
    expect(h.adapter.calls.map((c) => c.taskId)).toEqual([limited]);

    // After the reset both Claude tasks run on the Claude agent, never on the idle ACP one.
    clock.advance(2 * 3600_000 + 1000);
    await cycle();
    await h.waitStatus(limited, 'COMPLETED');
    await h.waitStatus(bound, 'COMPLETED');
    expect(startedBy(limited)).toEqual(['agent-0', 'agent-0']);
    expect(startedBy(bound)).toEqual(['agent-0']);
    expect(h.eventsOf('task_failover')).toHaveLength(1);

    // A follow-up resumes the ACP session on the ACP agent, though Claude is preferred and free.
    await h.rt.exec('message_task', { task_id: next, text: 'acp:write again.txt again' });
    await waitFor(async () => h.eventsOf('task_completed', next).length === 2, 60_000, 'the follow-up to complete');
    expect(startedBy(next)).toEqual(['acp-1', 'acp-1']);
    expect((await h.rt.db.tasks.get(next))?.backend).toBe('acp:scripted');
  });

  it('a usage limit reported by the ACP agent sends the next task to Claude', async () => {
    h = await makeHarness({ agents: 1, workspaces: 2 });
    clock = new ManualClock();
    await h.rt.db.agents.create({ id: 'acp-1', name: 'ACP 1', type: 'acp', backend: 'acp', profile: 'scripted' });
    const acp = new AcpAdapter({
      profiles: [scriptedProfile(path.join(h.rt.home, 'acp-state'))],
      hiddenPaths: [h.rt.config.databasePath],
      tempRoot: path.join(h.rt.home, 'agent-tmp'),
    });
    await h.rt.exec('edit_project', { project_id: 'proj', backends: ['acp', 'claude-code'] });
    await h.start({ adapters: { claude: h.adapter, acp }, git: new GitManagerTaskGit(new GitManager()), clock });
    const reset = new Date(Math.ceil(clock.now().getTime() / 1000) * 1000 + 3600_000);
    const limited = await h.task('Limited on ACP', { description: `acp:limit ${reset.toISOString()}` });
    await h.waitStatus(limited, 'PAUSED');
    expect(startedBy(limited)).toEqual(['acp-1']);

    const next = await h.task('Goes to Claude');
    await cycle();
    await h.waitStatus(next, 'COMPLETED');
    expect(startedBy(next)).toEqual(['agent-0']);
    expect(h.eventsOf('task_failover', next)[0].payload).toMatchObject({
      agent_id: 'agent-0',
      backend: 'claude-code',
      limited_backend: 'acp:scripted',
      until: reset.toISOString(),
    });
  });

  it('says when no agent runs on a backend the project allows, or the one a task is bound to', async () => {
    h = await makeHarness({ agents: 1 });
    await h.rt.db.projects.update('proj', { backends: ['acp:codex'] });
    await h.start({ clock: new ManualClock() });
    const id = await h.task('Needs Codex');
    await cycle();
    expect(await h.rt.exec('get_task', { task_id: id })).toMatchObject({
      status: 'READY',
      waiting_code: 'no_agent',
      waiting_reason:
        "No agent runs on the backends project 'proj' allows (acp:codex): add one with create_agent backend=… (list_agent_profiles shows the ACP profiles), or change the project's backends with edit_project.",
    });
    await h.rt.db.projects.update('proj', { backends: null });
    const bound = await h.task('Bound to Gemini', { backend: 'acp:gemini' });
    await cycle();
    await h.waitStatus(id, 'COMPLETED');
    expect(await h.rt.exec('get_task', { task_id: bound })).toMatchObject({
      status: 'READY',
      waiting_code: 'no_agent',
      waiting_reason: expect.stringMatching(/^No agent runs on backend acp:gemini, which the task runs on: add one with create_agent/),
    });
    expect(h.adapter.calls.map((c) => c.taskId)).toEqual([id]);
  });
});
