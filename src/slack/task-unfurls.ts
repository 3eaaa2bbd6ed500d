import type { EntityMetadata, LinkUnfurls } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { CommandHandler } from '../commands/handler';
import { FALLBACK_ERRORS, slackErrorCode, type SlackFeatures } from './ai-surfaces/features';
import { taskEntityOf, taskIdOfLink, taskLink } from './blocks/work-object';
import type { Result } from './blocks/result-types';
import { taskGoneUnfurl, taskUnfurl } from './blocks/task-unfurl';

/** The part of a `link_shared` event an unfurl needs. */
export interface SharedLinks {
  channel: string;
  message_ts: string;
  user: string;
  links: Array<{ url: string; domain?: string }>;
  unfurl_id?: string;
  source?: string;
}

export interface TaskUnfurlDeps {
  handler: Pick<CommandHandler, 'execute'>;
  client: WebClient;
  features: SlackFeatures;
  /** AQ_PUBLIC_URL: only links under it are task links. */
  publicUrl: string | undefined;
  log: (message: string) => void;
}

/** Answers to chat.unfurl that mean the app may not unfurl at all (the links:write scope, the token): nothing else is tried. */
const UNFURL_REFUSALS = new Set([
  'missing_scope',
  'not_allowed_token_type',
  'unknown_method',
  'method_deprecated',
  'no_permission',
  'access_denied',
  'team_access_not_granted',
]);
/** Answers that refuse the Work Object only: the links are unfurled the classic way instead. */
const ENTITY_REFUSALS = new Set(['invalid_metadata', 'invalid_metadata_format', ...FALLBACK_ERRORS]);

/** Which message (or composer) the links are in: the event's unfurl_id and source where it gave them. */
type UnfurlTarget = { channel: string; ts: string } | { unfurl_id: string; source: 'composer' | 'conversations_history' };
type Found = { url: string; taskId: string; task: Result<'get_task'> | null };

/**
 * A task link pasted anywhere (`<AQ_PUBLIC_URL>/tasks/<id>`, Slack's `link_shared`) unfurls as the
 * task: its Work Object (the entity its cards carry, read through get_task as the person who
 * pasted it), or, where the workspace takes none or the task is gone, a classic unfurl saying so.
 * Refusals are noticed once (work_objects, task_unfurls); a failure is logged, never thrown.
 */
export async function unfurlTaskLinks(deps: TaskUnfurlDeps, event: SharedLinks): Promise<void> {
  const { publicUrl } = deps;
  if (!publicUrl) return;
  const named = event.links
    .map((l) => ({ url: l.url, taskId: taskIdOfLink(l.url, publicUrl) }))
    .filter((l): l is { url: string; taskId: string } => l.taskId !== null);
  if (named.length === 0 || !(await deps.features.usable('task_unfurls'))) return;
  const found: Found[] = [];
  for (const link of named) {
    const task = await deps.handler.execute(
      'get_task',
      { task_id: link.taskId },
      { source: 'slack', userId: event.user, channelId: event.channel },
    );
    found.push({ ...link, task: 'error' in task ? null : task });
  }
  const target: UnfurlTarget =
    event.unfurl_id && (event.source === 'composer' || event.source === 'conversations_history')
      ? { unfurl_id: event.unfurl_id, source: event.source }
      : { channel: event.channel, ts: event.message_ts };
  try {
    if (found.every((f) => f.task) && (await deps.features.usable('work_objects'))) {
      const entities: EntityMetadata[] = found.map((f) => ({
        ...taskEntityOf(f.task!, taskLink(publicUrl, f.taskId)),
        app_unfurl_url: f.url,
      }));
      if ((await tryEntities(deps, target, entities)) !== 'classic') return;
    }
    const unfurls: LinkUnfurls = Object.fromEntries(
      found.map((f) => [f.url, f.task ? taskUnfurl(f.task, taskLink(publicUrl, f.taskId)) : taskGoneUnfurl(f.taskId)]),
    );
    await deps.features.attempt('task_unfurls', 'chat.unfurl', () => deps.client.chat.unfurl({ ...target, unfurls }));
  } catch (err) {
    deps.log(`Task links in ${event.channel} were not unfurled: ${slackErrorCode(err) ?? String(err)}`);
  }
}

/** The Work Object unfurl: done, refused (no unfurls here at all), or classic (the entity refused: the caller unfurls the classic way). */
async function tryEntities(
  deps: TaskUnfurlDeps,
  target: UnfurlTarget,
  entities: EntityMetadata[],
): Promise<'done' | 'refused' | 'classic'> {
  try {
    await deps.client.chat.unfurl({ ...target, metadata: { entities } });
    await deps.features.confirmNative('task_unfurls');
    await deps.features.confirmNative('work_objects');
    return 'done';
  } catch (err) {
    const code = slackErrorCode(err);
    if (code && UNFURL_REFUSALS.has(code)) {
      await deps.features.fallBack('task_unfurls', 'chat.unfurl', code);
      return 'refused';
    }
    if (!code || !ENTITY_REFUSALS.has(code)) throw err;
    await deps.features.fallBack('work_objects', 'chat.unfurl', code);
    return 'classic';
  }
}
