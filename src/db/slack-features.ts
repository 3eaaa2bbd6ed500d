import type { SystemStateRepository } from './repositories/system-state';

/**
 * Slack's AI surfaces this app uses when the workspace offers them, each with a classic fallback.
 * Which one a workspace refused is stored in `system_state` (one row per feature, under this
 * prefix), so every process and every restart sees the same answer and get_status can show it.
 */
export const SLACK_FEATURE_KEY_PREFIX = 'slack_feature:';

export const SLACK_FEATURES = [
  'streaming',
  'assistant_status',
  'assistant_panel',
  'agent_sessions',
  'feedback_buttons',
  'task_rooms',
  'room_views',
  'work_objects',
  'home_data_table',
  'plan_blocks',
  'plan_canvas',
  'task_unfurls',
] as const;
export type SlackFeature = (typeof SLACK_FEATURES)[number];

/** `native`: Slack accepted the feature's method; `fallback`: it answered `slack_error`, so the classic path is used. */
export interface StoredSlackFeature {
  mode: 'native' | 'fallback';
  /** The Web API method and Slack's error that decided a fallback. */
  method?: string;
  slack_error?: string;
  since: string;
}

export function slackFeatureKey(feature: SlackFeature): string {
  return SLACK_FEATURE_KEY_PREFIX + feature;
}

/** Every feature some process has tried, with what Slack answered (empty before the Slack app ran). */
export async function readSlackFeatures(
  state: Pick<SystemStateRepository, 'getMany'>,
): Promise<Partial<Record<SlackFeature, StoredSlackFeature>>> {
  const stored = await state.getMany<StoredSlackFeature | null>(SLACK_FEATURES.map(slackFeatureKey));
  return Object.fromEntries(SLACK_FEATURES.flatMap((f) => (stored.get(slackFeatureKey(f)) ? [[f, stored.get(slackFeatureKey(f))]] : [])));
}
