import { Database } from '../src/db/database';
import type { DatabaseTarget } from '../src/db/orm';
import { TaskStateMachine } from '../src/orchestrator/state-machine';
import { claimLaunch } from '../src/orchestrator/task-moves';

/**
 * One claimer process of the fleet bench (fleet-bench.ts starts eight): for `ms` milliseconds it
 * claims a READY task among the first few in queue order with its one agent and workspace, runs
 * it instantly (AGENT_STARTED, AGENT_COMPLETED through the run's fenced moves) and frees both,
 * then claims again. Prints `{claims, refused, ms, cpuMs}` as JSON (cpuMs: this process's CPU over the loop).
 */
async function main(): Promise<void> {
  const [target, worker, ms] = [JSON.parse(process.argv[2]) as DatabaseTarget, process.argv[3], Number(process.argv[4])];
  const db = await Database.open(target);
  const quiet = () => undefined;
  const machine = new TaskStateMachine(db, quiet);
  let claims = 0;
  let refused = 0;
  const start = Date.now();
  const cpu = process.cpuUsage();
  const end = start + ms;
  try {
    while (Date.now() < end) {
      const ready = (await db
        .em()
        .getConnection()
        .execute("select id from tasks where status = 'READY' order by priority, created_at limit 8")) as Array<{ id: string }>;
      if (ready.length === 0) break;
      // Everyone looks at the same head of the queue: most attempts contend for the same rows.
      const pick = ready[Math.floor(Math.random() * ready.length)].id;
      const runId = `${worker}-${claims}-${refused}`;
      const refusal = await claimLaunch(db, machine, {
        taskId: pick,
        agentId: `${worker}-agent`,
        workspaceId: `${worker}-ws`,
        runId,
        workerId: worker,
        leaseMs: 60_000,
      });
      if (refusal) {
        refused++;
        continue;
      }
      claims++;
      const run = new TaskStateMachine({ tasks: db.runRecords.fencedTasks(pick, runId) }, quiet);
      await run.fire(pick, 'AGENT_STARTED', { startedAt: new Date() });
      await run.fire(pick, 'AGENT_COMPLETED', { completedAt: new Date() });
      await db.taskRuns.finishRun(pick, `${worker}-agent`, `${worker}-ws`);
    }
  } finally {
    await db.close();
  }
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${JSON.stringify({ claims, refused, ms: Date.now() - start, cpuMs: (used.user + used.system) / 1000 })}\n`);
}

main().catch((err) => {
  process.stderr.write(`claimer failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
