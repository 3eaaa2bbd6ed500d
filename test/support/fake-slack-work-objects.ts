/**
 * The Work Object half of the fake Slack: messages' `metadata.entities` and `entity.presentDetails`
 * (docs.slack.dev: messaging/work-objects-implementation, reference/methods/entity.presentDetails;
 * local @slack/types message-metadata.d.ts), each payload checked against what Slack requires, and
 * a switch that refuses them the way a workspace without Work Objects does.
 */

import { mrkdwnProblems, type Violation } from './slack-validator';

export const ENTITY_TYPES = new Set([
  'slack#/entities/task',
  'slack#/entities/file',
  'slack#/entities/item',
  'slack#/entities/incident',
  'slack#/entities/content_item',
]);
/** entity.presentDetails `error.status` values Slack accepts. */
export const DETAILS_ERROR_STATUSES = new Set([
  'restricted',
  'internal_error',
  'not_found',
  'custom',
  'custom_partial_view',
  'timeout',
  'edit_error',
]);

/** What a workspace without Work Objects answers (the errors the app must fall back on). */
export type WorkObjectRefusal = 'not_allowed' | 'unknown_method' | 'missing_scope' | 'feature_not_enabled' | 'invalid_metadata';

/** The problems of one entity (Slack answers invalid_metadata for any of them). */
function entityProblems(at: string, entity: Record<string, unknown>, add: (path: string, problem: string) => void): void {
  if (!ENTITY_TYPES.has(String(entity.entity_type))) add(`${at}.entity_type`, `entity_type ${String(entity.entity_type)}`);
  if (typeof entity.url !== 'string' || !/^https?:\/\//.test(entity.url)) add(`${at}.url`, 'no http(s) url');
  const ref = entity.external_ref as Record<string, unknown> | undefined;
  if (typeof ref?.id !== 'string' || !ref.id) add(`${at}.external_ref.id`, 'no external_ref id');
  const payload = entity.entity_payload as Record<string, unknown> | undefined;
  const title = ((payload?.attributes as Record<string, unknown> | undefined)?.title as Record<string, unknown> | undefined)?.text;
  if (typeof title !== 'string' || !title.trim()) add(`${at}.entity_payload.attributes.title.text`, 'no title');
  // Every string a person reads: Slack parses &, < and > in it as in any text, so ours are escaped.
  const walk = (node: unknown, path: string): void => {
    if (typeof node === 'string') {
      if (/^https?:\/\//.test(node) && !/[<>\s]/.test(node)) return;
      for (const problem of mrkdwnProblems(node)) add(path, problem);
    } else if (Array.isArray(node)) for (const [i, child] of node.entries()) walk(child, `${path}[${i}]`);
    else if (node && typeof node === 'object') for (const [key, value] of Object.entries(node)) walk(value, `${path}.${key}`);
  };
  walk(payload, `${at}.entity_payload`);
}

/** The problems of a message's `metadata.entities` or an entity.presentDetails call. */
export function workObjectProblems(method: string, args: Record<string, unknown>): Violation[] {
  const problems: Violation[] = [];
  const add = (path: string, problem: string) => problems.push({ path, problem });
  if (method === 'entity.presentDetails') {
    if (typeof args.trigger_id !== 'string' || !args.trigger_id) add('trigger_id', 'no trigger_id');
    if ((args.metadata === undefined) === (args.error === undefined)) add('metadata', 'exactly one of metadata and error');
    if (args.metadata && typeof args.metadata === 'object') entityProblems('metadata', args.metadata as Record<string, unknown>, add);
    const error = args.error as Record<string, unknown> | undefined;
    if (error) {
      if (!DETAILS_ERROR_STATUSES.has(String(error.status))) add('error.status', `status ${String(error.status)}`);
      for (const key of ['custom_title', 'custom_message'])
        if (typeof error[key] === 'string') for (const p of mrkdwnProblems(String(error[key]))) add(`error.${key}`, p);
    }
    return problems;
  }
  if (method === 'chat.unfurl') unfurlTargetProblems(args, add);
  const entities = (args.metadata as Record<string, unknown> | undefined)?.entities;
  if (entities === undefined) return problems;
  if (!Array.isArray(entities) || entities.length === 0) add('metadata.entities', 'not a list of entities');
  else
    entities.forEach((e, i) => {
      entityProblems(`metadata.entities[${i}]`, e as Record<string, unknown>, add);
      const posted = (e as Record<string, unknown>).app_unfurl_url;
      if (method === 'chat.unfurl' && (typeof posted !== 'string' || !/^https?:\/\//.test(posted)))
        add(`metadata.entities[${i}].app_unfurl_url`, 'chat.unfurl needs the URL as posted');
    });
  return problems;
}

/**
 * chat.unfurl's own rules (docs.slack.dev reference/methods/chat.unfurl): channel and ts, or
 * unfurl_id and source (composer | conversations_history); unfurls or metadata.
 */
function unfurlTargetProblems(args: Record<string, unknown>, add: (path: string, problem: string) => void): void {
  const byMessage = Boolean(args.channel) && Boolean(args.ts);
  const byId = Boolean(args.unfurl_id) && Boolean(args.source);
  if (byMessage === byId) add('channel', 'give channel and ts, or unfurl_id and source');
  if (args.source !== undefined && args.source !== 'composer' && args.source !== 'conversations_history')
    add('source', `source ${String(args.source)}`);
  if (args.unfurls === undefined && args.metadata === undefined) add('unfurls', 'unfurls or metadata is needed');
  if (args.unfurls !== undefined) {
    const unfurls = args.unfurls as Record<string, unknown>;
    if (!unfurls || typeof unfurls !== 'object' || Array.isArray(unfurls)) add('unfurls', 'not a map of URL to unfurl');
    else for (const url of Object.keys(unfurls)) if (!/^https?:\/\//.test(url)) add(`unfurls.${url}`, 'a key that is not a URL');
  }
}

/** Work Objects as a workspace keeps them: the details panes presented, and an optional refusal. */
export class FakeWorkObjects {
  /** Each entity.presentDetails call's arguments, in order. */
  readonly presented: Array<Record<string, unknown>> = [];
  /** Each chat.unfurl Slack took, in order. */
  readonly unfurled: Array<Record<string, unknown>> = [];
  private refusal: WorkObjectRefusal | null = null;

  /** From now on, messages with entities and entity.presentDetails are answered `error`. */
  refuse(error: WorkObjectRefusal): void {
    this.refusal = error;
  }

  allow(): void {
    this.refusal = null;
  }

  /** An answer for `method`, or null when the call is not about Work Objects (the default answer applies). */
  answer(method: string, args: Record<string, unknown>): Record<string, unknown> | null {
    const carriesEntities = (args.metadata as Record<string, unknown> | undefined)?.entities !== undefined;
    if (method === 'entity.presentDetails') {
      if (this.refusal) return { ok: false, error: this.refusal };
      const problems = workObjectProblems(method, args);
      if (problems.length) return { ok: false, error: 'invalid_metadata', detail: problems.map((p) => `${p.path}: ${p.problem}`) };
      this.presented.push(args);
      return { ok: true };
    }
    if (method === 'chat.unfurl') {
      if (this.refusal && carriesEntities) return { ok: false, error: this.refusal };
      const problems = workObjectProblems(method, args);
      if (problems.length)
        return {
          ok: false,
          error: carriesEntities ? 'invalid_metadata' : 'invalid_arguments',
          detail: problems.map((p) => `${p.path}: ${p.problem}`),
        };
      this.unfurled.push(args);
      return { ok: true };
    }
    if ((method === 'chat.postMessage' || method === 'chat.update') && carriesEntities) {
      if (this.refusal) return { ok: false, error: this.refusal };
      if (workObjectProblems(method, args).length) return { ok: false, error: 'invalid_metadata' };
    }
    return null;
  }
}
