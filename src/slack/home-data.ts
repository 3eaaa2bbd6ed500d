import type { AnyCommand, CommandOutcome, CommandResult, InputOf, ResultOf } from '../commands/catalog';
import { listAgentRequests } from '../commands/agent-requests';
import { listProjects } from '../commands/projects';
import { listRepos } from '../commands/repos';
import { getStatus } from '../commands/status';
import { listAutomations } from '../commands/automations';
import { getRecentEvents } from '../commands/system';
import { getAgentError } from '../commands/task-results';
import { getTask, listTasks } from '../commands/tasks';
import { getOverlaps } from '../commands/overlaps';
import { getMergeQueue } from '../commands/merge-train';
import type { TrainPlace } from './blocks/merge-train-place';
import { settleAll } from '../util/settle-all';

/** Runs a command as the Slack app (the handler's `execute`). */
export type Execute = (name: string, args?: Record<string, unknown>) => Promise<CommandResult>;

/** A command run with its typed result (`{ error }` on failure). */
export async function run<C extends AnyCommand>(execute: Execute, command: C, args: InputOf<C>): Promise<CommandOutcome<C>> {
  return (await execute(command.name, args as Record<string, unknown>)) as CommandOutcome<C>;
}

export function failed(result: CommandResult): result is { error: string } {
  return typeof result.error === 'string';
}

/** How many rows each Home section shows before saying "N more". */
export const HOME_CAPS = { needsYou: 8, running: 8, ready: 10, paused: 5, workers: 10, automations: 8, mergeTrain: 10 } as const;
const PROGRESS_EVENTS_SCANNED = 200;

export interface AttentionRow {
  id: string;
  title: string;
  projectId: string;
  status: 'WAITING_INPUT' | 'AWAITING_APPROVAL' | 'FAILED' | 'BLOCKED';
  /** First line of the error (failed/blocked) or nothing. */
  detail: string | null;
  prUrl: string | null;
  /** Its place in the merge train when it is approved and waits to land (nothing for a person to do). */
  train: TrainPlace | null;
}

/** Two live tasks touching the same files (the conflict radar), shown under "Needs you". */
export interface OverlapRow {
  projectId: string;
  tasks: [{ id: string; title: string }, { id: string; title: string }];
  files: string[];
}

/** A task queued to land, as get_merge_queue lists it. */
export type MergeTrainRow = ResultOf<typeof getMergeQueue>['entries'][number];

export interface RunningRow {
  id: string;
  title: string;
  projectId: string;
  agent: string | null;
  startedAt: Date | null;
  lastProgress: string | null;
}

export interface HomeData {
  projectCount: number;
  repoCount: number;
  agents: Array<{ id: string; name: string; state: string }>;
  byStatus: Record<string, number>;
  schedulingPaused: boolean;
  attention: AttentionRow[];
  attentionTotal: number;
  /** Live overlaps between tasks (capped like the rest of "Needs you"); absent when none. */
  overlaps?: OverlapRow[];
  running: RunningRow[];
  runningTotal: number;
  /** Ready tasks in queue order; `waiting` says why one is not starting, when get_status knows. */
  ready: Array<{ id: string; title: string; projectId: string; priority?: number; waiting?: string }>;
  readyTotal: number;
  pausedProjects: Array<{ id: string; name: string }>;
  /** The merge trains' first entries (projects in list order), when tasks wait to land. */
  mergeTrain?: { rows: MergeTrainRow[]; total: number };
  /** The `aq worker` machines, when there are any. */
  workers?: Array<{ name: string; alive: boolean; capacity: number; running: number; lastHeartbeat: string }>;
  /** Every automation (the first few), with whether it runs, for the one-click pause. */
  automations?: {
    rows: Array<{ id: string; name: string; kind: string; projectId: string; enabled: boolean; pausedReason: string | null }>;
    total: number;
  };
}

const lastLine = (text: unknown): string | null =>
  String(text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1) ?? null;

