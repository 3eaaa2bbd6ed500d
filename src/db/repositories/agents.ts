import type { AgentState } from '../value-sets';
import type { EmFactory } from '../database';
import { pageSlice, runSql, selectAsJson } from './run-sql';

export interface AgentRecord {
  id: string;
  name: string;
  type: string;
  state: AgentState;
  currentTask: string | null;
  checkoutPath: string | null;
  repoId: string | null;
  backend: string;
  profile: string | null;
}

/** An agent's row as a plain select of AGENT_COLUMNS gives it. */
interface AgentRow {
  id: string;
  name: string;
  type: string;
  state: AgentState;
  current_task: string | null;
  checkout_path: string | null;
  repo_id: string | null;
  backend: string;
  profile: string | null;
}

function fromRow(r: AgentRow): AgentRecord {
  return {
    id: r.id,
    name: r.name,
    type: r.type,
    state: r.state,
    currentTask: r.current_task,
    checkoutPath: r.checkout_path,
    repoId: r.repo_id,
    backend: r.backend,
    profile: r.profile,
  };
}

/** An agent as selectAsJson gives it: the values of AGENT_COLUMNS, in that order. */
type AgentTuple = [
  id: string,
  name: string,
  type: string,
  state: AgentState,
  currentTask: string | null,
  checkoutPath: string | null,
  repoId: string | null,
  backend: string,
  profile: string | null,
];
const AGENT_COLUMNS = ['id', 'name', 'type', 'state', 'current_task', 'checkout_path', 'repo_id', 'backend', 'profile'];

export class AgentRepository {
  constructor(private readonly em: EmFactory) {}

  async get(id: string): Promise<AgentRecord | null> {
    // A plain select: every run start, get_task and the conflict radar look agents up one by one.
    const rows = await this.em().execute<AgentRow[]>(`select ${AGENT_COLUMNS.join(', ')} from agents where id = ?`, [id]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /** Agents, oldest first; with `page`, only that slice (see `count`). */
  async list(page?: { limit: number; offset: number }): Promise<AgentRecord[]> {
    const rows = await selectAsJson<AgentTuple>(
      this.em(),
      AGENT_COLUMNS,
      `select ${AGENT_COLUMNS.join(', ')}, created_at from agents order by created_at, id${pageSlice(page)}`,
      [],
      // Oldest first, the id compared as the database compares it.
      ['created_at', 'id'],
    );
    return rows.map(([id, name, type, state, currentTask, checkoutPath, repoId, backend, profile]) => ({
      id,
      name,
      type,
      state,
      currentTask,
      checkoutPath,
      repoId,
      backend,
      profile,
    }));
  }

  async count(): Promise<number> {
    const [row] = await this.em().execute<Array<{ n: number | string }>>('select count(*) as n from agents');
    return Number(row?.n ?? 0);
  }

  async create(data: {
    id: string;
    name: string;
    type: string;
    repoId?: string | null;
    workerId?: string | null;
    backend?: string;
    profile?: string | null;
  }): Promise<AgentRecord> {
    const agent: AgentRecord = {
      id: data.id,
      name: data.name,
      type: data.type,
      state: 'IDLE',
      currentTask: null,
      checkoutPath: null,
      repoId: data.repoId ?? null,
      backend: data.backend ?? 'claude-code',
      profile: data.profile ?? null,
    };
    await runSql(
      this.em(),
      `insert into agents (id, name, type, state, repo_id, worker_id, backend, profile, created_at)
        values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [agent.id, agent.name, agent.type, agent.state, agent.repoId, data.workerId ?? null, agent.backend, agent.profile, Date.now()],
    );
    return agent;
  }

  /** Agents with their current task, joined in one query (for status views). */
  async listWithWork(): Promise<Array<AgentRecord & { task: { id: string; title: string; projectId: string; status: string } | null }>> {
    const rows = await this.em().execute<
      Array<AgentRow & Record<'task_id' | 'task_title' | 'task_project' | 'task_status', string | null>>
    >(
      `select a.id, a.name, a.type, a.state, a.current_task, a.checkout_path, a.repo_id, a.backend, a.profile,
                t.id as task_id, t.title as task_title, t.project_id as task_project, t.status as task_status
           from agents a left join tasks t on t.id = a.current_task
          order by a.created_at, a.id`,
    );
    return rows.map((r) => ({
      ...fromRow(r),
      task: r.task_id
        ? { id: r.task_id, title: r.task_title as string, projectId: r.task_project as string, status: r.task_status as string }
        : null,
    }));
  }
}
