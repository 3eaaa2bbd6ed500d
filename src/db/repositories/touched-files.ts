import type { EmFactory } from '../database';
import { retryingTransaction } from '../retrying-transaction';
import { placeholders, readInBatches } from './run-sql';

/**
 * Statuses of a task whose branch is still to land: claimed or running, waiting for a person,
 * or done and waiting for approval. The radar compares only these.
 */
export const LIVE_TASK_STATUSES = ['ASSIGNED', 'IN_PROGRESS', 'WAITING_INPUT', 'AWAITING_APPROVAL'] as const;

export const LIVE_STATUS_SQL = LIVE_TASK_STATUSES.map((s) => `'${s}'`).join(', ');

/**
 * SQL that is true for a live task row `alias`: live by its status, or sent back by the merge
 * train (READY again for its follow-up, its branch still to land), whose overlaps still stand.
 */
export function liveTaskSql(alias: string): string {
  return `(${alias}.status in (${LIVE_STATUS_SQL}) or exists (select 1 from merge_train mt where mt.task_id = ${alias}.id))`;
}

/** Which repository a task's files belong to: tasks of one project and one repo key share files. */
export interface RepoScope {
  projectId: string;
  /** The repo id of the task's workspace, or '' for the project's own checkout. */
  repoKey: string;
}

/** A live task that touched some of the same files as another, with those files. */
export interface SharedFiles {
  taskId: string;
  files: string[];
}

/** The files each live task's workspace touched, replaced whole on each refresh (task_touched_files). */
export class TouchedFileRepository {
  constructor(private readonly em: EmFactory) {}

  /** Replaces the task's touched files with `files` (already normalised and sorted). */
  async replace(taskId: string, scope: RepoScope, files: string[]): Promise<void> {
    await retryingTransaction(this.em, async (em) => {
      await em.execute('delete from task_touched_files where task_id = ?', [taskId], 'run');
      // A few hundred rows per statement keeps every driver's parameter limit far away.
      for (let at = 0; at < files.length; at += 200) {
        const chunk = files.slice(at, at + 200);
        await em.execute(
          `insert into task_touched_files (task_id, path, project_id, repo_key) values ${chunk.map(() => '(?, ?, ?, ?)').join(', ')}`,
          chunk.flatMap((f) => [taskId, f, scope.projectId, scope.repoKey]),
          'run',
        );
      }
    });
  }

  async list(taskId: string): Promise<string[]> {
    const rows = (await this.em().execute('select path from task_touched_files where task_id = ? order by path', [taskId])) as Array<{
      path: string;
    }>;
    return rows.map((r) => String(r.path));
  }

  /** The other live tasks of the task's repository that touched any of its files, with the shared files. */
  async sharedWith(taskId: string): Promise<SharedFiles[]> {
    const rows = (await this.em().execute(
      `select other.task_id as task_id, other.path as path
           from task_touched_files mine
           join task_touched_files other
             on other.project_id = mine.project_id and other.repo_key = mine.repo_key and other.path = mine.path
                and other.task_id <> mine.task_id
           join tasks t on t.id = other.task_id
          where mine.task_id = ? and ${liveTaskSql('t')}
          order by other.task_id, other.path`,
      [taskId],
    )) as Array<{ task_id: string; path: string }>;
    const byTask = new Map<string, string[]>();
    for (const r of rows) byTask.set(String(r.task_id), [...(byTask.get(String(r.task_id)) ?? []), String(r.path)]);
    return [...byTask].map(([id, files]) => ({ taskId: id, files }));
  }

  /**
   * Live tasks of the projects that touched any of `paths` in the workspace they run in, one row
   * per file, ordered by task and path (for serialize: what READY tasks would collide with).
   */
  async touchingAny(projectIds: string[], paths: string[]): Promise<Array<{ projectId: string; taskId: string; path: string }>> {
    if (projectIds.length === 0) return [];
    const em = this.em();
    const projects = placeholders(projectIds);
    const rows = await readInBatches(paths, (batch, marks) =>
      em.execute<Array<{ project_id: string; task_id: string; path: string }>>(
        `select f.project_id as project_id, f.task_id as task_id, f.path as path
           from task_touched_files f join tasks t on t.id = f.task_id
          where f.project_id in (${projects}) and f.path in (${marks}) and ${liveTaskSql('t')}`,
        [...projectIds, ...batch],
      ),
    );
    // Ordered by task and path here, the same on both databases, however many batches.
    const byKey = (a: { taskId: string; path: string }, b: { taskId: string; path: string }) =>
      a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
    return rows.map((r) => ({ projectId: String(r.project_id), taskId: String(r.task_id), path: String(r.path) })).sort(byKey);
  }

  /** Forgets the files of tasks that are no longer live (what they touched no longer matters). */
  async pruneSettled(): Promise<number> {
    const result = (await this.em().execute(
      // From the few touched-file rows to their tasks by key: never a scan of tasks.
      `delete from task_touched_files
          where exists (select 1 from tasks t where t.id = task_touched_files.task_id and not ${liveTaskSql('t')})`,
      [],
      'run',
    )) as { affectedRows?: number };
    return Number(result.affectedRows ?? 0);
  }
}
