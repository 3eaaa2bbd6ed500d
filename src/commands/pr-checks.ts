import type { CheckCounts } from '../git/forges/forge';
import { prChecksByTask } from '../orchestrator/pr-follower';
import type { CommandContext } from './catalog';

/** A PR/MR's checks in one word and counts: failing wins over pending, pending over passing. */
export function prChecksView(c: CheckCounts) {
  const state = c.failing > 0 ? 'failing' : c.pending > 0 ? 'pending' : c.passing > 0 ? 'passing' : 'none';
  return { state, passing: c.passing, failing: c.failing, pending: c.pending };
}

export type PrChecksView = ReturnType<typeof prChecksView>;

/**
 * The pr_checks key of get_task and get_merge_queue, for each of `taskIds` whose PR/MR waits and
 * whose checks the PR follower has seen; a task without gets nothing.
 */
export async function prChecksKeys(ctx: CommandContext, taskIds: string[]): Promise<Map<string, { pr_checks?: PrChecksView }>> {
  const known = await prChecksByTask(ctx.db);
  return new Map(
    taskIds.map((id) => {
      const checks = known.get(id);
      return [id, checks ? { pr_checks: prChecksView(checks) } : {}];
    }),
  );
}
