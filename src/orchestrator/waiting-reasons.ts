import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Database } from '../db/database';
import type { QuotaHold, SchedulingProjectRow } from '../db/repositories/scheduling';
import { backendKeyServes } from '../agents/backends';
import { FOLLOW_UP_WORKSPACE_WAIT_MS } from './follow-up-workspace';
import type { TaskRecord } from '../db/repositories/tasks';
import { cloneSource, defaultRepo, PROVISIONING_FAILURES_KEY, type ProvisioningFailures } from './workspace-provisioning';
import { overBudgets } from './budgets';
import type { RepoRecord } from '../db/repositories/repos';
import { overlapHold, overlapHoldReason } from './overlap-policy';
import { settleAll } from '../util/settle-all';

/*
 * Why a task that could run is not running, in words for people. Worked out per project from
 * small tables (projects, agents, workspaces, the per-status counts, system_state), never by
 * scanning tasks, so get_status costs the same at 100 or 100k tasks. The checks follow the
 * scheduler's own order of refusals (cycle.ts, scheduler.ts): the first that applies is the reason.
 */

export type WaitingCode =
  | 'no_daemon'
  | 'scheduling_paused'
  | 'waiting_quota'
  | 'project_paused'
  | 'over_budget'
  | 'no_agent'
  | 'slots_busy'
  | 'no_workspace'
  | 'workspace_failed'
  | 'workspaces_busy'
  | 'workspace_pinned'
  | 'agents_busy'
  | 'waiting_dependencies'
  | 'overlap_serialized'
  | 'starting';

export interface WaitingReason {
  code: WaitingCode;
  /** One sentence: what holds the task and what would let it start. */
  reason: string;
  /** When the wait ends by itself (ISO 8601), for quota waits. */
  until?: string;
}

export interface SchedulingState {
  /** Whether a daemon (this process or another) holds the scheduling lease. */
  daemonRunning: boolean;
  /** orchestrator_control pause. */
  paused: boolean;
  now: Date;
  /** The scheduler's rolling window, for budgets. */
  windowMs?: number;
}

interface Context {
  state: SchedulingState;
  projects: Map<string, SchedulingProjectRow>;
  /** Agents per backend key, and how many of them are idle. */
  agents: Array<{ key: string; total: number; idle: number }>;
  active: Record<string, number>;
  workspaces: { available: Record<string, string[]>; total: Record<string, number> };
  holds: QuotaHold[];
  tokens: Record<string, number>;
  failures: ProvisioningFailures;
  /** Why each project asked about is over a set_budget budget (its own or the global one), when it is. */
  spent: Map<string, string>;
  /** The repositories of the projects asked about, by project: read once, when a project needs them. */
  repos: () => Promise<Map<string, RepoRecord[]>>;
}

async function loadContext(db: Database, state: SchedulingState, projectIds: string[]): Promise<Context> {
  const {
    projects,
    agents,
    active,
    workspaces,
    holds,
    budgets,
    state: rows,
  } = await db.scheduling.waitingContext(state.now, [PROVISIONING_FAILURES_KEY]);
  const failures = (rows.get(PROVISIONING_FAILURES_KEY) ?? {}) as ProvisioningFailures;
  const byId = new Map(projects.map((p) => [p.id, p]));
  let repos: Promise<Map<string, RepoRecord[]>> | undefined;
  const reposOf = () =>
    (repos ??= db.repos.listOfProjects(projectIds).then((all) => {
      const byProject = new Map<string, RepoRecord[]>();
      for (const r of all) byProject.set(r.projectId, [...(byProject.get(r.projectId) ?? []), r]);
      return byProject;
    }));
  // A project with no free workspace asks how one could be made (`provisioning`): its
  // repositories are read beside the budgets then, not after them (on PostgreSQL, a round trip).
  if (projectIds.some((id) => !workspaces.available[id]?.length && !failures[id])) void reposOf().catch(() => undefined);
  // Token sums scan the window's usage rows: only when a project asked about has a budget.
  const budgeted = projectIds.some((id) => byId.get(id)?.budgetLimit != null);
  const [tokens, spent] = await settleAll([
    budgeted
      ? db.scheduling.tokensSince(new Date(state.now.getTime() - (state.windowMs ?? 24 * 3600_000))).then((t) => t.perProject)
      : ({} as Record<string, number>),
    // set_budget's budgets of every project asked about: one statement for all of their windows.
    budgets.length > 0 ? overBudgets(db, budgets, projectIds, state.now) : new Map<string, string>(),
  ]);
  return { state, projects: byId, agents, active, workspaces, holds, tokens, failures, spent, repos: reposOf };
}

