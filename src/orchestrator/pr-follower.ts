import { stat } from 'node:fs/promises';
import os from 'node:os';
import type { Database } from '../db/database';
import type { TaskRecord } from '../db/repositories/tasks';
import { deleteTaskBranch } from '../git/forges/branch-cleanup';
import type { CheckCounts, Forge } from '../git/forges/forge';
import type { GitManager } from '../git/git-manager';
import { promoteAfter, reportBlocked } from './completion';
import type { EventLog } from './events';
import { TaskStateMachine } from './state-machine';
import { errorMessage } from '../util/error-message';

/** system_state key: when each AWAITING_APPROVAL task started waiting and was last reminded of. */
export const FOLLOW_UP_KEY = 'approval_follow_up';

interface FollowUp {
  since: string;
  remindedAt: string | null;
  /** What its PR/MR's checks said at the last look (absent before the first, or without a forge). */
  checks?: CheckCounts;
}

/** The checks of each waiting task's PR/MR as the follower last saw them (a task without: unknown). */
export async function prChecksByTask(db: Database): Promise<Map<string, CheckCounts>> {
  const followed = await db.state.get<Record<string, FollowUp>>(FOLLOW_UP_KEY, {});
  return new Map(Object.entries(followed).flatMap(([id, f]) => (f.checks ? [[id, f.checks] as const] : [])));
}

export interface PrFollowerOptions {
  db: Database;
  events: EventLog;
  git: GitManager;
  log?: (message: string) => void;
  now?: () => Date;
  /** PRs/MRs looked at per tick, at most (default 5). */
  maxPerTick?: number;
  /** Least time between two looks at the same PR/MR (default 60 s). */
  pollEveryMs?: number;
  /** Time between reminders in the task's thread (default 1 hour). */
  remindEveryMs?: number;
  /** Waiting longer than this makes reminders escalated (default 1 day). */
  escalateAfterMs?: number;
}

const HOUR = 3600_000;

/**
 * Follows tasks waiting for approval, once per daemon cycle. Their PR/MR is looked at on its
 * forge with bounded polling (a few per tick, each at most once a minute): merged there → the
 * task COMPLETED and its branch deleted; closed → BLOCKED, with the chain it strands reported.
 * Every waiting task gets an hourly reminder (task_awaiting_approval with `reminder: true`),
 * `escalated` after a day. When each task started waiting and was last reminded is kept in the
 * database, so a restarted daemon neither repeats nor forgets a reminder; the poll schedule is
 * only pacing and lives in memory.
 */
export class PrFollower {
  private readonly machine: TaskStateMachine;
  private readonly checkedAt = new Map<string, number>();
  /** The last reason a task's PR/MR could not be looked at, reported in its next reminder. */
  private readonly problems = new Map<string, string>();
  private readonly log: (message: string) => void;
  private readonly now: () => Date;

  constructor(private readonly options: PrFollowerOptions) {
    this.log = options.log ?? ((m) => console.error(m));
    this.now = options.now ?? (() => new Date());
    this.machine = new TaskStateMachine(options.db, this.log);
  }

  async tick(): Promise<void> {
    const { db } = this.options;
    const awaiting = (await db.tasks.list({ status: 'AWAITING_APPROVAL' }, 1000, { count: false })).tasks.map((t) => t.id);
    const stored = await db.state.get<Record<string, FollowUp>>(FOLLOW_UP_KEY, {});
    const followed: Record<string, FollowUp> = {};
    for (const id of awaiting) {
      followed[id] = stored[id]
        ? { ...stored[id] }
        : { since: ((await db.tasks.get(id))?.updatedAt ?? this.now()).toISOString(), remindedAt: null };
    }
    for (const id of this.checkedAt.keys()) if (!followed[id]) this.forget(id);

    for (const id of await this.poll(awaiting, followed)) {
      delete followed[id];
      this.forget(id);
    }
    await this.remind(followed);
    if (JSON.stringify(followed) !== JSON.stringify(stored)) await db.state.set(FOLLOW_UP_KEY, followed);
    // Stored first: the task's card, redrawn on task_updated, reads the checks from there.
    for (const [id, entry] of Object.entries(followed)) {
      if (JSON.stringify(entry.checks) === JSON.stringify(stored[id]?.checks)) continue;
      const task = await db.tasks.get(id);
      if (task) {
        await this.options.events.emit('task_updated', {
          projectId: task.projectId,
          taskId: id,
          payload: { title: task.title, fields: ['pr_checks'] },
        });
      }
    }
  }

  private forget(taskId: string): void {
    this.checkedAt.delete(taskId);
    this.problems.delete(taskId);
  }

