import { z } from 'zod';
import { AUTOMATION_KINDS, type AutomationRecord, type AutomationRunRecord } from '../db/repositories/automations';
import { runSchedule, type AutomationEngineDeps } from '../orchestrator/automation-engine';
import { fireAutomation, pauseAutomation } from '../orchestrator/automation-firing';
import { nextRunAfter } from '../orchestrator/automation-schedule';
import { orchestratorCommands } from './orchestrator-commands';
import { checkFieldsOfKind, commonFields, DEFAULT_RATE_LIMIT_PER_HOUR, settingsOf, templateOf } from './automation-fields';
import { CommandError, defineCommand, type CommandContext } from './catalog';
import { idFromName } from './derived-ids';
import { cursorPageFields, decodeCursor, nextPageOf, oneStartOnly } from './cursor';
import { nextOffset, pageFields, pageOf, type ListPaging } from './paging';
import { projectIdOrActive, requireProject } from './projects';
import { optional, requiredText } from './schema';
import { settleAll } from '../util/settle-all';

const AUTOMATION_LIST: ListPaging = { key: 'automations', defaultLimit: 100, maxLimit: 500 };
const RUN_LIST: ListPaging = { key: 'runs', defaultLimit: 20, maxLimit: 200 };

const automationId = requiredText('Automation id');

/** The path inbound webhooks of an automation are POSTed to. */
export function webhookPath(id: string): string {
  return `/automations/${encodeURIComponent(id)}/webhook`;
}

/** An automation as commands show it; a webhook's secret is never shown again after creation. */
export function automationView(a: AutomationRecord) {
  const { secret, ...settings } = a.settings;
  return {
    id: a.id,
    name: a.name,
    kind: a.kind,
    project_id: a.projectId,
    owner: a.owner,
    enabled: a.state === 'enabled',
    paused_reason: a.pausedReason,
    rate_limit_per_hour: a.rateLimitPerHour,
    task_template: a.template,
    settings: { ...settings, ...(a.kind === 'webhook' && { secret_set: typeof secret === 'string' }) },
    ...(a.kind === 'intake' && { channel_id: a.channelId }),
    ...(a.kind === 'webhook' && { webhook_path: webhookPath(a.id) }),
    next_run_at: a.nextRunAt === null ? null : new Date(a.nextRunAt).toISOString(),
    consecutive_failures: a.consecutiveFailures,
    last_task_id: a.lastTaskId,
  };
}

function runView(r: AutomationRunRecord) {
  return {
    id: r.id,
    at: new Date(r.at).toISOString(),
    fired_by: r.firedBy,
    outcome: r.outcome,
    reason: r.reason,
    task_id: r.taskId,
    task_outcome: r.taskOutcome,
  };
}

export async function requireAutomation(ctx: CommandContext, id: string): Promise<AutomationRecord> {
  const a = await ctx.db.automations.get(id);
  if (!a) throw new CommandError(`Automation '${id}' not found. list_automations shows them all.`);
  return a;
}

/** What the firing code needs, from a command's context: it creates tasks through the same handler. */
export function firingDeps(ctx: CommandContext): AutomationEngineDeps {
  return {
    db: ctx.db,
    events: ctx.events,
    commands: orchestratorCommands((name, args) => ctx.execute(name, args)),
    now: () => new Date(),
    log: ctx.log,
  };
}

function nextRunOf(a: Pick<AutomationRecord, 'kind' | 'settings'>, now: number): number | null {
  if (a.kind !== 'schedule') return null;
  return nextRunAfter(String(a.settings.cron), String(a.settings.timezone ?? 'UTC'), now);
}

