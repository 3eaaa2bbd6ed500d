import type { SystemStateRepository } from '../../db/repositories/system-state';
import { slackFeatureKey, type SlackFeature, type StoredSlackFeature } from '../../db/slack-features';

/**
 * Slack's answers that mean "this workspace (plan, app settings, token) does not offer that
 * method", as opposed to a failure of one call: on these the feature falls back for good.
 */
export const FALLBACK_ERRORS = new Set([
  'not_allowed',
  'unknown_method',
  'missing_scope',
  'method_deprecated',
  'feature_not_enabled',
  'not_allowed_token_type',
  'not_enabled',
  'no_permission',
  'access_denied',
  'team_access_not_granted',
  'method_not_supported_for_channel_type',
  'restricted_action',
]);

/** A refused feature is tried again after this long (a workspace may upgrade its plan or its app settings). */
export const RECHECK_AFTER_MS = 24 * 60 * 60 * 1000;

/** Slack's error code of a failed Web API call (`data.error`), if it is one. */
export function slackErrorCode(err: unknown): string | null {
  const code = (err as { data?: { error?: unknown } } | null)?.data?.error;
  return typeof code === 'string' ? code : null;
}

export type Attempt<T> = { ok: true; value: T } | { ok: false; slackError: string };

/**
 * Which of Slack's AI surfaces to use: each feature is tried, and a refusal (FALLBACK_ERRORS)
 * is logged once, stored in system_state for every process and restart, and answered with the
 * classic path from then on. Other failures are the caller's (they say nothing about the workspace).
 */
export class SlackFeatures {
  private readonly confirmed = new Set<SlackFeature>();
  private readonly logged = new Set<SlackFeature>();

  constructor(
    private readonly state: Pick<SystemStateRepository, 'get' | 'set'>,
    private readonly log: (message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** False while the workspace is known to refuse the feature. */
  async usable(feature: SlackFeature): Promise<boolean> {
    const stored = await this.state.get<StoredSlackFeature | null>(slackFeatureKey(feature), null);
    if (stored?.mode !== 'fallback') return true;
    return this.now() - Date.parse(stored.since) > RECHECK_AFTER_MS;
  }

  /** True while a refusal of `feature` is on record (even one old enough to be tried again). */
  async refusedBefore(feature: SlackFeature): Promise<boolean> {
    const stored = await this.state.get<StoredSlackFeature | null>(slackFeatureKey(feature), null);
    return stored?.mode === 'fallback';
  }

  /**
   * Runs a native call for `feature`. A refusal is recorded and reported as `{ ok: false }`;
   * any other error is thrown. `refusals` adds the answers that also mean "not offered" for this
   * feature (a new block type a workspace does not know comes back as `invalid_blocks`).
   */
  async attempt<T>(feature: SlackFeature, method: string, call: () => Promise<T>, refusals: readonly string[] = []): Promise<Attempt<T>> {
    try {
      const value = await call();
      await this.confirmNative(feature);
      return { ok: true, value };
    } catch (err) {
      const code = slackErrorCode(err);
      if (!code || !(FALLBACK_ERRORS.has(code) || refusals.includes(code))) throw err;
      await this.fallBack(feature, method, code);
      return { ok: false, slackError: code };
    }
  }

  /** Records that the workspace refused `feature` (logged once per process). */
  async fallBack(feature: SlackFeature, method: string, slackError: string): Promise<void> {
    this.confirmed.delete(feature);
    if (!this.logged.has(feature)) {
      this.logged.add(feature);
      this.log(
        `Slack answered ${slackError} to ${method}: ${consequence(feature)} (README, "Slack's AI surfaces"; get_status shows it under slack_features).`,
      );
    }
    const stored: StoredSlackFeature = { mode: 'fallback', method, slack_error: slackError, since: new Date(this.now()).toISOString() };
    await this.state.set(slackFeatureKey(feature), stored);
  }

  /** Records that the workspace accepted `feature` (once per process). */
  async confirmNative(feature: SlackFeature): Promise<void> {
    if (this.confirmed.has(feature)) return;
    this.confirmed.add(feature);
    this.logged.delete(feature);
    await this.state.set(slackFeatureKey(feature), {
      mode: 'native',
      since: new Date(this.now()).toISOString(),
    } satisfies StoredSlackFeature);
  }
}

function consequence(feature: SlackFeature): string {
  switch (feature) {
    case 'streaming':
      return 'chat replies are posted whole instead of streamed';
    case 'assistant_status':
      return 'chat replies show a "Thinking…" message instead of Slack\'s status';
    case 'assistant_panel':
      return 'the assistant panel gets its suggestions as a message, and threads keep their default title';
    case 'agent_sessions':
      return 'task threads are not agent sessions; their card and replies tell the story';
    case 'feedback_buttons':
      return "chat replies get plain 👍 / 👎 buttons instead of Slack's feedback buttons";
    case 'task_rooms':
      return 'tasks get no room (code channel); their thread is where people follow and steer them';
    case 'room_views':
      return "task rooms show no diff or pull request tab; the thread's card and get_task_diff tell the same";
    case 'work_objects':
      return 'task cards are posted without their Work Object, so a shared task shows as a message and opens no details pane';
    case 'home_data_table':
      return 'the App Home lists the queue in sections, fewer rows than a table holds';
    case 'plan_blocks':
      return 'plans show as a list of their tasks, updated in place, instead of a plan block of task cards';
    case 'plan_canvas':
      return 'task rooms get no plan canvas; plans are revised with revise_plan';
    case 'task_unfurls':
      return 'pasted task links are not unfurled; they show as plain links';
  }
}

const shared = new WeakMap<object, SlackFeatures>();

/** One SlackFeatures per database in a process, so the listeners and the notifier log a refusal once. */
export function slackFeaturesFor(state: Pick<SystemStateRepository, 'get' | 'set'>, log: (message: string) => void): SlackFeatures {
  let features = shared.get(state);
  if (!features) {
    features = new SlackFeatures(state, log);
    shared.set(state, features);
  }
  return features;
}
