import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AUTOMATION_KINDS, type AutomationKind } from '../db/repositories/automations';
import { DEFAULT_MAX_FAILURES } from '../orchestrator/automation-firing';
import { cronProblem } from '../orchestrator/automation-schedule';
import { CommandError } from './catalog';
import { boolean, integer, jsonObject, optional, requiredText, stringList } from './schema';

/*
 * The fields create_automation and edit_automation take, and how they become an automation's
 * settings and task template: checked per kind, so a field of another kind is refused.
 */

export const DEFAULT_RATE_LIMIT_PER_HOUR = 10;
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** The fields only automations of one kind take. */
const KIND_FIELDS: Record<AutomationKind, readonly string[]> = {
  schedule: ['cron', 'timezone', 'overlap', 'discovery_command', 'discovery_key'],
  webhook: ['secret', 'idempotency_key', 'match', 'max_body_bytes'],
  intake: ['channel_id', 'people', 'pattern', 'reaction', 'policy'],
};

/** Fields create_automation and edit_automation share. */
export const commonFields = {
  title: optional(requiredText('Task title; may use {{event.<field>}} from a webhook body or discovered item')),
  description: optional(requiredText('Task description; may use {{event.<field>}}')),
  priority: optional(integer('Priority of its tasks (lower runs first; default 100)')),
  requires_approval: optional(boolean('Its tasks wait for approval before merging')),
  rate_limit_per_hour: optional(
    integer(`Most tasks it creates in an hour (default ${DEFAULT_RATE_LIMIT_PER_HOUR})`, { min: 1, max: 1000 }),
  ),
  max_failures: optional(
    integer(`Pause after this many failures in a row (default ${DEFAULT_MAX_FAILURES}; 0 never)`, { min: 0, max: 100 }),
  ),
  cron: optional(requiredText('schedule: cron expression, e.g. "0 3 * * 1-5"')),
  timezone: optional(requiredText('schedule: IANA time zone of the cron expression (default UTC)')),
  overlap: optional(
    z.enum(['skip', 'queue']).describe('schedule: while its previous task is open, skip the run (default) or queue one after it'),
  ),
  discovery_command: optional(requiredText('schedule: a shell command printing a JSON list; one task per new item')),
  discovery_key: optional(requiredText('schedule: the field of an item that identifies it (default id)')),
  secret: optional(requiredText('webhook: HMAC-SHA256 secret, at least 16 characters (generated when left out)')),
  idempotency_key: optional(requiredText('webhook: the body field that identifies a delivery, e.g. check_run.id')),
  match: optional(jsonObject('webhook: body fields that must have these values, e.g. {"action": "completed"}')),
  max_body_bytes: optional(integer(`webhook: largest body accepted (default ${DEFAULT_MAX_BODY_BYTES})`, { min: 1, max: 1024 * 1024 })),
  channel_id: optional(requiredText('intake: the Slack channel id it reads')),
  people: optional(stringList('intake: only messages from these Slack user ids')),
  pattern: optional(requiredText('intake: only messages matching this regular expression (case-insensitive)')),
  reaction: optional(requiredText('intake: only messages someone adds this reaction to, e.g. bug')),
  policy: optional(z.enum(['propose', 'create']).describe('intake: propose the task in a thread reply (default) or create it')),
};

export type CommonArgs = { [K in keyof typeof commonFields]?: z.output<(typeof commonFields)[K]> };

export function checkFieldsOfKind(kind: AutomationKind, args: CommonArgs): void {
  for (const other of AUTOMATION_KINDS) {
    if (other === kind) continue;
    const stray = KIND_FIELDS[other].find((f) => (args as Record<string, unknown>)[f] !== undefined);
    if (stray) throw new CommandError(`${stray} is a field of ${other} automations; this one is a ${kind} automation.`);
  }
}

function validPattern(pattern: string): void {
  try {
    new RegExp(pattern, 'i');
  } catch {
    throw new CommandError(`pattern "${pattern}" is not a regular expression. Write it as JavaScript would, e.g. "bug|broken|error".`);
  }
}

/** The settings of an automation of `kind` after applying `args` over `base`. */
export function settingsOf(kind: AutomationKind, base: Record<string, unknown>, args: CommonArgs): Record<string, unknown> {
  const s: Record<string, unknown> = { ...base };
  if (args.max_failures !== undefined) s.max_failures = args.max_failures;
  if (kind === 'schedule') {
    if (args.cron !== undefined) s.cron = args.cron;
    if (args.timezone !== undefined) s.timezone = args.timezone;
    if (args.overlap !== undefined) s.overlap = args.overlap;
    if (args.discovery_command !== undefined || args.discovery_key !== undefined) {
      const d = (s.discovery ?? {}) as Record<string, unknown>;
      s.discovery = {
        ...d,
        ...(args.discovery_command !== undefined && { command: args.discovery_command }),
        ...(args.discovery_key !== undefined && { key: args.discovery_key }),
      };
    }
    s.timezone ??= 'UTC';
    s.overlap ??= 'skip';
    if (typeof s.cron !== 'string') throw new CommandError('A schedule needs cron, e.g. cron="0 3 * * 1-5" for 03:00 on weekdays.');
    const problem = cronProblem(s.cron, String(s.timezone));
    if (problem) throw new CommandError(problem);
    const discovery = s.discovery as Record<string, unknown> | undefined;
    if (discovery && typeof discovery.command !== 'string')
      throw new CommandError('discovery_key needs a discovery_command that prints the items.');
  }
  if (kind === 'webhook') {
    if (args.secret !== undefined) {
      if (args.secret.length < 16)
        throw new CommandError('secret must be at least 16 characters long; leave it out to have one generated.');
      s.secret = args.secret;
    }
    if (args.idempotency_key !== undefined) s.idempotency_key = args.idempotency_key;
    if (args.match !== undefined) s.match = args.match;
    if (args.max_body_bytes !== undefined) s.max_body_bytes = args.max_body_bytes;
    s.secret ??= randomBytes(32).toString('hex');
    s.max_body_bytes ??= DEFAULT_MAX_BODY_BYTES;
  }
  if (kind === 'intake') {
    if (args.people !== undefined) s.people = args.people;
    if (args.pattern !== undefined) {
      validPattern(args.pattern);
      s.pattern = args.pattern;
    }
    if (args.reaction !== undefined) s.reaction = args.reaction.replace(/^:|:$/g, '');
    if (args.policy !== undefined) s.policy = args.policy;
    s.policy ??= 'propose';
  }
  return s;
}

export function templateOf(base: Record<string, unknown>, args: CommonArgs): Record<string, unknown> {
  return {
    ...base,
    ...(args.title !== undefined && { title: args.title }),
    ...(args.description !== undefined && { description: args.description }),
    ...(args.priority !== undefined && { priority: args.priority }),
    ...(args.requires_approval !== undefined && { requires_approval: args.requires_approval }),
  };
}
