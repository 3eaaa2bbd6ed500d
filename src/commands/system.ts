import { z } from 'zod';
import type { EventRecord } from '../db/repositories/events';
import { CommandError, defineCommand } from './catalog';
import { cursorPageFields, decodeCursor, nextPageOf, oneStartOnly } from './cursor';
import { requireProject } from './projects';
import { nextOffset, pageFields, pageOf, type ListPaging, type PageRequest } from './paging';
import { optional, requiredText } from './schema';
import { settleAll } from '../util/settle-all';

export const DEFAULT_EVENTS_LIMIT = 10;
export const EVENTS_MAX_LIMIT = 500;
const EVENT_LIST: ListPaging = { key: 'events', defaultLimit: DEFAULT_EVENTS_LIMIT, maxLimit: EVENTS_MAX_LIMIT };
const NO_REASON = 'No reason provided';
const TAIL = 1500;

export function eventView(e: EventRecord) {
  return {
    id: e.id,
    type: e.type,
    project_id: e.projectId,
    task_id: e.taskId,
    agent_id: e.agentId,
    payload: e.payload,
    created_at: e.createdAt.toISOString(),
  };
}

export const getRecentEvents = defineCommand({
  name: 'get_recent_events',
  group: 'system',
  kind: 'read',
  description:
    'The newest events of the system log, newest first; total counts every event and next_offset asks for older ones (for deep pages pass next_cursor back as cursor instead).',
  input: () => z.object(cursorPageFields(EVENT_LIST)),
  list: EVENT_LIST,
  async run({ cursor, ...paging }, ctx) {
    oneStartOnly({ cursor, ...paging });
    const page = pageOf(paging, DEFAULT_EVENTS_LIMIT);
    const before = cursor === undefined ? undefined : decodeCursor(cursor, 1, 'get_recent_events')[0];
    const [rows, total] = await settleAll([
      ctx.db.events.recent(page.limit + 1, before === undefined ? { offset: page.offset } : { before }),
      ctx.db.events.count(),
    ]);
    const events = rows.slice(0, page.limit);
    const links = nextPageOf(page, {
      count: events.length,
      total,
      more: rows.length > page.limit,
      lastKey: events.length > 0 ? [events[events.length - 1].id] : undefined,
      byCursor: before !== undefined,
    });
    return { events: events.map(eventView), total, ...links };
  },
});

export const TOKEN_USAGE_LIMIT = 100;
export const TOKEN_USAGE_MAX_LIMIT = 1000;
const USAGE_LIST: ListPaging = {
  key: 'breakdown',
  totalKey: 'breakdown_total',
  defaultLimit: TOKEN_USAGE_LIMIT,
  maxLimit: TOKEN_USAGE_MAX_LIMIT,
};

/** A page of a breakdown: the spec's keys, then how many rows there are in all and where the next page starts. */
function breakdownPage<T>(page: PageRequest, result: { rows: T[]; rowCount: number; tokens: number }) {
  return {
    breakdown: result.rows,
    total: result.tokens,
    breakdown_total: result.rowCount,
    next_offset: nextOffset(page, result.rows.length, result.rowCount),
  };
}

export const getTokenUsage = defineCommand({
  name: 'get_token_usage',
  group: 'system',
  kind: 'read',
  description: `Tokens used (agents, chat and hooks, cache included): for a task by agent, for a project by task, or per project. The breakdown is largest first, ${TOKEN_USAGE_LIMIT} rows a page (breakdown_total counts them all; next_offset asks for the next page); total is every token.`,
  input: () =>
    z.object({
      task_id: optional(requiredText('One task')),
      project_id: optional(requiredText('One project')),
      ...pageFields(USAGE_LIST),
    }),
  list: USAGE_LIST,
  async run({ task_id, project_id, ...paging }, ctx) {
    const page = pageOf(paging, TOKEN_USAGE_LIMIT);
    if (task_id) return { task_id, ...breakdownPage(page, await ctx.db.tokenUsage.byAgentForTask(task_id, page)) };
    if (project_id) return { project_id, ...breakdownPage(page, await ctx.db.tokenUsage.byTaskForProject(project_id, page)) };
    return breakdownPage(page, await ctx.db.tokenUsage.byProject(page));
  },
});

export const setActiveProject = defineCommand({
  name: 'set_active_project',
  group: 'system',
  kind: 'change',
  description: 'Set the project this conversation works in by default; without project_id, clear it.',
  input: () => z.object({ project_id: optional(z.string().trim().describe('Project id; empty to clear')) }),
  async run({ project_id }, ctx) {
    if (!project_id) {
      ctx.session.activeProjectId = null;
      return { active_project: null, message: 'Active project cleared' };
    }
    const project = await requireProject(ctx, project_id);
    ctx.session.activeProjectId = project.id;
    return { active_project: project.id, name: project.name };
  },
});

