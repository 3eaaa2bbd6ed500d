import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { AppConfig } from '../config';
import type { Database } from '../db/database';
import { RUNNING_STATUSES } from '../db/value-sets';
import type { ProjectRecord } from '../db/repositories/projects';
import type { TrainEntry } from '../db/repositories/merge-train';
import type { TaskRecord } from '../db/repositories/tasks';
import { runConfinedCheck } from '../agents/confined-check';
import { appPrivatePaths } from '../agents/confinement';
import { secretRedactor } from '../agents/secret-redaction';
import { GitError } from '../git/git-errors';
import type { EventLog } from './events';
import type { TaskStateMachine } from './state-machine';
import type { TaskGit } from './completion';
import { promoteAfter, reportBlocked } from './completion';
import { mergeRetryingRaces } from './fleet-merge';
import { queuePendingFollowUp, sendTaskMessage } from './task-conversation';
import { runningDaemon } from './daemon-restart';
import { workerAlive } from '../db/repositories/workers';
import { errorMessage } from '../util/error-message';
import { cutWhole } from '../util/whole-characters';

/** This process, as the holder of a landing lock: a lock a killed process held lapses with its lease. */
export const LANDING_HOLDER = `${os.hostname()}:${process.pid}`;

/** How long a landing lock lasts without renewal; each landing step renews it. */
export const LANDING_LEASE_MS = 60_000;

/** How much of a failing check's output goes back to the agent. */
const OUTPUT_LIMIT = 6000;

export interface LandingDeps {
  db: Database;
  events: EventLog;
  machine: TaskStateMachine;
  git: TaskGit;
  config: AppConfig;
  log: (message: string) => void;
  holder?: string;
  leaseMs?: number;
  /**
   * Whose workspaces this process holds: the worker's name, or null for the app's daemon. A
   * workspace is on its owner's machine, so while its owner lives only the owner lands in it.
   * Absent: any workspace (one machine).
   */
  workerId?: string | null;
}

/** The train a task lands through: its repository's, or its project's when it has none. */
export function trainOf(task: Pick<TaskRecord, 'repoId' | 'projectId'>): string {
  return task.repoId ?? `project:${task.projectId}`;
}

/**
 * Queues the task at the end of its train and says so (`landing_queued`, with its place, so its
 * card shows it at once). With `onlyIfAbsent` (an approval) a task already in a train stays where
 * it is and null is returned; a sent-back task re-entering goes to the end again.
 */
export async function enterTrain(
  deps: { db: Database; events: EventLog },
  task: Pick<TaskRecord, 'id' | 'title' | 'projectId' | 'repoId'>,
  options: { onlyIfAbsent?: boolean; approvedBy?: string | null } = {},
): Promise<TrainEntry | null> {
  const train = trainOf(task);
  const queued = await deps.db.mergeTrain.enter({ taskId: task.id, projectId: task.projectId, train }, Date.now(), {
    onlyIfAbsent: options.onlyIfAbsent,
  });
  const entry = queued ? await deps.db.mergeTrain.get(task.id) : null;
  if (!entry) return null;
  await deps.events.emit('landing_queued', {
    projectId: task.projectId,
    taskId: task.id,
    payload: { title: task.title, train, place: entry.place, ...(options.approvedBy && { approved_by: options.approvedBy }) },
  });
  return entry;
}

/** The last part of a long output, where test runners put their verdict. */
function tail(text: string, limit: number): string {
  const trimmed = text.trim();
  return trimmed.length <= limit ? trimmed : `… (${trimmed.length - limit} earlier characters cut)\n${trimmed.slice(-limit)}`;
}

type Step = 'landed' | 'sent_back' | 'wait' | 'skipped';

/**
 * Lands the train's tasks one after another while this process holds the train's lock: first
 * come, first landed. Returns how many landed. A train whose lock another process holds is left
 * to it; one whose head waits (its workspace busy, its PR's checks still running) is left for the
 * next call.
 */