export const createAutomation = defineCommand({
  name: 'create_automation',
  group: 'automations',
  kind: 'admin',
  description:
    'Create an automation that starts work by itself: kind intake (messages in a channel, triaged by the model), schedule (cron) or webhook (an HTTP endpoint).',
  input: () =>
    z.object({
      name: requiredText('Automation name (its id is derived from it)'),
      kind: z.enum(AUTOMATION_KINDS).describe('intake, schedule or webhook'),
      project_id: optional(requiredText('Project its tasks go to (defaults to the active project)')),
      ...commonFields,
    }),
  async run(args, ctx) {
    const projectId = projectIdOrActive(ctx, args.project_id);
    await requireProject(ctx, projectId);
    checkFieldsOfKind(args.kind, args);
    if (args.kind !== 'intake' && args.title === undefined) {
      throw new CommandError(`A ${args.kind} automation needs title (and usually description): they are the task it creates.`);
    }
    if (args.kind === 'intake') {
      if (!args.channel_id) throw new CommandError('An intake automation needs channel_id: the channel whose messages it reads.');
      const taken = await ctx.db.automations.intakeFor(args.channel_id);
      if (taken.length > 0)
        throw new CommandError(`Channel ${args.channel_id} already has intake '${taken[0].id}'. Edit that one instead.`);
    }
    const id = idFromName(args.name, 'Automation id', { folder: false });
    const settings = settingsOf(args.kind, {}, args);
    const now = Date.now();
    const created = await ctx.db.automations.create({
      id,
      name: args.name,
      kind: args.kind,
      projectId,
      owner: ctx.actor.userId ?? null,
      rateLimitPerHour: args.rate_limit_per_hour ?? DEFAULT_RATE_LIMIT_PER_HOUR,
      template: templateOf({}, args),
      settings,
      channelId: args.kind === 'intake' ? (args.channel_id ?? null) : null,
      nextRunAt: nextRunOf({ kind: args.kind, settings }, now),
      createdAt: now,
    });
    if (!created) throw new CommandError(`Automation '${id}' already exists. Pick another name, or use edit_automation.`);
    const a = await requireAutomation(ctx, id);
    return {
      created: id,
      ...automationView(a),
      // Shown once, so it can be pasted into the sender's settings.
      ...(a.kind === 'webhook' && { secret: String(a.settings.secret) }),
    };
  },
});

export const listAutomations = defineCommand({
  name: 'list_automations',
  group: 'automations',
  kind: 'read',
  description: `List automations, optionally of one project or kind, oldest first, ${AUTOMATION_LIST.defaultLimit} a page.`,
  input: () =>
    z.object({
      project_id: optional(requiredText('Only this project')),
      kind: optional(z.enum(AUTOMATION_KINDS).describe('Only this kind')),
      ...pageFields(AUTOMATION_LIST),
    }),
  list: AUTOMATION_LIST,
  async run({ project_id, kind, ...paging }, ctx) {
    if (project_id) await requireProject(ctx, project_id);
    const page = pageOf(paging, AUTOMATION_LIST.defaultLimit);
    const filter = { projectId: project_id, kind };
    const [rows, total] = await settleAll([ctx.db.automations.list(filter, page), ctx.db.automations.count(filter)]);
    return { automations: rows.map(automationView), total, next_offset: nextOffset(page, rows.length, total) };
  },
});

export const getAutomation = defineCommand({
  name: 'get_automation',
  group: 'automations',
  kind: 'read',
  description: 'Show one automation: its kind, settings, task template, state and next run.',
  input: () => z.object({ automation_id: automationId }),
  async run({ automation_id }, ctx) {
    return automationView(await requireAutomation(ctx, automation_id));
  },
});

export const editAutomation = defineCommand({
  name: 'edit_automation',
  group: 'automations',
  kind: 'admin',
  description: 'Change an automation: its name, task template, limits or the fields of its kind.',
  input: () => z.object({ automation_id: automationId, name: optional(requiredText('New display name')), ...commonFields }),
  async run({ automation_id, name, ...args }, ctx) {
    const a = await requireAutomation(ctx, automation_id);
    checkFieldsOfKind(a.kind, args);
    const fields = Object.entries({ name, ...args })
      .filter(([, v]) => v !== undefined)
      .map(([k]) => k);
    if (fields.length === 0) throw new CommandError('Nothing to update: give at least one field to change.');
    if (a.kind === 'intake' && args.channel_id && args.channel_id !== a.channelId) {
      const taken = await ctx.db.automations.intakeFor(args.channel_id);
      if (taken.length > 0) throw new CommandError(`Channel ${args.channel_id} already has intake '${taken[0].id}'.`);
    }
    const settings = settingsOf(a.kind, a.settings, args);
    const now = Date.now();
    const rescheduled = a.kind === 'schedule' && (args.cron !== undefined || args.timezone !== undefined) && a.state === 'enabled';
    await ctx.db.automations.update(
      a.id,
      {
        name,
        template: templateOf(a.template, args),
        settings,
        rateLimitPerHour: args.rate_limit_per_hour,
        channelId: a.kind === 'intake' ? args.channel_id : undefined,
        nextRunAt: rescheduled ? nextRunOf({ kind: a.kind, settings }, now) : undefined,
      },
      now,
    );
    return { updated: a.id, fields };
  },
});

