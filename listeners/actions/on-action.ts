import type { AllMiddlewareArgs, App, BlockAction, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { actionMatcher } from '../../src/slack/blocks/actions';

export type ActionArgs<A extends BlockAction> = SlackActionMiddlewareArgs<A> & AllMiddlewareArgs;

const registered = new WeakMap<App, Set<string>>();

/**
 * The one way a listener takes a click: the id comes from src/slack/blocks/action-ids.ts, the
 * click is acknowledged first (Slack waits 3 s at most), then handled. A `prefix` matches ids
 * that carry data after a colon (`aq_request_option:<question>:<option>`).
 */
export function onAction<A extends BlockAction = BlockButtonAction>(
  app: App,
  actionId: string,
  handle: (args: ActionArgs<A>) => Promise<unknown>,
  options: { prefix?: boolean } = {},
): void {
  const ids = registered.get(app) ?? new Set<string>();
  ids.add(actionId);
  registered.set(app, ids);
  const matcher = options.prefix ? new RegExp(`^${actionId}:`) : actionMatcher(actionId);
  app.action<A>(matcher, async (args) => {
    await args.ack();
    await handle(args as ActionArgs<A>);
  });
}

/** The action ids listeners registered on `app` (for the test that every declared id has one). */
export function registeredActionIds(app: App): ReadonlySet<string> {
  return registered.get(app) ?? new Set();
}
