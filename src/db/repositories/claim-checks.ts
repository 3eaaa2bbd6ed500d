import type { SqlEntityManager } from '@mikro-orm/sqlite';
import { dialectOf } from '../dialect';
import { GLOBAL_BUDGET_SCOPE } from './budgets';

/** Why a claim that reached the database was refused by the fleet's rules. */
export type FleetRefusal = 'project_paused' | 'project_full' | 'orchestrator_paused' | 'quota_hold' | 'budget_spent' | 'dependencies_open';

/** How a pause for a usage limit with a named reset time starts its reason (scheduling.ts). */
const QUOTA_PREFIX = 'Usage limit until';

/** Whether the connection behind `em` is PostgreSQL (row locks) rather than SQLite (one writer). */
export function isPostgres(em: SqlEntityManager): boolean {
  return dialectOf(em).name === 'postgresql';
}

async function rows<T>(tx: SqlEntityManager, sql: string, params: unknown[]): Promise<T[]> {
  return (await tx.execute(sql, params)) as T[];
}

/**
 * The scheduler's rules, read again inside the claim's transaction: on SQLite after the claim's
 * first write took the database's one write lock, on PostgreSQL after the project's row is locked
 * (FOR NO KEY UPDATE), so no other claim can change what is read here before this one commits. Null
 * when the task may start.
 */
export async function fleetRefusal(tx: SqlEntityManager, taskId: string, now: Date): Promise<FleetRefusal | null> {
  const [task] = await rows<{ project_id: string; status: string; max_concurrent_agents: number; active: number; open_deps: number }>(
    tx,
    `select t.project_id, p.status, p.max_concurrent_agents,
            (select coalesce(sum(c.n), 0) from task_status_counts c
              where c.project_id = p.id and c.status in ('ASSIGNED', 'IN_PROGRESS', 'WAITING_INPUT')) as active,
            (select count(*) from task_dependencies d join tasks u on u.id = d.depends_on_id
              where d.task_id = t.id and u.status <> 'COMPLETED') as open_deps
       from tasks t join projects p on p.id = t.project_id
      where t.id = ?`,
    [taskId],
  );
  if (!task) return null; // the state machine's move reports a missing task
  if (task.status !== 'ACTIVE') return 'project_paused';
  if (Number(task.active) >= Number(task.max_concurrent_agents)) return 'project_full';
  if (Number(task.open_deps) > 0) return 'dependencies_open';
  const [paused] = await rows<{ value: unknown }>(tx, "select value from system_state where key = 'orchestrator_paused'", []);
  if (paused && (paused.value === true || paused.value === 'true' || paused.value === 1)) return 'orchestrator_paused';
  const hold = await rows<{ id: string }>(
    tx,
    "select id from tasks where status = 'PAUSED' and resume_after > ? and pause_reason like ? limit 1",
    [now.getTime(), `${QUOTA_PREFIX}%`],
  );
  if (hold.length > 0) return 'quota_hold';
  return (await budgetSpent(tx, task.project_id, now)) ? 'budget_spent' : null;
}

/** Whether the project's budget or the global one is used up over its window. */
async function budgetSpent(tx: SqlEntityManager, projectId: string, now: Date): Promise<boolean> {
  const budgets = await rows<{
    project_id: string | null;
    token_limit: number | null;
    cost_limit_usd: number | null;
    window_hours: number;
  }>(tx, 'select project_id, token_limit, cost_limit_usd, window_hours from budgets where project_id = ? or scope = ?', [
    projectId,
    GLOBAL_BUDGET_SCOPE,
  ]);
  for (const b of budgets) {
    const since = now.getTime() - Number(b.window_hours) * 3600_000;
    const scoped = b.project_id !== null;
    const [used] = await rows<{ tokens: number | null; cost: number | null }>(
      tx,
      `select sum(tokens) as tokens, sum(cost_usd) as cost from token_usage where ${scoped ? 'project_id = ? and ' : ''}created_at >= ?`,
      scoped ? [projectId, since] : [since],
    );
    if (b.token_limit !== null && Number(used?.tokens ?? 0) >= Number(b.token_limit)) return true;
    if (b.cost_limit_usd !== null && Number(used?.cost ?? 0) >= Number(b.cost_limit_usd)) return true;
  }
  return false;
}