/**
 * How the daemon could make workspaces for the project (workspace-provisioning.ts): clones of its
 * repo (one per slot), its one checkout or folder linked (only while it has none), or not at all.
 */
async function provisioning(c: Context, project: SchedulingProjectRow): Promise<'clone' | 'link' | null> {
  const repo = defaultRepo((await c.repos()).get(project.id) ?? []);
  if (repo) return cloneSource(repo) !== null ? 'clone' : repo.checkoutBasePath !== null ? 'link' : null;
  // A local path, asked for many projects at once: a failing async stat costs a thread hop and an error each.
  return existsSync(path.join(project.workspace, '.git')) ? 'link' : null;
}

/** A reason that holds for every project at once (no daemon, scheduling paused), or null. */
function processWideReason(state: SchedulingState): WaitingReason | null {
  if (!state.daemonRunning)
    return { code: 'no_daemon', reason: 'No daemon is running, so nothing is scheduled: start the app (npm start).' };
  if (state.paused)
    return {
      code: 'scheduling_paused',
      reason: 'Scheduling is paused for every project: resume it with orchestrator_control action=resume.',
    };
  return null;
}

/**
 * The agents (per backend) that may run the project's tasks: of a backend the project allows and,
 * for a task bound to a backend by its request or its first run, of that one.
 */
function servingAgents(c: Context, project: SchedulingProjectRow, taskBackend: string | null) {
  const allowed = project.backends;
  return c.agents.filter(
    (a) => (!allowed || allowed.some((b) => backendKeyServes(a.key, b))) && (!taskBackend || backendKeyServes(a.key, taskBackend)),
  );
}

/** Which backends a task may use, in words ('' when any). */
function backendsWanted(project: SchedulingProjectRow, taskBackend: string | null): string {
  if (taskBackend) return `backend ${taskBackend}, which the task runs on`;
  return project.backends ? `the backends project '${project.id}' allows (${project.backends.join(', ')})` : '';
}

async function projectReason(c: Context, projectId: string, taskBackend: string | null = null): Promise<WaitingReason> {
  const project = c.projects.get(projectId);
  if (!project) return { code: 'starting', reason: 'The project is gone.' };
  const serving = servingAgents(c, project, taskBackend);
  const held = new Map(c.holds.map((h) => [h.backend, h.until]));
  const wanted = backendsWanted(project, taskBackend);
  // Only when no agent it may use is on a backend with quota left: otherwise it goes there.
  if (serving.length > 0 && serving.every((a) => held.has(a.key))) {
    const keys = [...new Set(serving.map((a) => a.key))];
    const until = new Date(Math.min(...keys.map((k) => held.get(k)!.getTime()))).toISOString();
    return {
      code: 'waiting_quota',
      reason: `The agents' usage limit is reached on ${keys.join(', ')}; new tasks start after it resets at ${until}.`,
      until,
    };
  }
  if (project.status === 'PAUSED')
    return { code: 'project_paused', reason: `Project '${projectId}' is paused: resume it with resume_project.` };
  const used = c.tokens[projectId] ?? 0;
  if (project.budgetLimit !== null && used >= project.budgetLimit) {
    return {
      code: 'over_budget',
      reason: `Project '${projectId}' used ${used} of its ${project.budgetLimit} token budget in the window; it starts tasks again as the window moves on or when the budget is raised.`,
    };
  }
  const spent = c.spent.get(projectId);
  if (spent) return { code: 'over_budget', reason: spent };
  if (c.agents.length === 0) {
    return {
      code: 'no_agent',
      reason: 'There is no agent: set AQ_AGENTS (the daemon keeps that many) and restart, or add one with create_agent.',
    };
  }
  if (serving.length === 0) {
    return {
      code: 'no_agent',
      reason: `No agent runs on ${wanted}: add one with create_agent backend=… (list_agent_profiles shows the ACP profiles), or change the project's backends with edit_project.`,
    };
  }
  const active = c.active[projectId] ?? 0;
  if (active >= project.maxConcurrentAgents) {
    return {
      code: 'slots_busy',
      reason: `All ${project.maxConcurrentAgents} agent slot(s) of project '${projectId}' are busy; the next task starts when one finishes.`,
    };
  }
  const total = c.workspaces.total[projectId] ?? 0;
  const free = c.workspaces.available[projectId]?.length ?? 0;
  const failure = c.failures[projectId];
  if (free === 0) {
    if (failure)
      return {
        code: 'workspace_failed',
        reason: `Preparing a workspace for project '${projectId}' failed: ${failure.error}. It is tried again shortly; fix the repository (or add one with add_workspace).`,
      };
    const how = await provisioning(c, project);
    if (total === 0 && !how) {
      return {
        code: 'no_workspace',
        reason: `Project '${projectId}' has no workspace and no repository to make one from: add one with add_repo (or add_workspace).`,
      };
    }
    const more = how === 'clone' ? total < project.maxConcurrentAgents : how === 'link' && total === 0;
    if (!more)
      return { code: 'workspaces_busy', reason: `Every workspace of project '${projectId}' is in use; the task starts when one frees up.` };
  }
  if (!serving.some((a) => a.idle > 0 && !held.has(a.key))) {
    return {
      code: 'agents_busy',
      reason: wanted
        ? `Every agent on ${wanted} is busy or at its usage limit; the task starts when one is free.`
        : 'Every agent is busy; the task starts when one finishes.',
    };
  }
  return { code: 'starting', reason: 'Nothing holds it: it starts at the daemon’s next pass.' };
}

