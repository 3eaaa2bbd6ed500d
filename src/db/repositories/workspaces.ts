import type { RepoSourceType } from '../value-sets';
import type { EmFactory } from '../database';
import { storedDate } from './column-values';
import { changes, oldestFirst } from './run-sql';

/** A plain statement (each landing run frees its workspace; the ORM's update cost about 2 ms of CPU). */
const UNLOCK = 'update workspaces set locked_by_task_id = null, locked_by_agent_id = null, locked_at = null';

export interface WorkspaceRecord {
  id: string;
  projectId: string;
  name: string;
  path: string;
  sourceType: RepoSourceType;
  repoId: string | null;
  lockedByTaskId: string | null;
  lockedByAgentId: string | null;
  lockedAt: Date | null;
  /** The worker that owns the checkout; null for the app's own. */
  workerId: string | null;
}

/** A workspace's row as a plain select of WORKSPACE_COLUMNS gives it. */
interface WorkspaceRow {
  id: string;
  project_id: string;
  name: string;
  path: string;
  source_type: RepoSourceType;
  repo_id: string | null;
  locked_by_task_id: string | null;
  locked_by_agent_id: string | null;
  locked_at: number | null;
  worker_id: string | null;
}

const WORKSPACE_COLUMNS = 'id, project_id, name, path, source_type, repo_id, locked_by_task_id, locked_by_agent_id, locked_at, worker_id';

function fromRow(r: WorkspaceRow): WorkspaceRecord {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    path: r.path,
    sourceType: r.source_type,
    repoId: r.repo_id,
    lockedByTaskId: r.locked_by_task_id,
    lockedByAgentId: r.locked_by_agent_id,
    lockedAt: storedDate(r.locked_at),
    workerId: r.worker_id,
  };
}

/** Plain statements: every run start and landing looks its workspace up. */
export class WorkspaceRepository {
  constructor(private readonly em: EmFactory) {}

  async get(id: string): Promise<WorkspaceRecord | null> {
    return this.one('id = ?', [id]);
  }

  /** Workspaces, oldest first; with `page`, only that slice (see `count`). */
  async list(projectId?: string, page?: { limit: number; offset: number }): Promise<WorkspaceRecord[]> {
    const rows = await oldestFirst<WorkspaceRow>(
      this.em(),
      { table: 'workspaces', columns: WORKSPACE_COLUMNS },
      projectId ? 'project_id = ?' : '',
      projectId ? [projectId] : [],
      page,
    );
    return rows.map(fromRow);
  }

  async count(projectId?: string): Promise<number> {
    const [row] = await this.em().execute<Array<{ n: number | string }>>(
      `select count(*) as n from workspaces${projectId ? ' where project_id = ?' : ''}`,
      projectId ? [projectId] : [],
    );
    return Number(row?.n ?? 0);
  }

  /** A project's workspace by name, then by id. */
  async findInProject(projectId: string, nameOrId: string): Promise<WorkspaceRecord | null> {
    return (
      (await this.one('project_id = ? and name = ?', [projectId, nameOrId])) ??
      (await this.one('project_id = ? and id = ?', [projectId, nameOrId]))
    );
  }

  private async one(where: string, params: unknown[]): Promise<WorkspaceRecord | null> {
    const rows = await this.em().execute<WorkspaceRow[]>(`select ${WORKSPACE_COLUMNS} from workspaces where ${where}`, params);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async create(
    data: Pick<WorkspaceRecord, 'id' | 'projectId' | 'name' | 'path' | 'sourceType' | 'repoId'> & { workerId?: string | null },
  ): Promise<WorkspaceRecord> {
    const workspace: WorkspaceRecord = {
      id: data.id,
      projectId: data.projectId,
      name: data.name,
      path: data.path,
      sourceType: data.sourceType,
      repoId: data.repoId,
      lockedByTaskId: null,
      lockedByAgentId: null,
      lockedAt: null,
      workerId: data.workerId ?? null,
    };
    await changes(
      this.em(),
      'insert into workspaces (id, project_id, name, path, source_type, repo_id, worker_id, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
      [
        workspace.id,
        workspace.projectId,
        workspace.name,
        workspace.path,
        workspace.sourceType,
        workspace.repoId,
        workspace.workerId,
        Date.now(),
      ],
    );
    return workspace;
  }

  async delete(id: string): Promise<boolean> {
    return (await changes(this.em(), 'delete from workspaces where id = ?', [id])) > 0;
  }

  /**
   * Locks the workspace for a task if nobody holds it and no other workspace row with the same
   * path is locked (compare-and-set, so two processes cannot both win).
   */
  async acquire(id: string, taskId: string, agentId: string | null): Promise<boolean> {
    const changed = await changes(
      this.em(),
      `update workspaces set locked_by_task_id = ?, locked_by_agent_id = ?, locked_at = ?
          where id = ? and locked_by_task_id is null
            and not exists (select 1 from workspaces other
                             where other.path = workspaces.path and other.id <> workspaces.id
                               and other.locked_by_task_id is not null)`,
      [taskId, agentId, new Date(), id],
    );
    return changed > 0;
  }

  /** Releases the lock a task holds (or any lock on `id` when taskId is null). */
  async release(id: string, taskId: string | null = null): Promise<boolean> {
    const where = taskId ? 'id = ? and locked_by_task_id = ?' : 'id = ?';
    return (await changes(this.em(), `${UNLOCK} where ${where}`, taskId ? [id, taskId] : [id])) > 0;
  }

  async releaseByTask(taskId: string): Promise<number> {
    return changes(this.em(), `${UNLOCK} where locked_by_task_id = ?`, [taskId]);
  }
}