/** What the agent of a waiting task asks, in a line: its question, or the tool call it wants. */
async function openRequest(execute: Execute, taskId: string): Promise<string> {
  const found = await run(execute, listAgentRequests, { task_id: taskId, limit: 1 });
  const request = failed(found) ? undefined : found.requests[0];
  if (!request) return 'Answer the agent in the task’s thread.';
  if (request.kind === 'question') {
    const question = (request.questions[0]?.question ?? '').trim();
    return question ? `Asks: ${question}` : 'Answer the agent in the task’s thread.';
  }
  const call = [request.tool, request.detail].filter(Boolean).join(' ');
  return call ? `Asks to run ${call}` : 'Answer the agent in the task’s thread.';
}

/**
 * The first entries of the projects' merge trains. Only tasks awaiting approval can be queued to
 * land, so a Home with none asks nothing.
 */
async function loadMergeTrain(execute: Execute, projectIds: string[], awaiting: number): Promise<HomeData['mergeTrain']> {
  if (awaiting === 0) return undefined;
  const rows: MergeTrainRow[] = [];
  let total = 0;
  for (const projectId of projectIds) {
    const queue = await run(execute, getMergeQueue, { project_id: projectId, limit: HOME_CAPS.mergeTrain });
    if (failed(queue)) continue;
    total += queue.total;
    rows.push(...queue.entries.slice(0, HOME_CAPS.mergeTrain - rows.length));
    if (total >= awaiting) break;
  }
  return total > 0 ? { rows, total } : undefined;
}

/**
 * The first `rows` ready tasks in queue order (list_tasks), each with why its project is not
 * starting when get_status says so.
 */
async function loadReadyRows(execute: Execute, rows: number, waiting: Map<string, string>): Promise<HomeData['ready'] | null> {
  const listed = await run(execute, listTasks, { status: 'READY', limit: rows });
  if (failed(listed)) return null;
  return listed.tasks.map((t) => {
    const why = waiting.get(t.project_id);
    return { id: t.id, title: t.title, projectId: t.project_id, priority: t.priority, ...(why && { waiting: why }) };
  });
}

/**
 * Everything the Home shows, read through commands (never from the database directly).
 * `readyRows`: how many ready tasks to list (a data table holds more than the sections).
 */
