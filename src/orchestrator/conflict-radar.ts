import type { Database } from '../db/database';
import type { RepoScope } from '../db/repositories/touched-files';
import type { GitManager } from '../git/git-manager';
import { baseRef, committedSince, normaliseAll, workspaceStatus } from '../git/touched-files';
import { KeyedSerial } from '../util/keyed-serial';
import type { EventLog } from './events';
import { errorMessage } from '../util/error-message';
import { settleAll } from '../util/settle-all';

/**
 * The radars of one repository in this process store their files and compare them one at a time:
 * a comparison that read another task's files just before that task stored new ones would record
 * (and announce) the pair's old file set again after the new one. Across processes the pair's
 * conditional writes keep the worst of that away (clearIfDisjoint).
 */
const repositoryRadarWrites = new KeyedSerial();

/** What the radar needs from the process. */
export interface RadarDeps {
  db: Database;
  events: EventLog;
  git: GitManager;
  log: (message: string) => void;
  now?: () => number;
}

/** One side of an overlap as a warning names it: the task, and who runs it where. */
export interface OverlapSide {
  id: string;
  title: string;
  agent: string | null;
  host: string | null;
}

/** The payload of overlap_detected and overlap_cleared. */
export interface OverlapPayload {
  task_ids: [string, string];
  tasks: [OverlapSide, OverlapSide];
  files: string[];
  /** overlap_detected: true when a known pair's files changed (the warning is updated, not repeated). */
  changed?: boolean;
}

/**
 * The conflict radar for one running task: which files its workspace touched (committed on its
 * branch against the base, plus uncommitted), stored for every process of the fleet to compare,
 * and its overlaps with other live tasks of the same repository, announced once per pair and file
 * set. A refresh costs one `git status` when nothing moved; `git diff base...HEAD` runs only when
 * HEAD did, and the database is written only when the file set changed. The index's mtime alone
 * would not do: an agent's edit changes the working tree without touching the index.
 */
export class TaskRadar {
  private head: string | null | undefined = undefined;
  private committed: string[] = [];
  private stored: string | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private base: string | null | undefined = undefined;

  constructor(
    private readonly deps: RadarDeps,
    private readonly task: { id: string; projectId: string },
    private readonly workspace: { path: string; repoId: string | null },
    private readonly defaultBranch: string | null,
  ) {}

  private get scope(): RepoScope {
    return { projectId: this.task.projectId, repoKey: this.workspace.repoId ?? '' };
  }

  /** Refreshes now; a call during a refresh makes one more after it. Never throws. */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.refreshOnce();
        } catch (err) {
          this.deps.log(`Conflict radar: refreshing the files of ${this.task.id} failed: ${errorMessage(err)}`);
        }
      } while (this.again);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async refreshOnce(): Promise<void> {
    const { git, db } = this.deps;
    const path = this.workspace.path;
    if (this.base === undefined) this.base = this.defaultBranch ? await baseRef(git, path, this.defaultBranch) : null;
    const status = await workspaceStatus(git, path);
    if (status.head !== this.head) {
      this.committed = this.base && status.head ? await committedSince(git, path, this.base) : [];
      this.head = status.head;
    }
    const files = normaliseAll([...this.committed, ...status.files]);
    const key = JSON.stringify(files);
    if (key === this.stored) return;
    const scope = this.scope;
    await repositoryRadarWrites.run(`${scope.projectId}\n${scope.repoKey}`, async () => {
      await db.touchedFiles.replace(this.task.id, scope, files);
      this.stored = key;
      await detectOverlaps(this.deps, this.task.id, scope);
    });
  }
}

/** Who runs a task, as a warning says it: its agent's name and its worker's host, when known. */
async function sideOf(db: Database, taskId: string): Promise<OverlapSide> {
  const task = await db.tasks.get(taskId);
  if (!task) return { id: taskId, title: taskId, agent: null, host: null };
  const [agent, workspace] = await settleAll([
    task.assignedAgent ? db.agents.get(task.assignedAgent) : null,
    task.workspaceId ? db.workspaces.get(task.workspaceId) : null,
  ]);
  const worker = workspace?.workerId ? await db.workers.get(workspace.workerId) : null;
  return { id: task.id, title: task.title, agent: agent?.name ?? task.assignedAgent ?? null, host: worker?.host ?? null };
}

async function announce(
  deps: Pick<RadarDeps, 'db' | 'events'>,
  type: 'overlap_detected' | 'overlap_cleared',
  pair: { taskA: string; taskB: string; projectId: string; files: string[]; changed?: boolean },
): Promise<void> {
  const tasks: [OverlapSide, OverlapSide] = [await sideOf(deps.db, pair.taskA), await sideOf(deps.db, pair.taskB)];
  const payload: OverlapPayload = {
    task_ids: [pair.taskA, pair.taskB],
    tasks,
    files: pair.files,
    ...(type === 'overlap_detected' && { changed: pair.changed === true }),
  };
  await deps.events.emit(type, { projectId: pair.projectId, taskId: pair.taskA, payload: { ...payload } });
}

/**
 * Compares the task's stored files with every other live task's of its repository: a new pair or
 * a changed file set is recorded and announced (overlap_detected), a pair that no longer shares a
 * file is removed and announced (overlap_cleared). Each write is keyed on the pair, so when two
 * processes see the same change only the one whose write took effect announces it.
 */
export async function detectOverlaps(deps: RadarDeps, taskId: string, scope: RepoScope): Promise<void> {
  const { db } = deps;
  const now = (deps.now ?? Date.now)();
  const shared = await db.touchedFiles.sharedWith(taskId);
  const sharing = new Set(shared.map((s) => s.taskId));
  for (const s of shared) {
    const write = await db.overlaps.record(taskId, s.taskId, scope, s.files, now);
    if (write === 'unchanged') continue;
    const [taskA, taskB] = taskId < s.taskId ? [taskId, s.taskId] : [s.taskId, taskId];
    await announce(deps, 'overlap_detected', { taskA, taskB, projectId: scope.projectId, files: s.files, changed: write === 'changed' });
  }
  for (const o of await db.overlaps.ofTask(taskId)) {
    const other = o.taskA === taskId ? o.taskB : o.taskA;
    if (sharing.has(other)) continue;
    if (await db.overlaps.clearIfDisjoint(o.taskA, o.taskB)) await announce(deps, 'overlap_cleared', o);
  }
}

/**
 * Ends the overlaps of tasks that are no longer live (completed, failed, stopped…) and forgets
 * the files those tasks touched. Cheap: it reads the overlap and touched-file rows, which only
 * live tasks have, and their tasks by key.
 */
export async function sweepSettledOverlaps(deps: Pick<RadarDeps, 'db' | 'events' | 'log'>): Promise<void> {
  try {
    for (const o of await deps.db.overlaps.settled()) {
      if (await deps.db.overlaps.clear(o.taskA, o.taskB)) await announce(deps, 'overlap_cleared', o);
    }
    await deps.db.touchedFiles.pruneSettled();
  } catch (err) {
    deps.log(`Conflict radar: clearing the overlaps of finished tasks failed: ${errorMessage(err)}`);
  }
}

/** Refreshes the touched files of each run that has a radar (a worker's heartbeat). */
export async function refreshRunRadars(runs: Iterable<{ radar?: TaskRadar | null }>): Promise<void> {
  await settleAll([...runs].map((r) => r.radar?.refresh()));
}