export async function driveTrain(deps: LandingDeps, train: string): Promise<number> {
  // One holder per pass, not per process: two passes of one process must exclude each other too.
  const holder = `${deps.holder ?? LANDING_HOLDER}:${randomUUID().slice(0, 8)}`;
  const leaseMs = deps.leaseMs ?? LANDING_LEASE_MS;
  if (!(await deps.db.mergeTrain.acquireLock(train, holder, leaseMs, Date.now()))) return 0;
  let landed = 0;
  try {
    // A holder that died mid-landing left its entry in a landing state: it starts over.
    await deps.db.mergeTrain.resumeStranded(train, Date.now());
    for (;;) {
      const entry = await deps.db.mergeTrain.next(train);
      if (entry?.state !== 'waiting') break;
      const step = await landEntry(deps, entry, () => deps.db.mergeTrain.renewLock(train, holder, leaseMs, Date.now()));
      if (step === 'landed') landed++;
      if (step === 'wait') break;
      if (!(await deps.db.mergeTrain.renewLock(train, holder, leaseMs, Date.now()))) break;
    }
  } finally {
    await deps.db.mergeTrain.releaseLock(train, holder);
  }
  return landed;
}

/** Every train with a task waiting (or stranded by a dead holder): what the daemon's loop and each worker call on their tick. */
export async function driveTrains(deps: LandingDeps): Promise<number> {
  let landed = 0;
  for (const train of await deps.db.mergeTrain.trainsWaiting(Date.now())) {
    try {
      landed += await driveTrain(deps, train);
    } catch (err) {
      deps.log(`Landing in train ${train} failed: ${errorMessage(err)}`);
    }
  }
  return landed;
}

async function landEntry(deps: LandingDeps, entry: TrainEntry, renew: () => Promise<boolean>): Promise<Step> {
  const { db } = deps;
  const task = await db.tasks.get(entry.taskId);
  const project = task ? await db.projects.get(task.projectId) : null;
  if (!task || !project || task.status !== 'AWAITING_APPROVAL') {
    // Moved on without the train (restarted, skipped, forced): it no longer waits to land, nor
    // holds the workspace it kept for landing (unless it runs there again).
    await db.mergeTrain.remove(entry.taskId);
    if (!task || (RUNNING_STATUSES as readonly string[]).includes(task.status)) return 'skipped';
    if (task.workspaceId) await db.workspaces.release(task.workspaceId, task.id);
    // A follow-up that waited for the landing goes on without it (a PR merged on its forge, a skip).
    await queuePendingFollowUp(deps, task.id);
    return 'skipped';
  }
  const workspace = task.workspaceId ? await db.workspaces.get(task.workspaceId) : null;
  if (!workspace || !task.branchName) {
    await complete(deps, task, { merged: false, note: 'The task has no branch in a workspace, so nothing was merged.' });
    return 'landed';
  }
  if (!(await mayLandIn(deps, workspace))) return 'wait';
  // The task keeps its workspace while it waits to land (task-runs.ts finishRun).
  const ownLock = workspace.lockedByTaskId === task.id;
  if (!ownLock && !(await db.workspaces.acquire(workspace.id, task.id, null))) return 'wait';
  let step: Step = 'wait';
  try {
    if (!(await db.mergeTrain.advance(task.id, ['waiting'], 'updating', Date.now()))) return 'wait';
    await deps.events.emit('landing_started', {
      projectId: task.projectId,
      taskId: task.id,
      payload: { title: task.title, branch: task.branchName, place: entry.place, tries: entry.tries },
    });
    step = await landSteps(deps, task, project, workspace.path, task.branchName, renew).catch((err: unknown) =>
      sendBackOnGitError(deps, task, project, err),
    );
    return step;
  } finally {
    // Landed, sent back or blocked: the workspace is free (a sent-back task's follow-up takes it again).
    if (!ownLock || step !== 'wait') await db.workspaces.release(workspace.id, task.id);
  }
}

/**
 * A git step no landing step expected to fail (reading the default branch, a refused workspace):
 * the task goes back from where it stopped, with git's sentence, rather than wait in the train
 * forever. Anything else is thrown on.
 */
async function sendBackOnGitError(deps: LandingDeps, task: TaskRecord, project: ProjectRecord, err: unknown): Promise<Step> {
  const state = (await deps.db.mergeTrain.get(task.id))?.state;
  if (!(err instanceof GitError) || (state !== 'updating' && state !== 'checking' && state !== 'merging')) throw err;
  return sendBack(deps, task, project, state, `Landing stopped: ${err.message}`);
}

/**
 * Whether this process may land in the workspace: its own, or one whose owner is gone (a worker
 * stopped or past its lease, or no live daemon for the app's), which anyone reaching the path
 * may try. A live owner lands its own on its next pass.
 */