export async function loadHomeData(execute: Execute, options: { readyRows?: number } = {}): Promise<HomeData> {
  const [status, projects, repos, asking, awaiting, failedTasks, blocked, automations, overlapping] = await settleAll([
    run(execute, getStatus, {}),
    run(execute, listProjects, {}),
    run(execute, listRepos, {}),
    // An agent waiting for an answer holds its run: the most urgent of all.
    run(execute, listTasks, { status: 'WAITING_INPUT' }),
    run(execute, listTasks, { status: 'AWAITING_APPROVAL' }),
    run(execute, listTasks, { status: 'FAILED' }),
    run(execute, listTasks, { status: 'BLOCKED' }),
    run(execute, listAutomations, { limit: HOME_CAPS.automations }),
    run(execute, getOverlaps, {}),
  ]);
  if (failed(status)) throw new Error(status.error);
  const projectList = failed(projects) ? [] : projects.projects;
  const lists = [asking, awaiting, failedTasks, blocked].map((l) => (failed(l) ? { tasks: [], total: 0 } : l));
  const attentionTasks = lists.flatMap((l) => l.tasks).slice(0, HOME_CAPS.needsYou);
  const attention = await settleAll(
    attentionTasks.map(async (t): Promise<AttentionRow> => {
      const status = t.status as AttentionRow['status'];
      let detail: string | null = null;
      let prUrl: string | null = null;
      let train: TrainPlace | null = null;
      if (status === 'WAITING_INPUT') {
        detail = await openRequest(execute, t.id);
      } else if (status === 'AWAITING_APPROVAL') {
        const full = await run(execute, getTask, { task_id: t.id });
        if (!failed(full)) {
          prUrl = full.pr_url ?? null;
          train = full.merge_queue ?? null;
        }
      } else {
        const why = await run(execute, getAgentError, { task_id: t.id });
        // A task with no recorded run has a `message` saying so instead: no detail then.
        if (!failed(why) && 'error_message' in why) detail = (why.error_message || why.agent_summary) ?? null;
      }
      return { id: t.id, title: t.title, projectId: t.project_id, status, detail, prUrl, train };
    }),
  );

  const mergeTrain = await loadMergeTrain(
    execute,
    projectList.map((p) => String(p.id)),
    failed(awaiting) ? 0 : awaiting.total,
  );
  const inProgress = status.tasks.in_progress.slice(0, HOME_CAPS.running);
  const events = inProgress.length ? await run(execute, getRecentEvents, { limit: PROGRESS_EVENTS_SCANNED }) : { events: [] };
  const progress = new Map<string, string>();
  if (!failed(events)) {
    for (const e of events.events) {
      const taskId = e.task_id as string | null;
      if (e.type === 'task_progress' && taskId && !progress.has(taskId)) {
        const line = lastLine((e.payload as { text?: unknown }).text);
        if (line) progress.set(taskId, line);
      }
    }
  }
  const running = await settleAll(
    inProgress.map(async (t): Promise<RunningRow> => {
      const full = await run(execute, getTask, { task_id: t.id });
      const startedAt = failed(full) ? undefined : (full as { started_at?: string }).started_at;
      return {
        id: t.id,
        title: t.title,
        projectId: t.project_id,
        agent: t.assigned_agent,
        startedAt: startedAt ? new Date(startedAt) : null,
        lastProgress: progress.get(t.id) ?? null,
      };
    }),
  );

  const readyShown = status.tasks.ready_to_work.map((t) => {
    const why = (t as { waiting_reason?: unknown }).waiting_reason;
    return { id: t.id, title: t.title, projectId: t.project_id, ...(typeof why === 'string' && why && { waiting: why }) };
  });
  // The table lists more than get_status carries, with each task's priority: from list_tasks.
  const readyRows = options.readyRows ?? HOME_CAPS.ready;
  const listed =
    readyRows > HOME_CAPS.ready && (status.tasks.by_status.READY ?? 0) > 0
      ? await loadReadyRows(execute, readyRows, new Map(readyShown.flatMap((t) => (t.waiting ? [[t.projectId, t.waiting]] : []))))
      : null;
  const ready = listed ?? readyShown.slice(0, readyRows);

  return {
    projectCount: status.projects,
    repoCount: failed(repos) ? 0 : repos.repos.length,
    agents: status.agents.map((a) => ({ id: a.id, name: a.name, state: a.state })),
    byStatus: status.tasks.by_status,
    schedulingPaused: status.orchestrator_paused,
    attention,
    attentionTotal: lists.reduce((n, l) => n + l.total, 0),
    ...(!failed(overlapping) &&
      overlapping.overlaps.length > 0 && {
        overlaps: overlapping.overlaps.slice(0, HOME_CAPS.needsYou).map(
          (o): OverlapRow => ({
            projectId: o.project_id,
            tasks: [
              { id: o.tasks[0].id, title: o.tasks[0].title },
              { id: o.tasks[1].id, title: o.tasks[1].title },
            ],
            files: o.files,
          }),
        ),
      }),
    ...(mergeTrain && { mergeTrain }),
    running,
    runningTotal: status.tasks.by_status.IN_PROGRESS ?? status.tasks.in_progress.length,
    ready,
    readyTotal: status.tasks.by_status.READY ?? status.tasks.ready_to_work.length,
    ...(!failed(automations) && {
      automations: {
        rows: automations.automations.map((a) => ({
          id: a.id,
          name: a.name,
          kind: a.kind,
          projectId: a.project_id,
          enabled: a.enabled,
          pausedReason: a.paused_reason,
        })),
        total: automations.total,
      },
    }),
    pausedProjects: projectList.filter((p) => p.status === 'PAUSED').map((p) => ({ id: String(p.id), name: String(p.name) })),
    ...(status.workers && {
      workers: status.workers.map((w) => ({
        name: String(w.name),
        alive: w.alive === true,
        capacity: Number(w.capacity),
        running: Number(w.running),
        lastHeartbeat: String(w.last_heartbeat),
      })),
    }),
  };
}
