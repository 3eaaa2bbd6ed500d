import { z } from 'zod';
import { sandboxStatus } from '../agents/confinement';
import { FORGE_READINESS_KEY, UNKNOWN_FORGE_READINESS, type StoredForgeReadiness } from '../orchestrator/forge-readiness';
import { projectWaitingReasons } from '../orchestrator/waiting-reasons';
import { readSlackFeatures, SLACK_FEATURES, slackFeatureKey } from '../db/slack-features';
import { LEASE_KEY, leaseFrom, PAUSED_KEY, type DaemonLease } from '../db/repositories/scheduling';
import { defineCommand, type CommandContext } from './catalog';
import { workerView } from './workers';
import { settleAll } from '../util/settle-all';

/** Caps keep get_status fast on large queues; by_status always has the full counts. */
export const STATUS_READY_LIMIT = 20;
export const STATUS_IN_PROGRESS_LIMIT = 50;
export const STATUS_WORKERS_LIMIT = 20;

export const getStatus = defineCommand({
  name: 'get_status',
  group: 'status',
  kind: 'read',
  description: `Overview: agents and what they work on, task counts by status, running tasks (up to ${STATUS_IN_PROGRESS_LIMIT}) and the ${STATUS_READY_LIMIT} most urgent ready tasks, and whether scheduling is paused.`,
  input: () => z.object({}),
  async run(_args, ctx) {
    const [summary, agents, pages, workers] = await settleAll([
      // Counts and system_state rows in one statement: on PostgreSQL a round trip is what a small
      // read costs. The pause flag and the daemon's lease are two of those rows.
      ctx.db.statusSummary.read([FORGE_READINESS_KEY, PAUSED_KEY, LEASE_KEY, ...SLACK_FEATURES.map(slackFeatureKey)]),
      ctx.db.agents.listWithWork(),
      ctx.db.tasks.firstInStatuses({ IN_PROGRESS: STATUS_IN_PROGRESS_LIMIT, READY: STATUS_READY_LIMIT }),
      ctx.db.workers.list(),
    ]);
    const { projects, byStatus, readyByProject, repairs } = summary;
    // As the orchestrator's isPaused reads it (pause_orchestrator stores true, resume false).
    const paused = summary.state.get(PAUSED_KEY) === true;
    const lease = leaseFrom(summary.state.get(LEASE_KEY));
    // The daemon asks gh and glab off its cycle and stores the answer; reading it never waits.
    const forges = (summary.state.get(FORGE_READINESS_KEY) ?? UNKNOWN_FORGE_READINESS) as
      | StoredForgeReadiness
      | typeof UNKNOWN_FORGE_READINESS;
    const slackFeatures = await readSlackFeatures({ getMany: async <T>() => summary.state as Map<string, T> });
    const inProgress = pages.IN_PROGRESS ?? [];
    const ready = pages.READY ?? [];
    const waiting = await notStarting(ctx, readyByProject, paused, lease);
    return {
      projects,
      agents: agents.map((a) => ({
        id: a.id,
        name: a.name,
        state: a.state,
        ...(a.task && {
          working_on: { task_id: a.task.id, title: a.task.title, project_id: a.task.projectId, status: a.task.status },
        }),
      })),
      tasks: {
        total: Object.values(byStatus).reduce((sum, n) => sum + n, 0),
        by_status: byStatus,
        in_progress: inProgress.map((t) => ({
          id: t.id,
          title: t.title,
          project_id: t.projectId,
          assigned_agent: t.assignedAgent,
        })),
        ready_to_work: ready.map((t) => {
          const why = waiting.byProject.get(t.projectId);
          return { id: t.id, title: t.title, project_id: t.projectId, ...(why && { waiting_reason: why.reason, waiting_code: why.code }) };
        }),
      },
      orchestrator_paused: paused,
      // Tasks the reconciler found in a state nothing would move, and moved on (task_reconciled events).
      repairs,
      not_starting: waiting.list,
      agent_sandbox: sandboxStatus(ctx.config.agents.allowUnsandboxed),
      forges,
      // Which of Slack's AI surfaces the workspace offers, once the Slack app has tried them.
      ...(Object.keys(slackFeatures).length > 0 && { slack_features: slackFeatures }),
      // Only once the fleet has workers: a single-machine install looks as before.
      ...(workers.length > 0 && {
        workers: workers.slice(0, STATUS_WORKERS_LIMIT).map((w) => workerView(w)),
        workers_total: workers.length,
      }),
    };
  },
});

export const statusCommands = [getStatus];

/**
 * Why READY work is not starting, per project (the projects with the most READY tasks first,
 * at most STATUS_READY_LIMIT of them): a few small-table reads, whatever the number of tasks.
 */
async function notStarting(ctx: CommandContext, readyByProject: Record<string, number>, paused: boolean, lease: DaemonLease | null) {
  const ids = Object.keys(readyByProject)
    .sort((a, b) => readyByProject[b] - readyByProject[a] || (a < b ? -1 : 1))
    .slice(0, STATUS_READY_LIMIT);
  if (ids.length === 0) return { byProject: new Map(), list: [] };
  const state = { daemonRunning: await ctx.orchestrator.daemonRunning({ lease }), paused, now: new Date() };
  const reasons = await projectWaitingReasons(ctx.db, state, ids);
  const byProject = new Map([...reasons].filter(([, r]) => r.code !== 'starting'));
  const list = [...byProject].map(([projectId, r]) => ({
    project_id: projectId,
    ready: readyByProject[projectId],
    code: r.code,
    reason: r.reason,
    ...(r.until && { until: r.until }),
  }));
  return { byProject, list };
}