export async function mayLandIn(deps: Pick<LandingDeps, 'db' | 'workerId'>, workspace: { workerId: string | null }): Promise<boolean> {
  if (deps.workerId === undefined || workspace.workerId === deps.workerId) return true;
  const now = Date.now();
  if (workspace.workerId === null) return (await runningDaemon(deps.db, new Date(now))) === null;
  const owner = await deps.db.workers.get(workspace.workerId);
  return !owner || !workerAlive(owner, now);
}

async function landSteps(
  deps: LandingDeps,
  task: TaskRecord,
  project: ProjectRecord,
  path: string,
  branch: string,
  renew: () => Promise<boolean>,
): Promise<Step> {
  const { db, git } = deps;
  const defaultBranch = await git.detectDefaultBranch(path);
  const update = await git.updateTaskBranch(path, branch, defaultBranch, project.landing).catch((err: unknown) => ({
    status: 'failed' as const,
    message: errorMessage(err),
  }));
  if (update.status === 'failed')
    return sendBack(deps, task, project, 'updating', `Bringing '${branch}' up to date failed: ${update.message}`);
  if (update.status === 'conflict') {
    const files = update.files.length > 0 ? update.files.join(', ') : 'files git did not name';
    return sendBack(
      deps,
      task,
      project,
      'updating',
      `Your branch '${branch}' conflicts with ${update.base} in ${files}. Bring it up to date with ${update.base} (${project.landing === 'rebase' ? 'rebase onto it' : 'merge it in'}), resolve the conflicts keeping both changes' intent, and commit.`,
    );
  }
  await renew();
  if (!(await db.mergeTrain.advance(task.id, ['updating'], 'checking', Date.now()))) return 'wait';
  if (project.checkCommand) {
    // A check may run for many leases: the lock is renewed meanwhile, or another process would
    // take the train over and run a second landing of this task in the same workspace.
    const keepAlive = setInterval(
      () => void renew().catch(() => undefined),
      Math.max(100, Math.floor((deps.leaseMs ?? LANDING_LEASE_MS) / 3)),
    );
    const run = await runConfinedCheck(project.checkCommand, {
      cwd: path,
      timeoutMs: project.checkTimeoutSeconds * 1000,
      maxOutput: 200_000,
      confinement: {
        allowUnsandboxed: deps.config.agents.allowUnsandboxed,
        hiddenPaths: appPrivatePaths(deps.config),
        workspacesRoot: deps.config.workspaceDir,
      },
    }).finally(() => clearInterval(keepAlive));
    if (run.exitCode !== 0) {
      const redact = secretRedactor(deps.config);
      const verdict = run.timedOut
        ? `did not finish within ${project.checkTimeoutSeconds} seconds`
        : `failed with exit code ${run.exitCode}`;
      const output = redact(tail(`${run.stdout}\n${run.stderr}`, OUTPUT_LIMIT));
      return sendBack(
        deps,
        task,
        project,
        'checking',
        `The project's check \`${project.checkCommand}\` ${verdict} on your branch '${branch}' (brought up to date with ${update.base}). Fix the cause and commit.${output ? `\n\nIts output:\n${output}` : ''}`,
      );
    }
  }
  await renew();
  if (!(await db.mergeTrain.advance(task.id, ['checking'], 'merging', Date.now()))) return 'wait';
  if (task.prUrl) {
    try {
      await git.landPullRequest(path, { branch, prUrl: task.prUrl, title: task.title, body: `${task.title}\n\nTask-Id: ${task.id}` });
    } catch (err) {
      const message = errorMessage(err);
      if (err instanceof GitError && /still has checks running/.test(message)) {
        await db.mergeTrain.advance(task.id, ['merging'], 'waiting', Date.now(), { lastOutcome: message });
        return 'wait';
      }
      return sendBack(deps, task, project, 'merging', `Merging ${task.prUrl} was refused: ${message}`);
    }
  } else {
    // Origin was fetched for the update: should it have moved since (a long check), the push is
    // refused and the next try fetches.
    const outcome = await mergeRetryingRaces(git, path, branch, defaultBranch, { originFetched: update.originFetched });
    if (!outcome.merged)
      return sendBack(deps, task, project, 'merging', `Merging '${branch}' into ${defaultBranch} failed: ${outcome.message}`);
  }
  // Free the workspace before the task shows COMPLETED: a follow-up sent on seeing it completed finds it free.
  if (task.workspaceId) await db.workspaces.release(task.workspaceId, task.id);
  await deps.events.emit('landed', {
    projectId: task.projectId,
    taskId: task.id,
    payload: { title: task.title, branch, into: defaultBranch, ...(task.prUrl && { pr_url: task.prUrl }) },
  });
  await complete(deps, task, { merged: true });
  return 'landed';
}

