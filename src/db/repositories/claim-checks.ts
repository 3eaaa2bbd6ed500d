import type { SqlEntityManager } from '@mikro-orm/sqlite';
import { RUNNING_SQL } from '../value-sets';
import { backendKeySql, taskBackendSql } from './backend-key-sql';
import { storedFlag } from './column-values';
import { GLOBAL_BUDGET_SCOPE } from './budgets';

/**
 * Why a claim that reached the database was refused by the fleet's rules. `quota_hold`: the
 * agent's backend is at a usage limit (another task of that backend waits for its reset).
 */
export type FleetRefusal = 'project_paused' | 'project_full' | 'orchestrator_paused' | 'quota_hold' | 'budget_spent' | 'dependencies_open';

/** How a pause for a usage limit with a named reset time starts its reason (scheduling.ts). */
const QUOTA_PREFIX = 'Usage limit until';

async function rows<T>(tx: SqlEntityManager, sql: string, params: unknown[]): Promise<T[]> {
  return (await tx.execute(sql, params)) as T[];
}

/**
 * The scheduler's rules, read again inside the claim's transaction. On SQLite the claim's first
 * write took the database's one write lock, so no other claim can change what is read here
 * before this one commits. On PostgreSQL they are read as committed, without a lock: the project's
 * cap is held by its slots (project_slots, taken last in the claim), and the count of running
 * tasks here only turns away early a claim that would find no free slot. One statement, so a
 * claim pays one round trip for all of them. Null when the task may start.
 */
export async function fleetRefusal(tx: SqlEntityManager, taskId: string, agentId: string, now: Date): Promise<FleetRefusal | null> {
  const at = now.getTime();
  const [task] = await rows<{
    status: string;
    max_concurrent_agents: number;
    active: number;
    open_deps: number;
    paused: unknown;
    quota_hold: unknown;
    budget_spent: unknown;
  }>(
    tx,
    `select p.status, p.max_concurrent_agents,
            (select coalesce(sum(c.n), 0) from task_status_counts c
              where c.project_id = p.id and c.status in (${RUNNING_SQL})) as active,
            (select count(*) from task_dependencies d join tasks u on u.id = d.depends_on_id
              where d.task_id = t.id and u.status <> 'COMPLETED') as open_deps,
            (select value from system_state where key = 'orchestrator_paused') as paused,
            exists (select 1 from tasks q join agents ag on ag.id = ?
                     where q.status = 'PAUSED' and q.resume_after > ? and q.pause_reason like ?
                       and ${taskBackendSql('q')} = ${backendKeySql('ag')}) as quota_hold,
            exists (select 1 from budgets b
                     where (b.project_id = t.project_id or b.scope = ?)
                       and ((b.token_limit is not null and b.token_limit <= (${USED('tokens')}))
                         or (b.cost_limit_usd is not null and b.cost_limit_usd <= (${USED('cost_usd')})))) as budget_spent
       from tasks t join projects p on p.id = t.project_id
      where t.id = ?`,
    [agentId, at, `${QUOTA_PREFIX}%`, GLOBAL_BUDGET_SCOPE, at, at, at, at, taskId],
  );
  if (!task) return null; // the state machine's move reports a missing task
  if (task.status !== 'ACTIVE') return 'project_paused';
  if (Number(task.active) >= Number(task.max_concurrent_agents)) return 'project_full';
  if (Number(task.open_deps) > 0) return 'dependencies_open';
  if (task.paused === true || task.paused === 'true' || task.paused === 1) return 'orchestrator_paused';
  if (storedFlag(task.quota_hold)) return 'quota_hold';
  return storedFlag(task.budget_spent) ? 'budget_spent' : null;
}

/** A boolean as either database returns it (PostgreSQL: true/false; SQLite: 1/0). */

/**
 * What budget `b` (of the outer query) has used of `column` over its window ending at the
 * parameter: its project's usage, or everyone's for the global budget.
 */
function USED(column: 'tokens' | 'cost_usd'): string {
  return `case when b.project_id is null
      then (select coalesce(sum(u.${column}), 0) from token_usage u where u.created_at >= ? - b.window_hours * 3600000)
      else (select coalesce(sum(u.${column}), 0) from token_usage u where u.project_id = b.project_id and u.created_at >= ? - b.window_hours * 3600000)
    end`;
}
