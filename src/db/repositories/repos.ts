import { Repo, type RepoSourceType } from '../entities';
import type { EmFactory } from '../database';

export interface RepoRecord {
  id: string;
  projectId: string;
  name: string;
  sourceType: RepoSourceType;
  url: string | null;
  sourcePath: string | null;
  defaultBranch: string;
  checkoutBasePath: string | null;
}

function toRepoRecord(r: Repo): RepoRecord {
  return {
    id: r.id,
    projectId: r.project.id,
    name: r.name,
    sourceType: r.sourceType,
    url: r.url ?? null,
    sourcePath: r.sourcePath ?? null,
    defaultBranch: r.defaultBranch,
    checkoutBasePath: r.checkoutBasePath ?? null,
  };
}

export class RepoRepository {
  constructor(private readonly em: EmFactory) {}

  async get(id: string): Promise<RepoRecord | null> {
    const r = await this.em().findOne(Repo, { id });
    return r ? toRepoRecord(r) : null;
  }

  /** Repos, oldest first; with `page`, only that slice (see `count`). */
  async list(projectId?: string, page?: { limit: number; offset: number }): Promise<RepoRecord[]> {
    const rows = await this.em().find(Repo, projectId ? { project: projectId } : {}, { orderBy: { createdAt: 'asc', id: 'asc' }, ...page });
    return rows.map(toRepoRecord);
  }

  /** The repos of several projects in one statement, in the order `list` gives each project's. */
  async listOfProjects(projectIds: string[]): Promise<RepoRecord[]> {
    if (projectIds.length === 0) return [];
    const rows = await this.em().find(Repo, { project: { $in: projectIds } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return rows.map(toRepoRecord);
  }

  async count(projectId?: string): Promise<number> {
    return this.em().count(Repo, projectId ? { project: projectId } : {});
  }

  async create(data: Omit<RepoRecord, 'checkoutBasePath'> & { checkoutBasePath: string | null }): Promise<RepoRecord> {
    const em = this.em();
    const repo = em.create(Repo, {
      id: data.id,
      project: data.projectId,
      name: data.name,
      sourceType: data.sourceType,
      url: data.url,
      sourcePath: data.sourcePath,
      defaultBranch: data.defaultBranch,
      checkoutBasePath: data.checkoutBasePath,
    });
    await em.flush();
    return toRepoRecord(repo);
  }

  /** Source paths of every repo that has one (path validation allows them). */
  async sourcePaths(): Promise<string[]> {
    const rows = await this.em()
      .getConnection()
      .execute<Array<{ source_path: string }>>('select distinct source_path from repos where source_path is not null');
    return rows.map((r) => r.source_path);
  }
}
