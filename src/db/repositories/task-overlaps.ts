import type { EmFactory } from '../database';
import type { RepoScope } from './touched-files';
import { liveTaskSql } from './touched-files';
import { runSql } from './run-sql';

/** Two live tasks of one repository that touched the same files (task_a < task_b). */
export interface OverlapRecord {
  taskA: string;
  taskB: string;
  projectId: string;
  repoKey: string;
  files: string[];
  detectedAt: number;
  updatedAt: number;
}

/** What a write of an overlap did: nothing (another process wrote the same), a new pair, or new files. */
export type OverlapWrite = 'unchanged' | 'detected' | 'changed';

/** The pair's key: the two task ids in order, so (x, y) and (y, x) are one row. */
export function overlapPair(one: string, other: string): [string, string] {
  return one < other ? [one, other] : [other, one];
}

function parseFiles(raw: unknown): string[] {
  try {
    const parsed = JSON.parse(String(raw ?? '[]')) as unknown;
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

function toRecord(r: Record<string, unknown>): OverlapRecord {
  return {
    taskA: String(r.task_a),
    taskB: String(r.task_b),
    projectId: String(r.project_id),
    repoKey: String(r.repo_key),
    files: parseFiles(r.files),
    detectedAt: Number(r.detected_at),
    updatedAt: Number(r.updated_at),
  };
}

const COLUMNS = 'task_a, task_b, project_id, repo_key, files, detected_at, updated_at';

/**
 * Overlaps as the radar last saw them (task_overlaps). Each write is one statement keyed on the
 * pair, and its row count says whether it changed anything: of several processes that see the
 * same overlap, exactly one learns it is new (and announces it).
 */
export class TaskOverlapRepository {
  constructor(private readonly em: EmFactory) {}

  /** Records the pair's shared files: new, changed, or (the same files already stored) unchanged. */
  async record(one: string, other: string, scope: RepoScope, files: string[], now: number): Promise<OverlapWrite> {
    const [a, b] = overlapPair(one, other);
    const json = JSON.stringify(files);
    const em = this.em();
    const inserted = await runSql(
      em,
      `insert into task_overlaps (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?) on conflict (task_a, task_b) do nothing`,
      [a, b, scope.projectId, scope.repoKey, json, now, now],
    );
    if (inserted.changes > 0) return 'detected';
    const updated = await runSql(em, 'update task_overlaps set files = ?, updated_at = ? where task_a = ? and task_b = ? and files <> ?', [
      json,
      now,
      a,
      b,
      json,
    ]);
    return updated.changes > 0 ? 'changed' : 'unchanged';
  }

  /** Removes the pair; true for the one caller that removed it. */
  async clear(one: string, other: string): Promise<boolean> {
    const [a, b] = overlapPair(one, other);
    return (await runSql(this.em(), 'delete from task_overlaps where task_a = ? and task_b = ?', [a, b])).changes > 0;
  }

  /**
   * Removes the pair only while the two tasks' stored files share no path; true for the one caller
   * that removed it. A radar whose view of the other task is older than the pair's row (the other
   * side stored its files and recorded the pair meanwhile) must not withdraw a live overlap.
   */
  async clearIfDisjoint(one: string, other: string): Promise<boolean> {
    const [a, b] = overlapPair(one, other);
    return (
      (
        await runSql(
          this.em(),
          `delete from task_overlaps where task_a = ? and task_b = ?
             and not exists (select 1 from task_touched_files fa join task_touched_files fb
                                on fb.project_id = fa.project_id and fb.repo_key = fa.repo_key and fb.path = fa.path
                              where fa.task_id = ? and fb.task_id = ?)`,
          [a, b, a, b],
        )
      ).changes > 0
    );
  }

  /** Every stored overlap the task is part of. */
  async ofTask(taskId: string): Promise<OverlapRecord[]> {
    const rows = (await this.em().execute(`select ${COLUMNS} from task_overlaps where task_a = ? or task_b = ? order by task_a, task_b`, [
      taskId,
      taskId,
    ])) as Array<Record<string, unknown>>;
    return rows.map(toRecord);
  }

  /** Overlaps one of whose tasks is no longer live: they ended with it. */
  async settled(): Promise<OverlapRecord[]> {
    const rows = (await this.em().execute(
      `select ${COLUMNS} from task_overlaps o
          where exists (select 1 from tasks t where t.id in (o.task_a, o.task_b) and not ${liveTaskSql('t')})
          order by task_a, task_b`,
    )) as Array<Record<string, unknown>>;
    return rows.map(toRecord);
  }

  /** Live overlaps, of one project (and repository key) or of all, oldest first. */
  async list(filter: { projectId?: string; repoKey?: string } = {}): Promise<OverlapRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.projectId) {
      where.push('project_id = ?');
      params.push(filter.projectId);
    }
    if (filter.repoKey !== undefined) {
      where.push('repo_key = ?');
      params.push(filter.repoKey);
    }
    const rows = (await this.em().execute(
      `select ${COLUMNS} from task_overlaps ${where.length ? `where ${where.join(' and ')}` : ''} order by detected_at, task_a, task_b`,
      params,
    )) as Array<Record<string, unknown>>;
    return rows.map(toRecord);
  }
}
