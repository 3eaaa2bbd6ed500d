import { Workspace, type RepoSourceType } from '../entities';
import type { EmFactory } from '../database';
import { changes } from './run-sql';

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

function toWorkspaceRecord(w: Workspace): WorkspaceRecord {
  return {
    id: w.id,
    projectId: w.project.id,
    name: w.name,
    path: w.path,
    sourceType: w.sourceType,
    repoId: w.repoId ?? null,
    lockedByTaskId: w.lockedByTaskId ?? null,
    lockedByAgentId: w.lockedByAgentId ?? null,
    lockedAt: w.lockedAt ?? null,
    workerId: w.workerId ?? null,
  };
}

export class WorkspaceRepository {
  constructor(private readonly em: EmFactory) {}

  async get(id: string): Promise<WorkspaceRecord | null> {
    const w = await this.em().findOne(Workspace, { id });
    return w ? toWorkspaceRecord(w) : null;
  }

  /** Workspaces, oldest first; with `page`, only that slice (see `count`). */
  async list(projectId?: string, page?: { limit: number; offset: number }): Promise<WorkspaceRecord[]> {
    const rows = await this.em().find(Workspace, projectId ? { project: projectId } : {}, {
      orderBy: { createdAt: 'asc', id: 'asc' },
      ...page,
    });
    return rows.map(toWorkspaceRecord);
  }

  async count(projectId?: string): Promise<number> {
    return this.em().count(Workspace, projectId ? { project: projectId } : {});
  }

  /** A project's workspace by name, then by id. */
  async findInProject(projectId: string, nameOrId: string): Promise<WorkspaceRecord | null> {
    const em = this.em();
    const w =
      (await em.findOne(Workspace, { project: projectId, name: nameOrId })) ??
      (await em.findOne(Workspace, { project: projectId, id: nameOrId }));
    return w ? toWorkspaceRecord(w) : null;
  }

  async create(
    data: Pick<WorkspaceRecord, 'id' | 'projectId' | 'name' | 'path' | 'sourceType' | 'repoId'> & { workerId?: string | null },
  ): Promise<WorkspaceRecord> {
    const em = this.em();
    const w = em.create(Workspace, {
      id: data.id,
      project: data.projectId,
      name: data.name,
      path: data.path,
      sourceType: data.sourceType,
      repoId: data.repoId,
      workerId: data.workerId ?? null,
    });
    await em.flush();
    return toWorkspaceRecord(w);
  }

  async delete(id: string): Promise<boolean> {
    return (await this.em().nativeDelete(Workspace, { id })) > 0;
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
