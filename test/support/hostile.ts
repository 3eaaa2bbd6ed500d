import { withoutDirectionOverrides } from '../../src/util/hidden-characters';
import { HOSTILE_HOST, HOSTILE_USER, visibleTexts } from './slack-validator';

/**
 * Text a hostile or careless person, agent or model could put anywhere: a broadcast, a mention, a
 * disguised link, an ampersand, unbalanced formatting, and a right-to-left override left open
 * (it would reverse what Slack shows after it). Every surface must show it literally.
 */
export const HOSTILE = `<!channel> *URGENT* _fix_ ~now~ <@${HOSTILE_USER}> & <https://${HOSTILE_HOST}|click me>\u202Eoof`;

/** Unbalanced formatting and code fences that would break a card if pasted into mrkdwn. */
export const HOSTILE_FORMATTING = '*open `tick ```fence _half ~strike >quote';

/** Multi-line hostile text, as an agent's summary or a command's output might be. */
export const HOSTILE_BLOCK = `${HOSTILE}\n\`\`\`\n${HOSTILE}\n\`\`\`\n${HOSTILE_FORMATTING}\n[${HOSTILE}](https://${HOSTILE_HOST}/x|y)`;

/**
 * Text as a person reads it in Slack: without the invisible direction overrides and isolates,
 * which the renderers leave out (the validator fails a payload that holds one).
 */
export function asRead(text: string): string {
  return withoutDirectionOverrides(text);
}

/** True when `text` shows in the payload exactly, in a text Slack does not format (plain_text, rich text). */
export function showsLiterally(payload: unknown, text: string): boolean {
  return visibleTexts(payload, { literalOnly: true }).some((t) => asRead(t).includes(asRead(text)));
}

/** True when `text` is what a person reads somewhere in the payload (mrkdwn decoded, or literal). */
export function showsSomewhere(payload: unknown, text: string): boolean {
  return visibleTexts(payload).some((t) => asRead(t).includes(asRead(text)));
}
