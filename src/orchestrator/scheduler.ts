/**
 * The scheduler: a pure, deterministic function from a snapshot of the queue to assignments.
 * No I/O, no clock — the snapshot (built in SQL by the scheduling repository) carries it all.
 */
import { backendKeyServes } from '../agents/backends';

export interface SchedulerProject {
  id: string;
  status: 'ACTIVE' | 'PAUSED';
  creditWeight: number;
  maxConcurrentAgents: number;
  /** Token budget over the rolling window; null means unlimited. */
  budgetLimit: number | null;
  /** The backends its tasks may run on, in order of preference; null or empty allows any. */
  backends?: string[] | null;
}

export interface SchedulerTask {
  id: string;
  projectId: string;
  priority: number;
  /** Milliseconds since the epoch: older first among equal priorities. */
  createdAt: number;
  preferredWorkspaceId: string | null;
  /** The backend it must run on (asked for, or fixed by its first run); null: any the project allows. */
  backend?: string | null;
}

/** An idle agent and its backend key (`claude-code` when absent, or `acp:<profile>`). */
export interface SchedulerAgent {
  id: string;
  backend?: string;
}

export interface SchedulerSnapshot {
  projects: SchedulerProject[];
  /** Per project, the first READY tasks in queue order (priority, then age). */
  readyTasks: Record<string, SchedulerTask[]>;
  /** Idle agents in the order they take work; agents of a backend at its usage limit are left out. */
  idleAgents: SchedulerAgent[];
  /** Backends at a usage limit, with the reset (ms since the epoch): only to say why a task went elsewhere. */
  heldBackends?: Record<string, number>;
  /** Tasks ASSIGNED or IN_PROGRESS per project. */
  activeAgentCounts: Record<string, number>;
  /** Tokens (cache included) per project over the rolling window. */
  projectTokenUsage: Record<string, number>;
  /** Tasks completed per project over the same window (drives the min-task guarantee). */
  tasksCompletedInWindow: Record<string, number>;
  /** Unlocked workspace ids per project, in preference order. */
  availableWorkspaces: Record<string, string[]>;
  /** Workspaces that are locked right now (a task preferring one of these waits). */
  lockedWorkspaceIds: string[];
  globalPaused: boolean;
  /** A global token budget over the window; null means none. */
  globalBudget: { limit: number; used: number } | null;
}

export interface Assignment {
  agentId: string;
  taskId: string;
  projectId: string;
  workspaceId: string;
  /**
   * Set when the task went to this agent because a backend it would have run on (earlier in the
   * project's preference, or any when it has none) is at its usage limit until `until` (ms).
   */
  failover?: { backend: string; until: number };
}

