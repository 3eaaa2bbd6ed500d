import type { RepoSourceType } from '../value-sets';
import type { EmFactory } from '../database';
import { changes as changedRows, oldestFirst, readInBatches } from './run-sql';

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

/** A repos row as both databases return it. */
interface RepoRow {
  id: string;
  project_id: string;
  name: string;
  source_type: RepoSourceType;
  url: string | null;
  source_path: string | null;
  default_branch: string;
  checkout_base_path: string | null;
}

const REPO_COLUMNS = 'id, project_id, name, source_type, url, source_path, default_branch, checkout_base_path';

function fromRow(r: RepoRow): RepoRecord {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    sourceType: r.source_type,
    url: r.url ?? null,
    sourcePath: r.source_path ?? null,
    defaultBranch: r.default_branch,
    checkoutBasePath: r.checkout_base_path ?? null,
  };
}

/**
 * Repositories of projects. Reads are plain statements: the ORM's find cost about five times as
 * much for these few rows, and the waiting reasons read them on every get_status.
 */
export class RepoRepository {
  constructor(private readonly em: EmFactory) {}

  private async query(where: string, params: unknown[], page?: { limit: number; offset: number }): Promise<RepoRecord[]> {
    return (await oldestFirst<RepoRow>(this.em(), { table: 'repos', columns: REPO_COLUMNS }, where, params, page)).map(fromRow);
  }

  async get(id: string): Promise<RepoRecord | null> {
    return (await this.query('id = ?', [id]))[0] ?? null;
  }

  /** Repos, oldest first; with `page`, only that slice (see `count`). */
  async list(projectId?: string, page?: { limit: number; offset: number }): Promise<RepoRecord[]> {
    return projectId ? this.query('project_id = ?', [projectId], page) : this.query('', [], page);
  }

  /** The repos of several projects in one statement, in the order `list` gives each project's. */
  async listOfProjects(projectIds: string[]): Promise<RepoRecord[]> {
    return readInBatches(projectIds, (batch, marks) => this.query(`project_id in (${marks})`, batch));
  }

  async count(projectId?: string): Promise<number> {
    const [row] = await this.em().execute<Array<{ n: number | string }>>(
      `select count(*) as n from repos${projectId ? ' where project_id = ?' : ''}`,
      projectId ? [projectId] : [],
    );
    return Number(row?.n ?? 0);
  }

  async create(data: RepoRecord): Promise<RepoRecord> {
    await changedRows(this.em(), `insert into repos (${REPO_COLUMNS}, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      data.id,
      data.projectId,
      data.name,
      data.sourceType,
      data.url,
      data.sourcePath,
      data.defaultBranch,
      data.checkoutBasePath,
      Date.now(),
    ]);
    return { ...data };
  }

  /** Source paths of every repo that has one (path validation allows them). */
  async sourcePaths(): Promise<string[]> {
    const rows = await this.em().execute<Array<{ source_path: string }>>(
      'select distinct source_path from repos where source_path is not null',
    );
    return rows.map((r) => r.source_path);
  }
}
