import type { AnyCommand } from '../commands/catalog';
import { commandFields } from '../commands/help';

/** Slack sends slash-command text with &, < and > escaped; quotes may arrive "smart". */
export function unescapeSlackText(text: string): string {
  return text
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Splits slash-command text into words, keeping "quoted strings" and {json} / [json] values whole. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let current = '';
  let quote: string | null = null;
  let depth = 0;
  let started = false;
  for (const ch of unescapeSlackText(text)) {
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

type Field = ReturnType<typeof commandFields>[number];

const fieldCache = new WeakMap<AnyCommand, Field[]>();

/** The command's fields from its zod schema (cached: building JSON Schema is not free). */
export function fieldsOf(command: AnyCommand): Field[] {
  let fields = fieldCache.get(command);
  if (!fields) {
    fields = commandFields(command);
    fieldCache.set(command, fields);
  }
  return fields;
}

const TRUE_WORDS = new Set(['true', 'yes', 'y', 'on']);
const FALSE_WORDS = new Set(['false', 'no', 'n', 'off']);

/**
 * One value as typed in Slack: `<#C123|name>` and `<@U123>` become their ids, `#name` its name,
 * `<https://x|x>` its URL, JSON objects and lists are parsed, and numbers and booleans are
 * converted when the field's type asks for them (so an id like `042` stays text).
 */
export function parseValue(raw: string, type = 'string'): unknown {
  const mention = /^<[#@]([A-Z0-9]+)(?:\|[^>]*)?>$/.exec(raw);
  if (mention) return mention[1];
  const link = /^<((?:https?|mailto):[^|>]+)(?:\|[^>]*)?>$/.exec(raw);
  if (link) return link[1];
  if (/^#[a-z0-9_-]+$/.test(raw)) return raw.slice(1);
  const trimmed = raw.trim();
  if (/^[{[]/.test(trimmed)) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return raw;
    }
  }
  const types = type.split(' | ');
  if ((types.includes('integer') || types.includes('number')) && trimmed !== '' && !Number.isNaN(Number(trimmed))) return Number(trimmed);
  if (types.includes('boolean')) {
    const word = trimmed.toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  return raw;
}

export interface ParsedArgs {
  args: Record<string, unknown>;
  /** Bare words that no required field was left to take. */
  unused: string[];
}

/**
 * `key=value …` arguments for a command, typed by its schema. Bare words fill the command's
 * required fields in order, so `/aq get_task swift-fox-042` works.
 */
export function parseSlashArgs(command: AnyCommand, words: string[]): ParsedArgs {
  const fields = fieldsOf(command);
  const typeOf = new Map(fields.map((f) => [f.name, f.type]));
  const args: Record<string, unknown> = {};
  const positional: string[] = [];
  for (const word of words) {
    const match = /^([A-Za-z_][\w]*)=([\s\S]*)$/.exec(word);
    if (match) args[match[1]] = parseValue(match[2], typeOf.get(match[1]));
    else positional.push(word);
  }
  const open = fields.filter((f) => f.required && !(f.name in args));
  const unused: string[] = [];
  positional.forEach((word, i) => {
    const field = open[i];
    if (field) args[field.name] = parseValue(word, field.type);
    else unused.push(word);
  });
  return { args, unused };
}

/** The arguments alone (see parseSlashArgs). */
export function parseCommandArgs(command: AnyCommand, words: string[]): Record<string, unknown> {
  return parseSlashArgs(command, words).args;
}
