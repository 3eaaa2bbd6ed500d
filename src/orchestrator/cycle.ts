import { agentBackendKey } from '../agents/backends';
import type { Database } from '../db/database';
import type { Owner, ReadyTaskRow, SchedulingProjectRow } from '../db/repositories/scheduling';
import type { TaskGit } from './completion';
import { checkBudgets, holdBackSpent } from './budgets';
import type { EventLog } from './events';
import type { Assignment, SchedulerSnapshot } from './scheduler';
import type { TaskStateMachine } from './state-machine';
import { promoteWaiting } from './task-moves';
import { releaseStaleFollowUpPins } from './follow-up-workspace';
import { provisionWorkspaces, type ProvisioningGit } from './workspace-provisioning';
import { sweepSettledOverlaps } from './conflict-radar';
import { holdBackOverlapping } from './overlap-policy';
import { settleAll } from '../util/settle-all';

export interface CycleDeps {
  db: Database;
  events: EventLog;
  machine: TaskStateMachine;
  git: Pick<TaskGit, 'isRepo'>;
  /** Cloning workspaces on demand; after a failure the same source is retried `retryMs` later. */
  provisioning: { git: ProvisioningGit; retryMs: number };
  now: () => Date;
  windowMs: number;
  log: (message: string) => void;
  /**
   * A worker's pass: only its agents and workspaces, new clones in its own folder, and (when
   * its labels name projects) only those projects' tasks. Absent: the app's own agents.
   */
  worker?: { id: string; dir: string; projects: Set<string> | null };
}

export interface CycleReport {
  resumed: string[];
  promoted: string[];
  assignments: Assignment[];
  launched: Assignment[];
  blocked: string[];
}

/** PAUSED tasks whose resume_after has passed go back to READY. */
export async function resumePaused(deps: CycleDeps): Promise<string[]> {
  const resumed: string[] = [];
  for (const t of await deps.db.taskRuns.dueToResume(deps.now())) {
    const moved = await deps.machine.fire(t.id, 'RESUME_TIMER', { resumeAfter: null, pauseReason: null }, { from: ['PAUSED'] });
    if (!moved.ok) continue;
    resumed.push(t.id);
    await deps.events.emit('task_resumed', { projectId: t.projectId, taskId: t.id, payload: { title: t.title } });
  }
  return resumed;
}

/** DEFINED tasks whose dependencies are all COMPLETED become READY. */
export async function promoteReady(deps: CycleDeps): Promise<string[]> {
  const promoted = await promoteWaiting(deps.db, deps.machine);
  for (const p of promoted) {
    await deps.events.emit('task_unblocked', { projectId: p.projectId, taskId: p.id, payload: { title: p.title } });
  }
  return promoted.map((p) => p.id);
}

/**
 * The scheduler's input, from bounded SQL. Projects with READY work get workspaces provisioned on
 * demand (workspace-provisioning.ts), one per slot they could fill now, up to their
 * max_concurrent_agents. A project with nothing to provision from keeps its tasks READY:
 * waiting-reasons.ts tells people why. While a backend waits for a usage limit's reset, its
 * agents take nothing; tasks its project allows elsewhere go to agents of another backend.
 */
export async function buildSnapshot(
  deps: CycleDeps,
  options: { globalPaused: boolean; excludeWorkspaceIds: Set<string>; blocked: string[]; excludeAgentIds?: Set<string> },
): Promise<SchedulerSnapshot> {
  const { db } = deps;
  // Before the queue is read: a follow-up that waited too long for its own workspace takes any.
  await releaseStaleFollowUpPins(deps);
  await sweepSettledOverlaps(deps);
  const since = new Date(deps.now().getTime() - deps.windowMs);
  const owner: Owner = { workerId: deps.worker?.id ?? null };
  const [allIdle, projects, holds] = await settleAll([
    db.scheduling.idleAgents(owner),
    db.scheduling.projects(),
    db.scheduling.quotaHolds(deps.now()),
  ]);
  const held = new Set(holds.map((h) => h.backend));
  const idleAgents = allIdle.filter((a) => !held.has(a.key));
  // A project can take at most min(idle agents, its concurrency cap) tasks in one round; a few
  // more cover tasks skipped for workspace affinity. Rows cost, so read no more than that.
  const cap = projects.reduce((m, p) => Math.max(m, p.maxConcurrentAgents), 1);
  const perProject = Math.min(idleAgents.length, cap) + 8;
  const [readyTasks, activeCounts, tokens, completed, workspaces] = await settleAll([
    idleAgents.length > 0 ? db.scheduling.readyTasks(perProject) : Promise.resolve({} as Record<string, ReadyTaskRow[]>),
    db.scheduling.activeCounts(),
    db.scheduling.tokensSince(since),
    db.scheduling.completedSince(since),
    db.scheduling.workspaces(owner),
  ]);
  const reachable = deps.worker?.projects;
  if (reachable) for (const projectId of Object.keys(readyTasks)) if (!reachable.has(projectId)) delete readyTasks[projectId];
  const idle = idleAgents.filter((a) => !options.excludeAgentIds?.has(a.id));
  // Spent budgets (project or global) hold back READY work; their warnings are posted here.
  holdBackSpent(readyTasks, await checkBudgets(db, deps.events, deps.now()));
  await holdBackOverlapping(db, readyTasks, new Set(projects.filter((p) => p.serializesOverlaps).map((p) => p.id)));
  const byId = new Map<string, SchedulingProjectRow>(projects.map((p) => [p.id, p]));
  for (const [projectId, ready] of Object.entries(readyTasks)) {
    const project = byId.get(projectId);
    if (!project) continue;
    const free = (workspaces.available[projectId] ?? []).filter((id) => !options.excludeWorkspaceIds.has(id)).length;
    const slots = project.maxConcurrentAgents - (activeCounts[projectId] ?? 0);
    const wanted = Math.min(ready.length, slots, idle.length);
    const missing = Math.min(wanted - free, project.maxConcurrentAgents - (workspaces.total[projectId] ?? 0));
    if (missing <= 0 || (project.budgetLimit !== null && (tokens.perProject[projectId] ?? 0) >= project.budgetLimit)) continue;
    const created = await provisionWorkspaces(
      {
        db,
        git: deps.provisioning.git,
        now: deps.now,
        log: deps.log,
        retryMs: deps.provisioning.retryMs,
        ...(deps.worker && { owner: { workerId: deps.worker.id, dir: deps.worker.dir } }),
      },
      project,
      missing,
    );
    workspaces.available[projectId] ??= [];
    workspaces.available[projectId].push(...created);
  }
  const available: Record<string, string[]> = {};
  for (const [projectId, ids] of Object.entries(workspaces.available)) {
    available[projectId] = ids.filter((id) => !options.excludeWorkspaceIds.has(id));
  }
  return {
    projects: projects.map((p) => ({
      id: p.id,
      status: p.status,
      creditWeight: p.creditWeight,
      maxConcurrentAgents: p.maxConcurrentAgents,
      budgetLimit: p.budgetLimit,
      backends: p.backends,
    })),
    readyTasks,
    idleAgents: idle.map((a) => ({ id: a.id, backend: a.key })),
    heldBackends: Object.fromEntries(holds.map((h) => [h.backend, h.until.getTime()])),
    activeAgentCounts: activeCounts,
    projectTokenUsage: tokens.perProject,
    tasksCompletedInWindow: completed,
    availableWorkspaces: available,
    lockedWorkspaceIds: [...workspaces.locked, ...options.excludeWorkspaceIds],
    globalPaused: options.globalPaused,
    globalBudget: null,
  };
}