export const pauseAutomationCommand = defineCommand({
  name: 'pause_automation',
  group: 'automations',
  kind: 'admin',
  description: 'Pause an automation: it starts nothing until resume_automation.',
  input: () => z.object({ automation_id: automationId, reason: optional(requiredText('Why (shown in its listing)')) }),
  async run({ automation_id, reason }, ctx) {
    const a = await requireAutomation(ctx, automation_id);
    if (a.state === 'paused') throw new CommandError(`Automation '${a.id}' is already paused.`);
    const why = reason ?? `Paused by ${ctx.actor.userId ? `<@${ctx.actor.userId}>` : 'an admin'}.`;
    await pauseAutomation(firingDeps(ctx), a, why);
    return { paused: a.id, name: a.name, reason: why };
  },
});

export const resumeAutomation = defineCommand({
  name: 'resume_automation',
  group: 'automations',
  kind: 'admin',
  description: 'Resume a paused automation; a schedule continues from its next run after now (missed runs are not made up).',
  input: () => z.object({ automation_id: automationId }),
  async run({ automation_id }, ctx) {
    const a = await requireAutomation(ctx, automation_id);
    if (a.state !== 'paused') throw new CommandError(`Automation '${a.id}' is not paused.`);
    const next = nextRunOf(a, Date.now());
    await ctx.db.automations.resume(a.id, next, Date.now());
    return { resumed: a.id, name: a.name, next_run_at: next === null ? null : new Date(next).toISOString() };
  },
});

export const runAutomation = defineCommand({
  name: 'run_automation',
  group: 'automations',
  kind: 'change',
  description: 'Run a schedule or webhook automation now (a schedule keeps its next run); its limits still apply.',
  input: () => z.object({ automation_id: automationId }),
  async run({ automation_id }, ctx) {
    const a = await requireAutomation(ctx, automation_id);
    if (a.state === 'paused') throw new CommandError(`Automation '${a.id}' is paused. Resume it with resume_automation first.`);
    if (a.kind === 'intake') {
      throw new CommandError(
        'An intake automation runs on messages in its channel, so there is nothing to run now. Post or react to a message there.',
      );
    }
    const result =
      a.kind === 'schedule'
        ? await runSchedule(firingDeps(ctx), a, 'manual')
        : { firings: [await fireAutomation(firingDeps(ctx), a, { firedBy: 'manual', item: {} })] };
    if (result.error) throw new CommandError(`Automation '${a.id}' could not run: ${result.error}`);
    return {
      ran: a.id,
      created: result.firings.flatMap((f) => (f.outcome === 'created' ? [f.taskId] : [])),
      skipped: result.firings.flatMap((f) => (f.outcome === 'created' ? [] : [f.reason])),
    };
  },
});

export const listAutomationRuns = defineCommand({
  name: 'list_automation_runs',
  group: 'automations',
  kind: 'read',
  description:
    'What an automation did, newest first: each firing, the task it created or why it skipped or failed, and how the task ended; for deep pages pass next_cursor back as cursor instead of an offset.',
  input: () => z.object({ automation_id: automationId, ...cursorPageFields(RUN_LIST) }),
  list: RUN_LIST,
  async run({ automation_id, cursor, ...paging }, ctx) {
    oneStartOnly({ cursor, ...paging });
    const a = await requireAutomation(ctx, automation_id);
    const page = pageOf(paging, RUN_LIST.defaultLimit);
    const after = cursor === undefined ? undefined : decodeCursor(cursor, 2, 'list_automation_runs');
    const { runs, total, more } = await ctx.db.automations.runsPage(a.id, { ...page, after: after && { at: after[0], id: after[1] } });
    const last = runs.at(-1);
    const links = nextPageOf(page, { count: runs.length, total, more, lastKey: last && [last.at, last.id], byCursor: !!after });
    return { automation_id: a.id, name: a.name, runs: runs.map(runView), total, ...links };
  },
});

export const deleteAutomation = defineCommand({
  name: 'delete_automation',
  group: 'automations',
  kind: 'admin',
  description: 'Delete an automation and its run log (the tasks it created stay).',
  input: () => z.object({ automation_id: automationId }),
  async run({ automation_id }, ctx) {
    const a = await requireAutomation(ctx, automation_id);
    await ctx.db.automations.delete(a.id);
    return { deleted: a.id, name: a.name };
  },
});

export const automationCommands = [
  createAutomation,
  listAutomations,
  getAutomation,
  editAutomation,
  pauseAutomationCommand,
  resumeAutomation,
  runAutomation,
  listAutomationRuns,
  deleteAutomation,
];