  /** Looks at the PRs/MRs due for a look, noting their checks in `followed`; returns the tasks that left AWAITING_APPROVAL. */
  private async poll(awaiting: string[], followed: Record<string, FollowUp>): Promise<string[]> {
    const now = this.now().getTime();
    const every = this.options.pollEveryMs ?? 60_000;
    const due = awaiting
      .filter((id) => now - (this.checkedAt.get(id) ?? -Infinity) >= every)
      .sort((a, b) => (this.checkedAt.get(a) ?? -Infinity) - (this.checkedAt.get(b) ?? -Infinity))
      .slice(0, this.options.maxPerTick ?? 5);
    const resolved: string[] = [];
    for (const id of due) {
      this.checkedAt.set(id, now);
      const task = await this.options.db.tasks.get(id);
      if (!task?.prUrl || task.status !== 'AWAITING_APPROVAL') continue;
      try {
        const seen = await this.follow(task, task.prUrl);
        if (seen === 'moved') resolved.push(id);
        else if (seen && followed[id]) followed[id].checks = seen;
        this.problems.delete(id);
      } catch (err) {
        const problem = errorMessage(err);
        if (this.problems.get(id) !== problem) this.log(`Could not follow ${task.prUrl} for task ${id}: ${problem}`);
        this.problems.set(id, problem);
      }
    }
    return resolved;
  }

  private async workspacePath(task: TaskRecord): Promise<string | null> {
    const ws = task.workspaceId ? await this.options.db.workspaces.get(task.workspaceId) : null;
    return ws && (await stat(ws.path).catch(() => null))?.isDirectory() ? ws.path : null;
  }

  /** 'moved' when the task moved (merged → COMPLETED, closed → BLOCKED); else the open PR/MR's checks (null: no forge). */
  private async follow(task: TaskRecord, url: string): Promise<'moved' | CheckCounts | null> {
    const { git } = this.options;
    const path = await this.workspacePath(task);
    const forge: Forge | null = git.forges.forChangeUrl(url) ?? (path ? await git.forgeFor(path) : null);
    if (!forge) return null;
    const view = await forge.view(path ?? os.tmpdir(), url);
    if (view.state === 'merged') {
      await this.merged(task, url, forge, path);
      return 'moved';
    }
    if (view.state === 'closed') {
      const moved = await this.machine.fire(task.id, 'PR_CLOSED', {}, { from: ['AWAITING_APPROVAL'] });
      if (moved.ok) {
        const reason = `The ${forge.noun} ${url} was closed without merging. Restart the task to redo the work, or skip it.`;
        await reportBlocked(this.options.db, this.options.events, task, reason);
      }
      return 'moved';
    }
    return view.checks;
  }

  private async merged(task: TaskRecord, url: string, forge: Forge, path: string | null): Promise<void> {
    const { db, events } = this.options;
    const moved = await this.machine.fire(task.id, 'PR_MERGED', { completedAt: this.now() }, { from: ['AWAITING_APPROVAL'] });
    if (!moved.ok) return;
    let branchDeleted = false;
    if (path && task.branchName) {
      try {
        const deleted = await deleteTaskBranch(this.options.git, path, task.branchName);
        branchDeleted = deleted.remote || deleted.local;
      } catch (err) {
        this.log(`Could not delete branch ${task.branchName} of task ${task.id}: ${errorMessage(err)}`);
      }
    }
    await events.emit('task_completed', {
      projectId: task.projectId,
      taskId: task.id,
      agentId: task.assignedAgent,
      payload: {
        title: task.title,
        merged: true,
        merged_on: forge.kind,
        pr_url: url,
        branch: task.branchName,
        branch_deleted: branchDeleted,
      },
    });
    await promoteAfter(db, events, this.machine, task.id);
  }

  /** An hourly reminder per waiting task, escalated once it has waited a day. */
  private async remind(followed: Record<string, FollowUp>): Promise<void> {
    const now = this.now();
    const every = this.options.remindEveryMs ?? HOUR;
    for (const [id, entry] of Object.entries(followed)) {
      const since = Date.parse(entry.since);
      if (now.getTime() - Date.parse(entry.remindedAt ?? entry.since) < every) continue;
      const task = await this.options.db.tasks.get(id);
      if (task?.status !== 'AWAITING_APPROVAL') continue;
      const waitedMs = now.getTime() - since;
      const hours = Math.floor(waitedMs / HOUR);
      const escalated = waitedMs >= (this.options.escalateAfterMs ?? 24 * HOUR);
      const notes = [
        escalated
          ? `Still waiting for approval after ${hours} hours; this needs someone today.`
          : `Still waiting for approval (${hours} h).`,
        ...(this.problems.has(id) ? [`Agent Queue cannot look at its pull or merge request: ${this.problems.get(id)}`] : []),
      ];
      await this.options.events.emit('task_awaiting_approval', {
        projectId: task.projectId,
        taskId: id,
        payload: {
          title: task.title,
          pr_url: task.prUrl,
          branch: task.branchName,
          reminder: true,
          escalated,
          waiting_hours: hours,
          note: notes.join(' '),
        },
      });
      entry.remindedAt = now.toISOString();
    }
  }
}
