import { Project, type LandingMode, type OverlapPolicy, type ProjectStatus, type TaskRoomsSetting } from '../entities';
import type { EmFactory } from '../database';
import { retryingTransaction } from '../retrying-transaction';

export interface ProjectRecord {
  id: string;
  name: string;
  status: ProjectStatus;
  creditWeight: number;
  maxConcurrentAgents: number;
  workspace: string;
  chatChannelId: string | null;
  budgetLimit: number | null;
  approvalsByRequester: boolean;
  taskRooms: TaskRoomsSetting;
  overlapPolicy: OverlapPolicy;
  checkCommand: string;
  checkTimeoutSeconds: number;
  landing: LandingMode;
  landingTries: number;
  /** Backends its tasks may use, in order of preference; null: any. */
  backends: string[] | null;
  createdAt: Date;
}

export function toProjectRecord(p: Project): ProjectRecord {
  return {
    id: p.id,
    name: p.name,
    status: p.status,
    creditWeight: p.creditWeight,
    maxConcurrentAgents: p.maxConcurrentAgents,
    workspace: p.workspace,
    chatChannelId: p.chatChannelId ?? null,
    budgetLimit: p.budgetLimit ?? null,
    approvalsByRequester: p.approvalsByRequester,
    taskRooms: p.taskRooms,
    overlapPolicy: p.overlapPolicy,
    checkCommand: p.checkCommand,
    checkTimeoutSeconds: p.checkTimeoutSeconds,
    landing: p.landing,
    landingTries: p.landingTries,
    backends: p.backends ?? null,
    createdAt: p.createdAt,
  };
}

export type ProjectUpdate = Partial<
  Pick<
    ProjectRecord,
    | 'name'
    | 'status'
    | 'creditWeight'
    | 'maxConcurrentAgents'
    | 'chatChannelId'
    | 'budgetLimit'
    | 'approvalsByRequester'
    | 'taskRooms'
    | 'overlapPolicy'
    | 'checkCommand'
    | 'checkTimeoutSeconds'
    | 'landing'
    | 'landingTries'
    | 'backends'
  >
>;

export class ProjectRepository {
  constructor(private readonly em: EmFactory) {}

  async get(id: string): Promise<ProjectRecord | null> {
    const p = await this.em().findOne(Project, { id });
    return p ? toProjectRecord(p) : null;
  }

  /** Projects, oldest first; with `page`, only that slice (see `count`). */
  async list(page?: { limit: number; offset: number }): Promise<ProjectRecord[]> {
    const rows = await this.em().find(Project, {}, { orderBy: { createdAt: 'asc', id: 'asc' }, ...page });
    return rows.map(toProjectRecord);
  }

  async count(): Promise<number> {
    return this.em().count(Project, {});
  }

  async create(data: Pick<ProjectRecord, 'id' | 'name' | 'workspace'> & ProjectUpdate): Promise<ProjectRecord> {
    const em = this.em();
    const project = em.create(Project, {
      id: data.id,
      name: data.name,
      workspace: data.workspace,
      ...(data.creditWeight !== undefined && { creditWeight: data.creditWeight }),
      ...(data.maxConcurrentAgents !== undefined && { maxConcurrentAgents: data.maxConcurrentAgents }),
      ...(data.chatChannelId !== undefined && { chatChannelId: data.chatChannelId }),
      ...(data.budgetLimit !== undefined && { budgetLimit: data.budgetLimit }),
      ...(data.approvalsByRequester !== undefined && { approvalsByRequester: data.approvalsByRequester }),
      ...(data.taskRooms !== undefined && { taskRooms: data.taskRooms }),
      ...(data.overlapPolicy !== undefined && { overlapPolicy: data.overlapPolicy }),
      ...(data.checkCommand !== undefined && { checkCommand: data.checkCommand }),
      ...(data.checkTimeoutSeconds !== undefined && { checkTimeoutSeconds: data.checkTimeoutSeconds }),
      ...(data.landing !== undefined && { landing: data.landing }),
      ...(data.landingTries !== undefined && { landingTries: data.landingTries }),
      ...(data.backends !== undefined && { backends: data.backends }),
    });
    await em.flush();
    return toProjectRecord(project);
  }

  /** Applies the update; returns null when the project does not exist. */
  async update(id: string, changes: ProjectUpdate): Promise<ProjectRecord | null> {
    const em = this.em();
    const project = await em.findOne(Project, { id });
    if (!project) return null;
    em.assign(project, changes);
    await em.flush();
    return toProjectRecord(project);
  }

  async findByChannel(channelId: string): Promise<ProjectRecord | null> {
    const p = await this.em().findOne(Project, { chatChannelId: channelId }, { orderBy: { createdAt: 'asc' } });
    return p ? toProjectRecord(p) : null;
  }

  /** Deletes the project; foreign keys cascade to its tasks, repos, workspaces and hooks. */
  async delete(id: string): Promise<boolean> {
    return retryingTransaction(this.em, async (em) => {
      // Rows that reference the project without a foreign key are removed explicitly.
      await em.execute('delete from token_usage where project_id = ?', [id]);
      await em.execute(
        "update agents set current_task = null, state = case when state = 'BUSY' then 'IDLE' else state end where current_task in (select id from tasks where project_id = ?)",
        [id],
      );
      await em.execute('update agents set repo_id = null where repo_id in (select id from repos where project_id = ?)', [id]);
      const deleted = await em.nativeDelete(Project, { id });
      return deleted > 0;
    });
  }
}
