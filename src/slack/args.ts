import type { AnyCommand } from '../commands/catalog';
import { commandFields } from '../cli/help';

/** Splits slash-command text into words, keeping "quoted strings" and {json} / [json] values whole. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let current = '';
  let quote: string | null = null;
  let depth = 0;
  let started = false;
  for (const ch of text.replace(/[\u201c\u201d]/g, '"').replace(/[\u2018\u2019]/g, "'")) {
    if (quote) {
      if (ch === quote) quote = null;
      else current += ch;
      continue;
    }
    if (depth === 0 && (ch === '"' || ch === "'")) {
      quote = ch;
      started = true;
      continue;
    }
    if (ch === '{' || ch === '[') depth++;
    if ((ch === '}' || ch === ']') && depth > 0) depth--;
    if (depth === 0 && /\s/.test(ch)) {
      if (started) tokens.push(current);
      current = '';
      started = false;
      continue;
    }
    current += ch;
    started = true;
  }
  if (started) tokens.push(current);
  return tokens;
}

/** Slack's `<#C123|name>` and `<@U123>` become their ids; JSON values are parsed. */
function value(raw: string): unknown {
  const channel = /^<#([A-Z0-9]+)(?:\|[^>]*)?>$/.exec(raw);
  if (channel) return channel[1];
  const user = /^<@([A-Z0-9]+)(?:\|[^>]*)?>$/.exec(raw);
  if (user) return user[1];
  const trimmed = raw.trim();
  if (/^[{[]/.test(trimmed)) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return raw;
    }
  }
  return raw;
}

/**
 * `key=value …` arguments for a command. Bare words fill the command's required fields in order,
 * so `/aq get_task swift-fox-042` works. Values stay text; the command's schema converts numbers
 * and booleans.
 */
export function parseCommandArgs(command: AnyCommand, words: string[]): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const positional: string[] = [];
  for (const word of words) {
    const match = /^([A-Za-z_][\w]*)=([\s\S]*)$/.exec(word);
    if (match) args[match[1]] = value(match[2]);
    else positional.push(word);
  }
  const open = commandFields(command)
    .filter((f) => f.required && !(f.name in args))
    .map((f) => f.name);
  positional.forEach((word, i) => {
    const field = open[i];
    if (field) args[field] = value(word);
  });
  return args;
}
