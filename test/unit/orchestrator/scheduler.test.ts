import { schedule, type SchedulerProject, type SchedulerSnapshot, type SchedulerTask } from '../../../src/orchestrator/scheduler';

function project(id: string, over: Partial<SchedulerProject> = {}): SchedulerProject {
  return { id, status: 'ACTIVE', creditWeight: 1, maxConcurrentAgents: 2, budgetLimit: null, ...over };
}

function tasks(projectId: string, n: number, over: Partial<SchedulerTask> = {}): SchedulerTask[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${projectId}-t${i}`,
    projectId,
    priority: 100,
    createdAt: 1000 + i,
    preferredWorkspaceId: null,
    ...over,
  }));
}

function snapshot(over: Partial<SchedulerSnapshot> = {}): SchedulerSnapshot {
  return {
    projects: [project('a')],
    readyTasks: { a: tasks('a', 3) },
    idleAgents: [{ id: 'ag1' }],
    activeAgentCounts: {},
    projectTokenUsage: {},
    tasksCompletedInWindow: {},
    availableWorkspaces: { a: ['wa1', 'wa2', 'wa3'] },
    lockedWorkspaceIds: [],
    globalPaused: false,
    globalBudget: null,
    ...over,
  };
}

describe('scheduler', () => {
  it('assigns the highest-priority, then oldest, task to an idle agent', () => {
    const ready = [
      { id: 'late', projectId: 'a', priority: 50, createdAt: 9, preferredWorkspaceId: null },
      { id: 'urgent-new', projectId: 'a', priority: 10, createdAt: 8, preferredWorkspaceId: null },
      { id: 'urgent-old', projectId: 'a', priority: 10, createdAt: 1, preferredWorkspaceId: null },
    ];
    expect(schedule(snapshot({ readyTasks: { a: ready } }))).toEqual([
      { agentId: 'ag1', taskId: 'urgent-old', projectId: 'a', workspaceId: 'wa1' },
    ]);
  });

  it('returns nothing with no idle agents, no ready tasks, a global pause or a spent global budget', () => {
    expect(schedule(snapshot({ idleAgents: [] }))).toEqual([]);
    expect(schedule(snapshot({ readyTasks: {} }))).toEqual([]);
    expect(schedule(snapshot({ globalPaused: true }))).toEqual([]);
    expect(schedule(snapshot({ globalBudget: { limit: 10, used: 10 } }))).toEqual([]);
  });

  it('skips paused projects and projects over their budget', () => {
    const s = snapshot({
      projects: [project('a', { status: 'PAUSED' }), project('b', { budgetLimit: 100 }), project('c')],
      readyTasks: { a: tasks('a', 1), b: tasks('b', 1), c: tasks('c', 1) },
      idleAgents: [{ id: 'ag1' }, { id: 'ag2' }, { id: 'ag3' }],
      projectTokenUsage: { b: 150 },
      availableWorkspaces: { a: ['wa'], b: ['wb'], c: ['wc'] },
    });
    expect(schedule(s).map((x) => x.projectId)).toEqual(['c']);
  });

  it('respects max_concurrent_agents, counting agents already at work', () => {
    const s = snapshot({
      projects: [project('a', { maxConcurrentAgents: 2 })],
      readyTasks: { a: tasks('a', 5) },
      idleAgents: [{ id: 'ag1' }, { id: 'ag2' }, { id: 'ag3' }],
      activeAgentCounts: { a: 1 },
      tasksCompletedInWindow: { a: 1 },
    });
    expect(schedule(s)).toHaveLength(1);
  });

  it('never puts two tasks on one workspace in a round, and waits when none is free', () => {
    const s = snapshot({ idleAgents: [{ id: 'ag1' }, { id: 'ag2' }], availableWorkspaces: { a: ['only'] } });
    const out = schedule(s);
    expect(out).toHaveLength(1);
    expect(out[0].workspaceId).toBe('only');
    expect(schedule(snapshot({ availableWorkspaces: { a: [] } }))).toEqual([]);
  });

  it('gives a task its preferred workspace, and holds it while that workspace is locked', () => {
    const pinned = tasks('a', 1, { id: 'pinned', preferredWorkspaceId: 'wa2', priority: 1 } as Partial<SchedulerTask>);
    const s = snapshot({ readyTasks: { a: [...pinned, ...tasks('a', 1)] } });
    expect(schedule(s)[0]).toMatchObject({ taskId: 'pinned', workspaceId: 'wa2' });
    const locked = snapshot({
      readyTasks: { a: [...pinned, ...tasks('a', 1)] },
      availableWorkspaces: { a: ['wa1'] },
      lockedWorkspaceIds: ['wa2'],
    });
    expect(schedule(locked)[0]).toMatchObject({ taskId: 'a-t0', workspaceId: 'wa1' });
    // A preference for a workspace that no longer exists is ignored.
    const gone = snapshot({ readyTasks: { a: tasks('a', 1, { preferredWorkspaceId: 'deleted' }) }, availableWorkspaces: { a: ['wa1'] } });
    expect(schedule(gone)[0]).toMatchObject({ workspaceId: 'wa1' });
  });

  it('keeps a workspace that a queued task is pinned to for that task when another is free', () => {
    const s = snapshot({
      readyTasks: {
        a: [
          { id: 'free', projectId: 'a', priority: 1, createdAt: 1, preferredWorkspaceId: null },
          { id: 'pinned', projectId: 'a', priority: 2, createdAt: 2, preferredWorkspaceId: 'wa1' },
        ],
      },
      idleAgents: [{ id: 'ag1' }, { id: 'ag2' }],
      availableWorkspaces: { a: ['wa1', 'wa2'] },
    });
    expect(schedule(s)).toEqual([
      { agentId: 'ag1', taskId: 'free', projectId: 'a', workspaceId: 'wa2' },
      { agentId: 'ag2', taskId: 'pinned', projectId: 'a', workspaceId: 'wa1' },
    ]);
  });

  it('prefers the under-served project by credit-weight deficit', () => {
    const s = snapshot({
      projects: [project('a', { creditWeight: 1 }), project('b', { creditWeight: 3 })],
      readyTasks: { a: tasks('a', 3), b: tasks('b', 3) },
      projectTokenUsage: { a: 500, b: 500 }, // a uses 50% with a 25% share; b 50% of a 75% share
      tasksCompletedInWindow: { a: 2, b: 2 },
      availableWorkspaces: { a: ['wa'], b: ['wb'] },
    });
    expect(schedule(s)[0].projectId).toBe('b');
    const flipped = { ...s, projectTokenUsage: { a: 100, b: 900 } }; // a 10% of 25%, b 90% of 75%
    expect(schedule(flipped)[0].projectId).toBe('a');
  });

  it('shares a round by weight when nobody used tokens yet', () => {
    const s = snapshot({
      projects: [project('a', { creditWeight: 1, maxConcurrentAgents: 10 }), project('b', { creditWeight: 2, maxConcurrentAgents: 10 })],
      readyTasks: { a: tasks('a', 10), b: tasks('b', 10) },
      idleAgents: Array.from({ length: 6 }, (_, i) => ({ id: `ag${i}` })),
      tasksCompletedInWindow: { a: 1, b: 1 },
      availableWorkspaces: { a: ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'], b: ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'] },
    });
    const counts: Record<string, number> = {};
    for (const x of schedule(s)) counts[x.projectId] = (counts[x.projectId] ?? 0) + 1;
    expect(counts).toEqual({ a: 2, b: 4 });
  });

  it('min-task guarantee: a project that completed nothing in the window goes first, whatever its deficit', () => {
    const s = snapshot({
      projects: [project('busy', { creditWeight: 10 }), project('starved', { creditWeight: 0.1 })],
      readyTasks: { busy: tasks('busy', 3), starved: tasks('starved', 3) },
      idleAgents: [{ id: 'ag1' }, { id: 'ag2' }],
      projectTokenUsage: { busy: 10, starved: 1000 },
      tasksCompletedInWindow: { busy: 4 },
      availableWorkspaces: { busy: ['wb'], starved: ['ws'] },
    });
    expect(schedule(s).map((x) => x.projectId)).toEqual(['starved', 'busy']);
    // With the counts passed as the original did ({}), everyone would tie on the guarantee:
    const dead = { ...s, tasksCompletedInWindow: {} };
    expect(schedule(dead)[0].projectId).toBe('busy');
  });

  it('is deterministic', () => {
    const s = snapshot({
      projects: [project('b'), project('a')],
      readyTasks: { a: tasks('a', 2), b: tasks('b', 2) },
      availableWorkspaces: { a: ['wa'], b: ['wb'] },
      idleAgents: [{ id: 'x' }, { id: 'y' }],
    });
    expect(schedule(s)).toEqual(schedule(JSON.parse(JSON.stringify(s))));
  });

  describe('backends', () => {
    const claude = { id: 'claude', backend: 'claude-code' };
    const codex = { id: 'codex', backend: 'acp:codex' };
    const gemini = { id: 'gemini', backend: 'acp:gemini' };

    it("gives a task bound to a backend only to that backend's agents, even when another is first in line", () => {
      const s = snapshot({
        readyTasks: { a: [...tasks('a', 1, { id: 'bound', backend: 'acp:codex' })] },
        idleAgents: [claude, codex],
      });
      expect(schedule(s)).toEqual([{ agentId: 'codex', taskId: 'bound', projectId: 'a', workspaceId: 'wa1' }]);
      // With no agent of its backend it waits, and the queue behind it still runs.
      const waits = snapshot({
        readyTasks: { a: [...tasks('a', 1, { id: 'bound', backend: 'acp:codex', priority: 1 }), ...tasks('a', 1, { id: 'free' })] },
        idleAgents: [claude],
      });
      expect(schedule(waits)).toEqual([{ agentId: 'claude', taskId: 'free', projectId: 'a', workspaceId: 'wa1' }]);
      // `acp` asks for any ACP agent.
      const anyAcp = snapshot({ readyTasks: { a: tasks('a', 1, { backend: 'acp' }) }, idleAgents: [claude, gemini] });
      expect(schedule(anyAcp).map((x) => x.agentId)).toEqual(['gemini']);
    });

    it("uses only agents of the project's backends, in its order of preference", () => {
      const s = snapshot({
        projects: [project('a', { backends: ['acp:gemini', 'claude-code'], maxConcurrentAgents: 5 })],
        readyTasks: { a: tasks('a', 3) },
        idleAgents: [codex, claude, gemini],
      });
      expect(schedule(s).map((x) => [x.taskId, x.agentId])).toEqual([
        ['a-t0', 'gemini'],
        ['a-t1', 'claude'],
      ]);
      // Another project with no list takes the agent this one may not use.
      const two = snapshot({
        projects: [project('a', { backends: ['claude-code'] }), project('b')],
        readyTasks: { a: tasks('a', 1), b: tasks('b', 1) },
        availableWorkspaces: { a: ['wa'], b: ['wb'] },
        idleAgents: [codex, claude],
      });
      expect(schedule(two).map((x) => [x.projectId, x.agentId])).toEqual([
        ['a', 'claude'],
        ['b', 'codex'],
      ]);
    });

    it('marks a task that went elsewhere because the backend it would have used is at its limit', () => {
      const s = snapshot({
        projects: [project('a', { backends: ['claude-code', 'acp'] })],
        readyTasks: { a: tasks('a', 1) },
        idleAgents: [codex],
        heldBackends: { 'claude-code': 5000 },
      });
      expect(schedule(s)).toEqual([
        { agentId: 'codex', taskId: 'a-t0', projectId: 'a', workspaceId: 'wa1', failover: { backend: 'claude-code', until: 5000 } },
      ]);
      // A held backend after the one that took it, or one the task may not use, is no failover.
      const preferred = snapshot({
        projects: [project('a', { backends: ['acp', 'claude-code'] })],
        idleAgents: [codex],
        heldBackends: { 'claude-code': 5000 },
      });
      expect(schedule(preferred)[0].failover).toBeUndefined();
      const bound = snapshot({
        readyTasks: { a: tasks('a', 1, { backend: 'acp' }) },
        idleAgents: [codex],
        heldBackends: { 'claude-code': 5000 },
      });
      expect(schedule(bound)[0].failover).toBeUndefined();
    });
  });
});
