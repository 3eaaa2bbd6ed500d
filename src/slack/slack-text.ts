/**
 * Slack message text as a person reads it, for a model or an agent: mentions become names,
 * links keep their address, entities are decoded. Slack writes `<@U123>`, `<#C1|general>`,
 * `<https://x|label>`, `<!here>` and escapes `&`, `<`, `>` in what people typed.
 */

/** The user ids mentioned in a message's text. */
export function mentionedUsers(text: string): string[] {
  return [...text.matchAll(/<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g)].map((m) => m[1]);
}

function decode(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function special(inner: string): string {
  const [command, label] = inner.slice(1).split('|');
  if (label) return decode(label);
  if (command.startsWith('subteam^')) return '@group';
  if (command.startsWith('date^')) return 'a date';
  return `@${command}`;
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&' };

function markup(inner: string, names: ReadonlyMap<string, string>): string {
  if (inner.startsWith('@')) {
    const [id, label] = inner.slice(1).split('|');
    return `@${names.get(id) ?? (label ? decode(label) : id)}`;
  }
  if (inner.startsWith('#')) {
    const [id, label] = inner.slice(1).split('|');
    return `#${label ? decode(label) : id}`;
  }
  if (inner.startsWith('!')) return special(inner);
  const [url, label] = inner.split('|');
  const address = decode(url).replace(/^mailto:/i, '');
  const shown = label ? decode(label) : '';
  return !shown || shown === address || decode(url) === shown ? address : `${shown} (${address})`;
}

/** Plain text of Slack mrkdwn; `names` maps user ids to display names (unknown ids stay ids). */
export function slackToPlain(text: string, names: ReadonlyMap<string, string> = new Map()): string {
  // One pass, so text decoded from an entity is never read as markup or decoded twice.
  return text.replace(/<([^<>]*)>|&lt;|&gt;|&amp;/g, (whole, inner: string | undefined) =>
    inner === undefined ? ENTITIES[whole] : markup(inner, names),
  );
}
