import { z } from 'zod';
import type { HookContextStep, HookTrigger } from '../db/value-sets';
import type { HookChanges } from '../db/repositories/hooks';
import { EVENT_TYPES } from '../orchestrator/events';
import { isAdminHere } from './admin-check';
import { CommandError, defineCommand, type CommandContext } from './catalog';
import { idFromName } from './derived-ids';
import { cursorPageFields, decodeCursor, nextPageOf, oneStartOnly } from './cursor';
import { nextOffset, pageFields, pageOf, type ListPaging } from './paging';
import { NAMED_QUERY_NAMES } from './orchestrator-commands';
import { requireProject } from './projects';
import { boolean, integer, jsonList, jsonObject, optional, requiredText } from './schema';
import { settleAll } from '../util/settle-all';
import { shorten } from '../util/whole-characters';

export const DEFAULT_HOOK_COOLDOWN_SECONDS = 3600;
export const DEFAULT_HOOK_RUNS_LIMIT = 10;
const HOOK_LIST: ListPaging = { key: 'hooks', defaultLimit: 100, maxLimit: 500 };
const HOOK_RUN_LIST: ListPaging = { key: 'runs', defaultLimit: DEFAULT_HOOK_RUNS_LIMIT, maxLimit: 200 };

/**
 * The trigger as stored: refuses one the engine could never fire (the original's hooks silently
 * never ran), and keeps an interval written as text ("3600") as its number.
 */
function parseTrigger(trigger: Record<string, unknown>): HookTrigger {
  if (trigger.skip_llm !== undefined && typeof trigger.skip_llm !== 'boolean') {
    throw new CommandError(`trigger.skip_llm must be true or false (got ${JSON.stringify(trigger.skip_llm)}).`);
  }
  if (trigger.type === 'periodic') {
    const interval = Number(trigger.interval_seconds);
    if (!Number.isFinite(interval) || interval <= 0) {
      throw new CommandError(
        'A periodic trigger needs interval_seconds greater than 0, e.g. {"type": "periodic", "interval_seconds": 3600}.',
      );
    }
    return { ...trigger, type: 'periodic', interval_seconds: interval };
  }
  if (trigger.type === 'event') {
    const eventType = trigger.event_type;
    if (eventType === undefined || eventType === '') {
      throw new CommandError(`An event trigger needs event_type, one of: ${EVENT_TYPES.join(', ')}.`);
    }
    if (typeof eventType !== 'string' || !(EVENT_TYPES as readonly string[]).includes(eventType)) {
      throw new CommandError(`Unknown event_type ${JSON.stringify(eventType)}. Valid events: ${EVENT_TYPES.join(', ')}.`);
    }
    return { ...trigger, type: 'event', event_type: eventType };
  }
  throw new CommandError('trigger.type must be "periodic" (with interval_seconds) or "event" (with event_type).');
}

const hookId = requiredText('Hook id');

/** Steps that run a shell command or fetch a URL from the app's own machine. */
const MACHINE_STEPS = new Set(['shell', 'http']);

function clipped(text: string): string {
  return shorten(text, 60);
}

const STEP_TYPES = ['shell', 'read_file', 'http', 'git_diff', 'db_query', 'create_task'];

/** Refuses a step the engine could never run, when the hook is saved rather than each time it fires. */
function checkSteps(steps: unknown[] | undefined): void {
  for (const [index, step] of (steps ?? []).entries()) {
    const isObject = !!step && typeof step === 'object' && !Array.isArray(step);
    const type = isObject ? (step as { type?: unknown }).type : undefined;
    if (typeof type !== 'string' || !STEP_TYPES.includes(type)) {
      const got = !isObject ? String(JSON.stringify(step)) : type === undefined ? 'no type' : String(JSON.stringify(type));
      throw new CommandError(`Context step ${index} needs a type, one of ${STEP_TYPES.join(', ')} (got ${clipped(got)}).`);
    }
    const query = (step as { query?: unknown }).query;
    if (type === 'db_query' && !(typeof query === 'string' && NAMED_QUERY_NAMES.includes(query))) {
      throw new CommandError(
        `Context step ${index} asks for query ${clipped(String(JSON.stringify(query)))}. Known queries: ${NAMED_QUERY_NAMES.join(', ')}.`,
      );
    }
  }
}

