import { z } from 'zod';
import type { AutomationRecord } from '../db/repositories/automations';
import { overBudget } from '../orchestrator/budgets';
import { fireAutomation } from '../orchestrator/automation-firing';
import { isAdminHere } from './admin-check';
import { firingDeps, requireAutomation } from './automations';
import { CommandError, defineCommand, type CommandContext } from './catalog';
import { integer, optional, requiredText } from './schema';

const HOUR_MS = 3600_000;

/** Whether a message (or a reaction added to one) passes an intake automation's filters. */
export function passesIntakeFilters(a: AutomationRecord, message: { userId: string; text?: string; reaction?: string }): boolean {
  const s = a.settings;
  const people = Array.isArray(s.people) ? (s.people as string[]) : [];
  if (people.length > 0 && !people.includes(message.userId)) return false;
  const reaction = typeof s.reaction === 'string' ? s.reaction.replace(/:/g, '') : null;
  // With a reaction trigger only that reaction fires it; without one only a new message does.
  if (reaction ? message.reaction !== reaction : message.reaction !== undefined) return false;
  if (typeof s.pattern === 'string' && message.text !== undefined && !new RegExp(s.pattern, 'i').test(message.text)) return false;
  return true;
}

/** Why an automation may not take work now (paused, rate limit, budget), or null. */
async function whyNotNow(ctx: CommandContext, a: AutomationRecord): Promise<{ hold: string; reason: string } | null> {
  if (a.state !== 'enabled') return { hold: 'paused', reason: `Intake '${a.id}' is paused.` };
  const created = await ctx.db.automations.tasksCreatedSince(a.id, Date.now() - HOUR_MS);
  if (created >= a.rateLimitPerHour) {
    return {
      hold: 'rate-limit',
      reason: `Rate limit: it already created or proposed ${created} task(s) in the last hour (limit ${a.rateLimitPerHour}).`,
    };
  }
  const budget = await overBudget(ctx.db, a.projectId, new Date());
  return budget ? { hold: 'budget', reason: budget } : null;
}

async function logRun(
  ctx: CommandContext,
  a: AutomationRecord,
  run: { outcome: 'proposed' | 'linked' | 'skipped'; reason: string; taskId?: string | null; dedupKey?: string },
): Promise<number | null> {
  const runId = await ctx.db.automations.recordRun({
    automationId: a.id,
    at: Date.now(),
    firedBy: 'intake',
    outcome: run.outcome,
    reason: run.reason,
    taskId: run.taskId ?? null,
    dedupKey: run.dedupKey ?? null,
  });
  // Logged already under the same key: one entry (and one event) is enough.
  if (runId === null) return null;
  const event = run.outcome === 'skipped' ? 'automation_skipped' : 'automation_fired';
  await ctx.events.emit(event, {
    projectId: a.projectId,
    ...(run.taskId && { taskId: run.taskId }),
    payload: { automation_id: a.id, name: a.name, kind: a.kind, fired_by: 'intake', outcome: run.outcome, reason: run.reason },
  });
  return runId;
}

const ALREADY_DECIDED = 'This proposal was already created or dismissed.';
const proposalRun = optional(integer('The proposal’s logged run (log_intake_triage answers it)', { min: 1 }));

async function requireIntake(ctx: CommandContext, id: string): Promise<AutomationRecord> {
  const a = await requireAutomation(ctx, id);
  if (a.kind !== 'intake') throw new CommandError(`Automation '${a.id}' is a ${a.kind}, not a channel intake.`);
  return a;
}

export const matchIntake = defineCommand({
  name: 'match_intake',
  group: 'automations',
  kind: 'read',
  modelAccess: 'excluded',
  description:
    'Which enabled channel intake takes a message (or a reaction added to one), if any; answers automation_id null when none does, so the message is left alone.',
  input: () =>
    z.object({
      channel_id: requiredText('The Slack channel of the message'),
      user_id: requiredText('Who posted the message'),
      text: optional(z.string().describe('The message text, when it is known')),
      reaction: optional(requiredText('The reaction added, for a reaction_added event')),
    }),
  async run(args, ctx) {
    for (const a of await ctx.db.automations.intakeFor(args.channel_id)) {
      if (!passesIntakeFilters(a, { userId: args.user_id, text: args.text, reaction: args.reaction?.replace(/:/g, '') })) continue;
      const blocked = await whyNotNow(ctx, a);
      if (blocked) {
        // A busy channel over its limit would log every message: one entry per hold and clock hour.
        const hour = Math.floor(Date.now() / HOUR_MS);
        await logRun(ctx, a, { outcome: 'skipped', reason: blocked.reason, dedupKey: `held:${blocked.hold}:${hour}` });
        return { automation_id: null, skipped: blocked.reason };
      }
      return {
        automation_id: a.id,
        project_id: a.projectId,
        policy: a.settings.policy === 'create' ? 'create' : 'propose',
        // A reaction trigger reads the text after this answer, so its pattern is checked again then.
        needs_pattern_check: typeof a.settings.pattern === 'string' && args.text === undefined,
      };
    }
    return { automation_id: null };
  },
});