export const orchestratorControl = defineCommand({
  name: 'orchestrator_control',
  group: 'system',
  kind: 'destructive',
  description: 'Pause or resume scheduling of new tasks everywhere, or show whether it is paused.',
  input: () => z.object({ action: requiredText('pause, resume or status') }),
  async run({ action }, ctx) {
    const verb = action.trim().toLowerCase();
    if (verb === 'pause') {
      await ctx.orchestrator.pause();
      await ctx.events.emit('orchestrator_paused');
      return { status: 'paused', message: 'Orchestrator paused: no new tasks will be scheduled. Running tasks continue.' };
    }
    if (verb === 'resume') {
      await ctx.orchestrator.resume();
      await ctx.events.emit('orchestrator_resumed');
      return { status: 'running', message: 'Orchestrator resumed' };
    }
    return {
      status: (await ctx.orchestrator.isPaused()) ? 'paused' : 'running',
      running_tasks: await ctx.orchestrator.runningTaskCount(),
    };
  },
});

export const restartDaemon = defineCommand({
  name: 'restart_daemon',
  group: 'system',
  kind: 'admin',
  description: 'Restart the Agent Queue daemon (the app process); from `aq` the running daemon is asked through the database.',
  input: () => z.object({ reason: optional(requiredText('Why (shown in the notification)')) }),
  modelAccess: 'excluded',
  async run({ reason }, ctx) {
    const why = reason ?? NO_REASON;
    if (!(await ctx.orchestrator.daemonRunning())) throw new CommandError(noDaemon('nothing was restarted'));
    await ctx.events.emit('daemon_restart', { payload: { reason: why, message: `🔄 **Daemon restart initiated** — ${why}` } });
    if (!(await ctx.orchestrator.requestRestart(why))) throw new CommandError(noDaemon('nothing was restarted'));
    return { status: 'restarting', message: 'Daemon restart initiated', reason: why };
  },
});

/** Run from `aq` with no app running: there is no daemon to restart. */
function noDaemon(outcome: string): string {
  return `No Agent Queue daemon is running on this database (no app has renewed its scheduling lease lately), so ${outcome}. Start the app with \`npm start\`.`;
}

/** The end of a failed step's output (both streams), where the reason usually is. */
function tail(run: { stdout: string; stderr: string }): string {
  const trimmed = [run.stdout.trim(), run.stderr.trim()].filter(Boolean).join('\n');
  return trimmed.length > TAIL ? `…${trimmed.slice(-TAIL)}` : trimmed;
}

export const updateAndRestart = defineCommand({
  name: 'update_and_restart',
  group: 'system',
  kind: 'admin',
  description: "Pull the app's latest code (fast-forward only), reinstall it, and restart.",
  input: () => z.object({ reason: optional(requiredText('Why (shown in the notification)')) }),
  modelAccess: 'excluded',
  async run({ reason }, ctx) {
    const why = reason ?? NO_REASON;
    if (!(await ctx.orchestrator.daemonRunning())) throw new CommandError(noDaemon('nothing was pulled or restarted'));
    const cwd = ctx.config.appRoot;
    const pull = await ctx.process.run('git', ['pull', '--ff-only'], { cwd, timeoutMs: 120_000 });
    if (pull.code !== 0) {
      throw new CommandError(`git pull exited non-zero (code ${pull.code}); nothing was changed. ${tail(pull)}`.trim());
    }
    const install = await ctx.process.run('npm', ['ci', '--no-audit', '--no-fund'], { cwd, timeoutMs: 900_000 });
    if (install.code !== 0) {
      throw new CommandError(
        `The install (npm ci) exited non-zero (code ${install.code}); the update was pulled but not installed, and no restart was made: fix the install (run npm ci in the app folder) before restarting. ${tail(install)}`.trim(),
      );
    }
    await ctx.events.emit('daemon_restart', {
      payload: { reason: why, message: `🔄 **Update pulled, daemon restart initiated** — ${why}` },
    });
    if (!(await ctx.orchestrator.requestRestart(why)))
      throw new CommandError(noDaemon('the update was pulled and installed but nothing was restarted'));
    return { status: 'updating', message: 'Update pulled and daemon restart initiated', pull_output: pull.stdout.trim(), reason: why };
  },
});

export const systemCommands = [getRecentEvents, getTokenUsage, setActiveProject, orchestratorControl, restartDaemon, updateAndRestart];
