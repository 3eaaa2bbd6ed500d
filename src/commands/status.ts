import { z } from 'zod';
import { sandboxStatus } from '../agents/confinement';
import { defineCommand } from './catalog';

/** Caps keep get_status fast on large queues; by_status always has the full counts. */
export const STATUS_READY_LIMIT = 20;
export const STATUS_IN_PROGRESS_LIMIT = 50;

export const getStatus = defineCommand({
  name: 'get_status',
  group: 'status',
  description: `Overview: agents and what they work on, task counts by status, running tasks (up to ${STATUS_IN_PROGRESS_LIMIT}) and the ${STATUS_READY_LIMIT} most urgent ready tasks, and whether scheduling is paused.`,
  input: z.object({}),
  readOnly: true,
  async run(_args, ctx) {
    const [projects, agents, byStatus, inProgress, ready, paused, forges] = await Promise.all([
      ctx.db.projects.count(),
      ctx.db.agents.listWithWork(),
      ctx.db.tasks.countByStatus(),
      ctx.db.tasks.list({ status: 'IN_PROGRESS' }, STATUS_IN_PROGRESS_LIMIT, { count: false }),
      ctx.db.tasks.list({ status: 'READY' }, STATUS_READY_LIMIT, { count: false }),
      ctx.orchestrator.isPaused(),
      // Cached for minutes: whether gh and glab are installed and logged in.
      ctx.git.forges.readiness(),
    ]);
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
        in_progress: inProgress.tasks.map((t) => ({
          id: t.id,
          title: t.title,
          project_id: t.projectId,
          assigned_agent: t.assignedAgent,
        })),
        ready_to_work: ready.tasks.map((t) => ({ id: t.id, title: t.title, project_id: t.projectId })),
      },
      orchestrator_paused: paused,
      agent_sandbox: sandboxStatus(ctx.config.agents.allowUnsandboxed),
      forges,
    };
  },
});

export const statusCommands = [getStatus];
