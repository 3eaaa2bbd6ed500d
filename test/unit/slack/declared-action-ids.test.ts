import { createSlackApp } from '../../../src/slack-app';
import { ALL_ACTION_IDS } from '../../../src/slack/blocks/action-ids';
import { registeredActionIds } from '../../../listeners/actions/on-action';
import { gallery } from '../../support/block-gallery';
import { makeTestRuntime } from '../../support/runtime';

/** Every action_id a click can send from a rendered payload (form inputs are read from the view's state instead). */
function actionIdsIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) actionIdsIn(v, into);
  else if (value && typeof value === 'object' && (value as { type?: unknown }).type !== 'input') {
    for (const [key, v] of Object.entries(value)) {
      if (key === 'action_id' && typeof v === 'string') into.add(v);
      else actionIdsIn(v, into);
    }
  }
  return into;
}

/** The declared id behind a rendered one: without the uniqueness suffix (`~2`) or the data after a colon. */
const declaredPart = (id: string) => id.replace(/~\d+$/, '').replace(/:.*$/, '');

describe('action ids: declared once, each with its listener', () => {
  it('every declared action id is registered by a listener of the real Bolt app, and nothing else is', async () => {
    const rt = await makeTestRuntime({ SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: 'secret' });
    try {
      const { app, stopListeners } = createSlackApp(rt);
      expect([...registeredActionIds(app)].sort()).toEqual([...ALL_ACTION_IDS].sort());
      await stopListeners();
    } finally {
      await rt.cleanup();
    }
  });

  it('every action id the renderers put on a card, the Home or a modal is a declared one', async () => {
    const rendered = actionIdsIn(await gallery());
    expect(rendered.size).toBeGreaterThan(10);
    const undeclared = [...rendered].map(declaredPart).filter((id) => !ALL_ACTION_IDS.includes(id));
    expect(undeclared).toEqual([]);
  });
});
