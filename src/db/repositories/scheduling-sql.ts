import { RUNNING_SQL } from '../value-sets';
import { backendKeySql, taskBackendSql } from './backend-key-sql';
import type { SchedulingProjectRow } from './scheduling';

/*
 * The small-table reads a scheduling pass makes (projects, agents per backend, active counts,
 * workspaces, quota holds) and their row mappings: SchedulingRepository runs them one by one for
 * the scheduler, and together in one union for the waiting reasons (waitingContext).
 */

function jsonList(value: unknown): string[] | null {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(parsed) && parsed.length > 0 ? parsed.map(String) : null;
}

export const PROJECTS_SQL =
  'select id, status, credit_weight, max_concurrent_agents, budget_limit, workspace, backends, overlap_policy from projects';

export function projectRow(r: Record<string, unknown>): SchedulingProjectRow {
  return {
    id: String(r.id),
    status: r.status as 'ACTIVE' | 'PAUSED',
    creditWeight: Number(r.credit_weight),
    maxConcurrentAgents: Number(r.max_concurrent_agents),
    budgetLimit: r.budget_limit === null || r.budget_limit === undefined ? null : Number(r.budget_limit),
    workspace: String(r.workspace),
    backends: jsonList(r.backends),
    serializesOverlaps: r.overlap_policy === 'serialize',
  };
}

export const ACTIVE_COUNTS_SQL = `select project_id, sum(n) as n from task_status_counts where status in (${RUNNING_SQL}) group by project_id having sum(n) > 0`;

export const AGENT_BACKENDS_SQL = `select ${backendKeySql('a')} as "key", count(*) as total,
        sum(case when a.state = 'IDLE' and a.current_task is null then 1 else 0 end) as idle
   from agents a group by ${backendKeySql('a')}`;

/** Workspaces with whether another workspace on the same path is locked (1/0 on both databases). */
export const workspacesSql = (ownerSql: string) => `select w.id, w.project_id, w.locked_by_task_id,
        case when exists (select 1 from workspaces o where o.path = w.path and o.id <> w.id and o.locked_by_task_id is not null) then 1 else 0 end as path_locked
   from workspaces w where 1 = 1${ownerSql}`;

export interface SchedulingWorkspaces {
  available: Record<string, string[]>;
  locked: string[];
  projectsWithAny: Set<string>;
  total: Record<string, number>;
}

export function workspaceSets(
  rows: Array<{ id: string; project_id: string; locked_by_task_id: string | null; path_locked: number | string }>,
): SchedulingWorkspaces {
  const available: Record<string, string[]> = {};
  const locked: string[] = [];
  const projectsWithAny = new Set<string>();
  const total: Record<string, number> = {};
  for (const r of rows) {
    projectsWithAny.add(r.project_id);
    total[r.project_id] = (total[r.project_id] ?? 0) + 1;
    if (r.locked_by_task_id || Number(r.path_locked)) locked.push(r.id);
    else {
      available[r.project_id] ??= [];
      available[r.project_id].push(r.id);
    }
  }
  return { available, locked, projectsWithAny, total };
}

/** Per backend, the earliest reset named by a task waiting on its usage limit (params: now, prefix). */
export const QUOTA_HOLDS_SQL = `select ${taskBackendSql('t')} as backend, min(t.resume_after) as "until" from tasks t
  where t.status = 'PAUSED' and t.resume_after > ? and t.pause_reason like ?
  group by ${taskBackendSql('t')}`;