/**
 * The landed task completes (COMPLETED, reported, its dependants promoted) and leaves the train.
 * It leaves only once completed: a run ending meanwhile finds it still queued to land and leaves
 * its unread messages to the landing (task-conversation.ts queuePendingFollowUp), which queues
 * them last.
 */
async function complete(deps: LandingDeps, task: TaskRecord, extra: { merged: boolean; note?: string }): Promise<void> {
  const moved = await deps.machine.fire(task.id, 'ADMIN_APPROVE', { completedAt: new Date() }, { from: ['AWAITING_APPROVAL'] });
  await deps.db.mergeTrain.remove(task.id);
  if (!moved.ok) return;
  const run = await deps.db.taskResults.latest(task.id);
  await deps.events.emit('task_completed', {
    projectId: task.projectId,
    taskId: task.id,
    agentId: task.assignedAgent,
    payload: {
      title: task.title,
      summary: run?.summary ?? '',
      tokens: run?.tokensUsed ?? 0,
      cost_usd: run?.costUsd ?? 0,
      branch: task.branchName,
      // A task that needed approval entered the train only through Approve.
      ...(task.requiresApproval && { approved: true }),
      ...extra,
    },
  });
  await promoteAfter(deps.db, deps.events, deps.machine, task.id);
  // Messages its run ended without taking waited for the landing: now they run as its follow-up.
  await queuePendingFollowUp(deps, task.id);
}

/**
 * A conflict or a red check: the task goes back to its own agent as a follow-up in the same
 * session and branch, with what went wrong as the instruction, and re-enters the train when that
 * run finishes; after the project's landing_tries it is BLOCKED instead. Nothing landed is touched.
 */
async function sendBack(
  deps: LandingDeps,
  task: TaskRecord,
  project: ProjectRecord,
  from: 'updating' | 'checking' | 'merging',
  reason: string,
): Promise<Step> {
  const { db, events, machine } = deps;
  if (!(await db.mergeTrain.advance(task.id, [from], 'sent_back', Date.now(), { lastOutcome: cutWhole(reason, 2000), countTry: true })))
    return 'wait';
  const entry = await db.mergeTrain.get(task.id);
  const tries = entry?.tries ?? project.landingTries;
  if (tries >= project.landingTries) {
    // Blocked before it leaves the train, for the same reason as complete() above.
    const moved = await machine.fire(task.id, 'PR_CLOSED', {}, { from: ['AWAITING_APPROVAL'] });
    await db.mergeTrain.remove(task.id);
    if (moved.ok) {
      await reportBlocked(db, events, task, `It could not land after ${tries} tries (the project's landing_tries). Last: ${reason}`);
      await queuePendingFollowUp(deps, task.id);
    }
    return 'sent_back';
  }
  await sendTaskMessage(
    { db, events, machine },
    {
      taskId: task.id,
      author: 'merge train',
      text: `Your work could not land yet (try ${tries} of ${project.landingTries}). ${reason}`,
    },
  );
  await events.emit('landing_sent_back', {
    projectId: task.projectId,
    taskId: task.id,
    payload: { title: task.title, reason: cutWhole(reason, 3000), tries, landing_tries: project.landingTries },
  });
  return 'sent_back';
}

/**
 * The landings of a loop (the daemon's, a worker's), one pass at a time and beside the loop: a
 * check may run for minutes, and the loop must go on scheduling meanwhile.
 */
export class TrainDriver {
  private pass: Promise<unknown> | null = null;

  constructor(private readonly deps: LandingDeps) {}

  /** Starts a pass over the trains unless one is under way. */
  kick(): void {
    if (this.pass) return;
    this.pass = driveTrains(this.deps)
      .catch((err) => this.deps.log(`Landing failed: ${errorMessage(err)}`))
      .finally(() => {
        this.pass = null;
      });
  }

  /** Waits for the pass under way (a stopping loop lets it finish). */
  async idle(): Promise<void> {
    await this.pass;
  }
}