/** Queue order: lower priority number first, then older, then id (for determinism). */
export function compareTasks(a: SchedulerTask, b: SchedulerTask): number {
  return a.priority - b.priority || a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

interface ProjectState {
  project: SchedulerProject;
  tasks: SchedulerTask[];
  active: number;
  usage: number;
  completed: number;
  workspaces: string[];
}

/**
 * One scheduling round. For every idle agent, the projects that can take work are ordered by
 * (min-task guarantee, fair-share deficit, load per weight, id) and the first one gets the
 * agent with its best task whose workspace is free. A project is under its guarantee when it
 * completed nothing in the window and nothing of it is running (counting this round), so every
 * starving project gets one agent before the weights share out the rest.
 * Deficit = load share − weight share (load = window tokens + running tasks at the window's
 * average tokens per task): the more negative, the more under-served.
 */
export function schedule(snapshot: SchedulerSnapshot): Assignment[] {
  if (snapshot.globalPaused) return [];
  if (snapshot.globalBudget && snapshot.globalBudget.used >= snapshot.globalBudget.limit) return [];
  if (snapshot.idleAgents.length === 0) return [];

  const locked = new Set(snapshot.lockedWorkspaceIds);
  const states: ProjectState[] = [];
  for (const project of snapshot.projects) {
    if (project.status !== 'ACTIVE') continue;
    const tasks = [...(snapshot.readyTasks[project.id] ?? [])].sort(compareTasks);
    if (tasks.length === 0) continue;
    const usage = snapshot.projectTokenUsage[project.id] ?? 0;
    if (project.budgetLimit !== null && project.budgetLimit !== undefined && usage >= project.budgetLimit) continue;
    states.push({
      project,
      tasks,
      active: snapshot.activeAgentCounts[project.id] ?? 0,
      usage,
      completed: snapshot.tasksCompletedInWindow[project.id] ?? 0,
      workspaces: [...(snapshot.availableWorkspaces[project.id] ?? [])],
    });
  }
  if (states.length === 0) return [];

  const totalWeight = states.reduce((sum, s) => sum + Math.max(0, s.project.creditWeight), 0) || 1;
  const totalUsage = states.reduce((sum, s) => sum + s.usage, 0);
  const totalCompleted = states.reduce((sum, s) => sum + s.completed, 0);
  // Running work will use tokens too: count each running task at the window's average cost
  // per task, so one round does not hand every agent to the same project.
  const perTask = totalUsage > 0 ? totalUsage / Math.max(1, totalCompleted) : 1;
  const load = (s: ProjectState) => s.usage + s.active * perTask;
  const deficit = (s: ProjectState, totalLoad: number) =>
    (totalLoad > 0 ? load(s) / totalLoad : 0) - Math.max(0, s.project.creditWeight) / totalWeight;
  const loadPerWeight = (s: ProjectState) => s.active / Math.max(s.project.creditWeight, 1e-9);
  const guaranteed = (s: ProjectState) => s.completed === 0 && s.active === 0;

  const usedWorkspaces = new Set<string>();
  const assignments: Assignment[] = [];
  const idle = [...snapshot.idleAgents];

  // One task per round, to the project first in line that has a task some idle agent may run,
  // given to the agent of that project's most preferred backend.
  while (idle.length > 0) {
    const totalLoad = states.reduce((sum, s) => sum + load(s), 0);
    const candidates = states
      .filter((s) => s.active < s.project.maxConcurrentAgents && s.tasks.length > 0)
      .sort(
        (a, b) =>
          Number(guaranteed(b)) - Number(guaranteed(a)) ||
          deficit(a, totalLoad) - deficit(b, totalLoad) ||
          loadPerWeight(a) - loadPerWeight(b) ||
          (a.project.id < b.project.id ? -1 : 1),
      );
    let placed = false;
    for (const state of candidates) {
      const free = state.workspaces.filter((w) => !usedWorkspaces.has(w));
      if (free.length === 0) continue;
      const allowed = state.project.backends?.length ? state.project.backends : null;
      const runnable = (task: SchedulerTask) => idle.some((a) => mayRun(a, task, allowed));
      const pick = pickTask(state.tasks, free, locked, usedWorkspaces, runnable);
      if (!pick) continue;
      const agent = preferredAgent(idle, pick.task, allowed);
      idle.splice(idle.indexOf(agent), 1);
      state.tasks.splice(pick.index, 1);
      state.active += 1;
      usedWorkspaces.add(pick.workspaceId);
      const failover = passedOver(snapshot.heldBackends, agent, pick.task, allowed);
      assignments.push({
        agentId: agent.id,
        taskId: pick.task.id,
        projectId: state.project.id,
        workspaceId: pick.workspaceId,
        ...(failover && { failover }),
      });
      placed = true;
      break;
    }
    if (!placed) break; // nothing any project can run now with the agents left
  }
  return assignments;
}

function keyOf(agent: SchedulerAgent): string {
  return agent.backend ?? 'claude-code';
}

/** The position of the first of `allowed` an agent serves (0 when any backend is allowed), or -1. */
function rank(agentKey: string, allowed: string[] | null): number {
  return allowed ? allowed.findIndex((wanted) => backendKeyServes(agentKey, wanted)) : 0;
}

/** Whether the agent's backend is allowed by the project and is the one the task is bound to. */
function mayRun(agent: SchedulerAgent, task: SchedulerTask, allowed: string[] | null): boolean {
  const key = keyOf(agent);
  return rank(key, allowed) >= 0 && (!task.backend || backendKeyServes(key, task.backend));
}

/** Of the idle agents that may run the task, the first of the project's most preferred backend. */
function preferredAgent(idle: SchedulerAgent[], task: SchedulerTask, allowed: string[] | null): SchedulerAgent {
  let best: SchedulerAgent | null = null;
  for (const agent of idle) {
    if (!mayRun(agent, task, allowed)) continue;
    if (!best || rank(keyOf(agent), allowed) < rank(keyOf(best), allowed)) best = agent;
  }
  return best!;
}

/** The held backend the task would have run on before the chosen agent's, if any. */
function passedOver(
  held: Record<string, number> | undefined,
  agent: SchedulerAgent,
  task: SchedulerTask,
  allowed: string[] | null,
): { backend: string; until: number } | undefined {
  if (!held) return undefined;
  const chosen = rank(keyOf(agent), allowed);
  const entries = Object.entries(held)
    .filter(([key]) => key !== keyOf(agent) && !(task.backend && !backendKeyServes(key, task.backend)))
    .map(([key, until]) => ({ key, until, rank: rank(key, allowed) }))
    .filter((h) => h.rank >= 0 && (allowed === null || h.rank <= chosen))
    .sort((a, b) => a.rank - b.rank || a.until - b.until);
  return entries[0] ? { backend: entries[0].key, until: entries[0].until } : undefined;
}

/**
 * The first task (in queue order) that can run on a free workspace. A task preferring a
 * workspace gets exactly that one, and waits while it is locked or taken this round; a
 * preference for a workspace that no longer exists is ignored.
 */
function pickTask(
  tasks: SchedulerTask[],
  free: string[],
  locked: Set<string>,
  usedThisRound: Set<string>,
  runnable: (task: SchedulerTask) => boolean,
): { index: number; task: SchedulerTask; workspaceId: string } | null {
  const preferredElsewhere = new Set(tasks.map((t) => t.preferredWorkspaceId).filter((w): w is string => !!w));
  for (let index = 0; index < tasks.length; index++) {
    const task = tasks[index];
    if (!runnable(task)) continue;
    const preferred = task.preferredWorkspaceId;
    if (preferred) {
      if (free.includes(preferred)) return { index, task, workspaceId: preferred };
      if (locked.has(preferred) || usedThisRound.has(preferred)) continue;
    }
    // Leave workspaces some queued task is pinned to for that task, when there is a choice.
    const workspaceId = free.find((w) => !preferredElsewhere.has(w)) ?? free[0];
    return { index, task, workspaceId };
  }
  return null;
}