export const logIntakeTriage = defineCommand({
  name: 'log_intake_triage',
  group: 'automations',
  kind: 'change',
  modelAccess: 'excluded',
  description:
    "Logs what triage made of an intake message that did not create a task: proposed (waiting for a click), linked to an earlier task, or skipped and why. The message's text is not stored.",
  input: () =>
    z.object({
      automation_id: requiredText('The intake automation'),
      outcome: z.enum(['proposed', 'linked', 'skipped']).describe('What triage decided'),
      reason: requiredText('Why, in a sentence'),
      task_id: optional(requiredText('The earlier task a duplicate links to')),
    }),
  async run(args, ctx) {
    const a = await requireIntake(ctx, args.automation_id);
    const runId = await logRun(ctx, a, { outcome: args.outcome, reason: args.reason, taskId: args.task_id });
    return { logged: args.outcome, automation_id: a.id, run_id: runId };
  },
});

export const createIntakeTask = defineCommand({
  name: 'create_intake_task',
  group: 'automations',
  kind: 'change',
  modelAccess: 'excluded',
  description:
    'Creates the task triage found in an intake message (policy create, or a Create click on a proposal), under the automation’s rate limit, budget and log. A click is taken from the reporter, the automation’s owner or an admin.',
  input: () =>
    z.object({
      automation_id: requiredText('The intake automation'),
      title: requiredText('Task title'),
      description: requiredText('Task description'),
      priority: optional(integer('Priority (lower runs first)')),
      reporter: optional(requiredText('Who posted the message (their clicks count)')),
      proposal_run: proposalRun,
      source_channel_id: optional(requiredText('The channel of the reported message')),
      source_thread_ts: optional(requiredText("The reported message's ts: a reply in its thread then reaches the task")),
    }),
  async run(args, ctx) {
    const a = await requireIntake(ctx, args.automation_id);
    const clicker = ctx.actor.userId;
    if (ctx.actor.source === 'slack' && clicker !== args.reporter && clicker !== a.owner && !isAdminHere(ctx)) {
      throw new CommandError('Only the person who reported this, the intake’s owner or an admin can create this task.');
    }
    if (a.state !== 'enabled') throw new CommandError(`Intake '${a.id}' is paused. Resume it with resume_automation first.`);
    if (args.proposal_run && !(await ctx.db.automations.takeProposal(args.proposal_run, a.id, 'Still running (or interrupted).'))) {
      throw new CommandError(ALREADY_DECIDED);
    }
    const result = await fireAutomation(firingDeps(ctx), a, {
      firedBy: 'intake',
      ...(args.proposal_run && { proposalRunId: args.proposal_run }),
      task: { title: args.title.slice(0, 200), description: args.description, priority: args.priority },
    });
    if (result.outcome !== 'created') throw new CommandError(`No task was created. ${result.reason}`);
    if (args.source_channel_id && args.source_thread_ts) {
      await ctx.db.taskSourceThreads.save(result.taskId, args.source_channel_id, args.source_thread_ts);
    }
    return { created: result.taskId, automation_id: a.id, project_id: a.projectId };
  },
});

export const dismissIntakeProposal = defineCommand({
  name: 'dismiss_intake_proposal',
  group: 'automations',
  kind: 'change',
  modelAccess: 'excluded',
  description: 'Dismisses a task an intake proposed; the log says who dismissed it. Taken from the reporter, the owner or an admin.',
  input: () =>
    z.object({
      automation_id: requiredText('The intake automation'),
      reporter: optional(requiredText('Who posted the message')),
      proposal_run: proposalRun,
    }),
  async run(args, ctx) {
    const a = await requireIntake(ctx, args.automation_id);
    const clicker = ctx.actor.userId;
    if (ctx.actor.source === 'slack' && clicker !== args.reporter && clicker !== a.owner && !isAdminHere(ctx)) {
      throw new CommandError('Only the person who reported this, the intake’s owner or an admin can dismiss it.');
    }
    const reason = `Proposal dismissed${clicker ? ` by <@${clicker}>` : ''}.`;
    if (args.proposal_run) {
      if (!(await ctx.db.automations.takeProposal(args.proposal_run, a.id, reason))) throw new CommandError(ALREADY_DECIDED);
      await ctx.db.automations.finishRun(args.proposal_run, { outcome: 'skipped', reason });
      await ctx.events.emit('automation_skipped', {
        projectId: a.projectId,
        payload: { automation_id: a.id, name: a.name, kind: a.kind, fired_by: 'intake', reason },
      });
    } else {
      await logRun(ctx, a, { outcome: 'skipped', reason });
    }
    return { dismissed: true, automation_id: a.id };
  },
});

export const intakeCommands = [matchIntake, logIntakeTriage, createIntakeTask, dismissIntakeProposal];