/** The reason the next READY task of each project does not start. */
export async function projectWaitingReasons(
  db: Database,
  state: SchedulingState,
  projectIds: string[],
): Promise<Map<string, WaitingReason>> {
  const everywhere = processWideReason(state);
  // Nothing is scheduled anywhere: no need to read what each project has.
  if (everywhere) return new Map(projectIds.map((id) => [id, everywhere]));
  const c = await loadContext(db, state, projectIds);
  const out = new Map<string, WaitingReason>();
  for (const id of projectIds) out.set(id, await projectReason(c, id));
  return out;
}

/** The project's reason for a task bound to one backend. */
async function taskProjectReason(db: Database, state: SchedulingState, projectId: string, backend: string): Promise<WaitingReason> {
  const everywhere = processWideReason(state);
  if (everywhere) return everywhere;
  return projectReason(await loadContext(db, state, [projectId]), projectId, backend);
}

/** Why this task waits; null when it is not waiting to start (running, done, blocked…). */
export async function taskWaitingReason(db: Database, state: SchedulingState, task: TaskRecord): Promise<WaitingReason | null> {
  if (task.status === 'DEFINED') {
    const open = (await db.tasks.upstream(task.id)).filter((u) => u.status !== 'COMPLETED');
    if (open.length === 0) return { code: 'starting', reason: 'Its dependencies are done; it becomes READY at the daemon’s next pass.' };
    const names = open
      .slice(0, 5)
      .map((u) => `${u.id} (${u.status})`)
      .join(', ');
    return {
      code: 'waiting_dependencies',
      reason: `Waiting on ${open.length} unfinished task(s): ${names}${open.length > 5 ? ', …' : ''}.`,
    };
  }
  if (task.status === 'PAUSED') {
    const until = task.resumeAfter?.toISOString();
    return {
      code: 'waiting_quota',
      reason: `${task.pauseReason ?? 'Paused'}${until ? `; it goes back to the queue at ${until}` : ''}.`,
      ...(until && { until }),
    };
  }
  if (task.status !== 'READY') return null;
  const reason = task.backend
    ? await taskProjectReason(db, state, task.projectId, task.backend)
    : (await projectWaitingReasons(db, state, [task.projectId])).get(task.projectId)!;
  // A held task would not start even with a free agent and workspace: that is the reason to give
  // (unless nothing is scheduled at all).
  if (!['no_daemon', 'scheduling_paused', 'project_paused'].includes(reason.code)) {
    const serialized = (await db.projects.get(task.projectId))?.overlapPolicy === 'serialize';
    const hold = serialized ? await overlapHold(db, task) : null;
    if (hold) return { code: 'overlap_serialized', reason: overlapHoldReason(hold) };
  }
  if (reason.code === 'starting' && task.preferredWorkspaceId) {
    const w = await db.workspaces.get(task.preferredWorkspaceId);
    if (w?.lockedByTaskId) {
      return {
        code: 'workspace_pinned',
        reason:
          (await db.taskMessages.pending(task.id, 'follow_up')).length > 0
            ? `Its follow-up waits for workspace '${w.id}', where its agent worked, which task ${w.lockedByTaskId} is using; after ${FOLLOW_UP_WORKSPACE_WAIT_MS / 60_000} minutes it moves to another workspace.`
            : `It continues in workspace '${w.id}', which task ${w.lockedByTaskId} is using; it starts when that one frees up.`,
      };
    }
  }
  return reason;
}