/** Pool agents are named `Agent <n>`; ids `agent-<n>`. */
export function poolAgentId(n: number): string {
  return `agent-${n}`;
}

/**
 * Makes sure the default pool of `size` agents exists (AQ_AGENTS), so a fresh install runs tasks
 * without create_agent. Agents people made themselves come on top; none is ever removed here.
 */
export async function ensureAgentPool(deps: Pick<CycleDeps, 'db' | 'events' | 'log'>, size: number): Promise<string[]> {
  const created: string[] = [];
  for (let n = 1; n <= size; n++) {
    const id = poolAgentId(n);
    if (await deps.db.agents.get(id)) continue;
    await deps.db.agents.create({ id, name: `Agent ${n}`, type: 'claude' });
    created.push(id);
    await deps.events.emit('agent_created', { agentId: id, payload: { name: `Agent ${n}`, pool: true } });
  }
  if (created.length > 0) deps.log(`Created pool agent(s) ${created.join(', ')} (AQ_AGENTS=${size}).`);
  return created;
}

/**
 * Tells people, once per task, that it waits because every workspace of its project is busy
 * (instead of a notice every cycle).
 */
export async function noticeWaiting(
  deps: CycleDeps,
  snapshot: SchedulerSnapshot,
  assigned: Assignment[],
  notified: Set<string>,
): Promise<void> {
  if (snapshot.idleAgents.length <= assigned.length) return;
  // Forget tasks no longer ready (launched elsewhere, by a worker, or deleted): the set would grow with history.
  const ready = new Set(Object.values(snapshot.readyTasks).flatMap((tasks) => tasks.map((t) => t.id)));
  for (const id of notified) if (!ready.has(id)) notified.delete(id);
  const used = new Set(assigned.map((a) => a.workspaceId));
  const taken = new Set(assigned.map((a) => a.taskId));
  for (const project of snapshot.projects) {
    if (project.status !== 'ACTIVE') continue;
    const next = (snapshot.readyTasks[project.id] ?? []).find((t) => !taken.has(t.id));
    if (!next || notified.has(next.id)) continue;
    const active = (snapshot.activeAgentCounts[project.id] ?? 0) + assigned.filter((a) => a.projectId === project.id).length;
    if (active >= project.maxConcurrentAgents) continue;
    const free = (snapshot.availableWorkspaces[project.id] ?? []).filter((w) => !used.has(w));
    if (free.length > 0) continue;
    notified.add(next.id);
    const task = await deps.db.tasks.get(next.id);
    await deps.events.emit('task_waiting_workspace', {
      projectId: project.id,
      taskId: next.id,
      payload: { title: task?.title ?? next.id, reason: 'Every workspace of the project is in use; the task starts when one frees up.' },
    });
  }
}

/**
 * Says in the task's thread which agent took a task and why, when it went to another backend
 * because the one it would have run on is at its usage limit (the scheduler marks those).
 */
export async function announceFailovers(deps: Pick<CycleDeps, 'db' | 'events'>, launched: Assignment[]): Promise<void> {
  for (const a of launched) {
    if (!a.failover) continue;
    const [task, agent] = await settleAll([deps.db.tasks.get(a.taskId), deps.db.agents.get(a.agentId)]);
    if (!task || !agent) continue;
    const until = new Date(a.failover.until).toISOString();
    const backend = agentBackendKey(agent);
    await deps.events.emit('task_failover', {
      projectId: a.projectId,
      taskId: a.taskId,
      agentId: a.agentId,
      payload: {
        title: task.title,
        agent_id: agent.id,
        agent_name: agent.name,
        backend,
        limited_backend: a.failover.backend,
        until,
        reason: `${agent.name} (${backend}) took it: ${a.failover.backend} is at its usage limit until ${until}.`,
      },
    });
  }
}