/** A hook's shell and http steps act on the app's machine, as run_command does: admins only. */
function requireAdminForSteps(steps: unknown[] | undefined, ctx: Pick<CommandContext, 'actor' | 'config'>): void {
  const risky = (steps ?? []).map((step) => (step as { type?: unknown } | null)?.type).filter((type) => MACHINE_STEPS.has(String(type)));
  if (risky.length > 0 && !isAdminHere(ctx)) {
    throw new CommandError(
      `Hook steps of type ${[...new Set(risky)].join(' and ')} run on the app's machine, so only admins may add them. Ask an admin, or have one add your Slack user id to AQ_ADMINS.`,
    );
  }
}

export const createHook = defineCommand({
  name: 'create_hook',
  group: 'hooks',
  kind: 'change',
  description: 'Create a hook: on a schedule or an event, gather context and run a prompt through the model.',
  input: () =>
    z.object({
      project_id: requiredText('Project id'),
      name: requiredText('Hook name (its id is derived from it)'),
      trigger: jsonObject('{"type":"periodic","interval_seconds":N} or {"type":"event","event_type":NAME}'),
      prompt_template: requiredText('Prompt; may use {{step_N}}, {{step_N.field}}, {{event}}, {{event.field}}'),
      context_steps: optional(jsonList('Steps run before the prompt: shell, read_file, http, git_diff, db_query, create_task')),
      cooldown_seconds: optional(integer('Minimum seconds between firings (default 3600)', { min: 0 })),
      llm_config: optional(jsonObject('Model settings for this hook, e.g. {"model": "…"}')),
    }),
  async run(args, ctx) {
    await requireProject(ctx, args.project_id);
    const trigger = parseTrigger(args.trigger);
    checkSteps(args.context_steps);
    requireAdminForSteps(args.context_steps, ctx);
    const id = idFromName(args.name, 'Hook id', { folder: false });
    if (await ctx.db.hookRuns.hook(id)) throw new CommandError(`Hook '${id}' already exists. Pick another name, or use edit_hook.`);
    await ctx.db.hooks.create({
      id,
      projectId: args.project_id,
      name: args.name,
      trigger,
      contextSteps: (args.context_steps ?? []) as Array<Record<string, unknown>>,
      promptTemplate: args.prompt_template,
      cooldownSeconds: args.cooldown_seconds ?? DEFAULT_HOOK_COOLDOWN_SECONDS,
      llmConfig: args.llm_config ?? null,
    });
    return { created: id, name: args.name, project_id: args.project_id };
  },
});

export const listHooks = defineCommand({
  name: 'list_hooks',
  group: 'hooks',
  kind: 'read',
  description: `List hooks, optionally of one project, oldest first, ${HOOK_LIST.defaultLimit} a page; total counts them all and next_offset asks for the next page.`,
  input: () => z.object({ project_id: optional(requiredText('Only this project')), ...pageFields(HOOK_LIST) }),
  list: HOOK_LIST,
  async run({ project_id, ...paging }, ctx) {
    if (project_id) await requireProject(ctx, project_id);
    const page = pageOf(paging, HOOK_LIST.defaultLimit);
    const [hooks, total] = await settleAll([ctx.db.hooks.list(project_id, page), ctx.db.hooks.count(project_id)]);
    return {
      hooks: hooks.map((h) => ({
        id: h.id,
        project_id: h.projectId,
        name: h.name,
        enabled: h.enabled,
        trigger: h.trigger,
        cooldown_seconds: h.cooldownSeconds,
      })),
      total,
      next_offset: nextOffset(page, hooks.length, total),
    };
  },
});

/** The argument each stored change came from, for edit_hook's `fields`. */
const CHANGED_FIELD: Record<keyof HookChanges, string> = {
  enabled: 'enabled',
  trigger: 'trigger',
  contextSteps: 'context_steps',
  promptTemplate: 'prompt_template',
  cooldownSeconds: 'cooldown_seconds',
  llmConfig: 'llm_config',
};

export const editHook = defineCommand({
  name: 'edit_hook',
  group: 'hooks',
  kind: 'change',
  description: 'Change a hook: enable or disable it, or change its trigger, steps, prompt, cooldown or model settings.',
  input: () =>
    z.object({
      hook_id: hookId,
      enabled: optional(boolean('Whether the hook runs')),
      trigger: optional(jsonObject('New trigger')),
      context_steps: optional(jsonList('New context steps')),
      prompt_template: optional(requiredText('New prompt template')),
      cooldown_seconds: optional(integer('New cooldown in seconds', { min: 0 })),
      llm_config: optional(jsonObject('New model settings')),
    }),
  async run(args, ctx) {
    checkSteps(args.context_steps);
    requireAdminForSteps(args.context_steps, ctx);
    const changes: HookChanges = {
      ...(args.enabled !== undefined && { enabled: args.enabled }),
      ...(args.trigger !== undefined && { trigger: parseTrigger(args.trigger) }),
      ...(args.context_steps !== undefined && { contextSteps: args.context_steps as HookContextStep[] }),
      ...(args.prompt_template !== undefined && { promptTemplate: args.prompt_template }),
      ...(args.cooldown_seconds !== undefined && { cooldownSeconds: args.cooldown_seconds }),
      ...(args.llm_config !== undefined && { llmConfig: args.llm_config }),
    };
    const fields = (Object.keys(changes) as Array<keyof HookChanges>).map((key) => CHANGED_FIELD[key]);
    if (fields.length === 0) throw new CommandError('Nothing to update: give at least one field to change.');
    if (!(await ctx.db.hooks.update(args.hook_id, changes))) throw new CommandError(`Hook '${args.hook_id}' not found.`);
    return { updated: args.hook_id, fields };
  },
});

export const deleteHook = defineCommand({
  name: 'delete_hook',
  group: 'hooks',
  kind: 'destructive',
  description: 'Delete a hook and its run history.',
  input: () => z.object({ hook_id: hookId }),
  async run({ hook_id }, ctx) {
    const hook = await ctx.db.hookRuns.hook(hook_id);
    if (!hook) throw new CommandError(`Hook '${hook_id}' not found.`);
    await ctx.db.hooks.delete(hook_id);
    return { deleted: hook_id, name: hook.name };
  },
});

export const listHookRuns = defineCommand({
  name: 'list_hook_runs',
  group: 'hooks',
  kind: 'read',
  description:
    'Recent runs of a hook, newest first; total counts every run and next_offset asks for older ones (for deep pages pass next_cursor back as cursor instead).',
  input: () => z.object({ hook_id: hookId, ...cursorPageFields(HOOK_RUN_LIST) }),
  list: HOOK_RUN_LIST,
  async run({ hook_id, cursor, ...paging }, ctx) {
    oneStartOnly({ cursor, ...paging });
    const hook = await ctx.db.hookRuns.hook(hook_id);
    if (!hook) throw new CommandError(`Hook '${hook_id}' not found.`);
    const page = pageOf(paging, HOOK_RUN_LIST.defaultLimit);
    const after = cursor === undefined ? undefined : decodeCursor(cursor, ['number', 'string'], 'list_hook_runs');
    const { runs, total, more } = await ctx.db.hookRuns.runsPage(hook_id, {
      ...page,
      after: after && { startedAt: after[0], id: after[1] },
    });
    const last = runs.at(-1);
    return {
      hook_id,
      hook_name: hook.name,
      runs: runs.map((r) => ({
        id: r.id,
        trigger_reason: r.triggerReason,
        status: r.status,
        tokens_used: r.tokensUsed,
        skipped_reason: r.skippedReason,
        started_at: r.startedAt.toISOString(),
        completed_at: r.completedAt ? r.completedAt.toISOString() : null,
      })),
      total,
      ...nextPageOf(page, {
        count: runs.length,
        total,
        more,
        lastKey: last && [last.startedAt.getTime(), last.id],
        byCursor: after !== undefined,
      }),
    };
  },
});

export const fireHook = defineCommand({
  name: 'fire_hook',
  group: 'hooks',
  kind: 'change',
  description: 'Run a hook now, ignoring its cooldown; it runs in the background.',
  input: () => z.object({ hook_id: hookId }),
  async run({ hook_id }, ctx) {
    const engine = ctx.orchestrator.hookEngine;
    if (!engine) {
      throw new CommandError(
        'The hook engine is not enabled in this process: hooks run inside the app (`npm start`). Fire the hook from Slack with /aq fire_hook.',
      );
    }
    const error = await engine.fire(hook_id);
    if (error) throw new CommandError(error);
    return { fired: hook_id, status: 'running' };
  },
});

export const hookCommands = [createHook, listHooks, editHook, deleteHook, listHookRuns, fireHook];
