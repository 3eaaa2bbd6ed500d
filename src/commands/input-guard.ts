/**
 * One check, before any command's schema runs, on every string anywhere in a command's input
 * (nested objects, lists and JSON values included, and the keys of objects):
 *
 * - NUL (U+0000) is always refused: SQLite ends text at it and no child process can take it in
 *   an argument or environment variable.
 * - The other C0 controls (U+0001–U+001F), DEL (U+007F) and the C1 controls (U+0080–U+009F) are
 *   refused too: nobody types them, terminals and git read them as escapes, and stored they would
 *   come back into Slack and logs. Tab, line feed and carriage return are kept: free text
 *   (descriptions, notes, prompts, commit messages) needs them.
 * - In identifier fields (a key that is `id` or ends in `_id`/`_ids`, and `depends_on`) tabs and
 *   line breaks are refused too, except at the ends where the schema trims them.
 * - Text that is not well-formed UTF-16 (half of a surrogate pair) is refused: storage would
 *   silently turn it into U+FFFD.
 * - Nesting deeper than MAX_INPUT_DEPTH is refused, so nothing later (schemas, error messages,
 *   JSON columns) can run out of stack on it.
 *
 * - Every string has a length limit, by the field it is in (TEXT_LIMITS; any other field
 *   DEFAULT_TEXT_LIMIT, text nested in JSON values NESTED_TEXT_LIMIT), and all the text of one
 *   call together at most MAX_INPUT_TEXT: a megabyte pasted into a title is refused with the
 *   limit, before it is stored, posted or sent to a model.
 *
 * The walk is iterative, so hostile input cannot exhaust the stack here either.
 */

import { codePointName } from '../util/hidden-characters';

export const MAX_INPUT_DEPTH = 32;

/** Longest text (in characters) each field takes; README's "Input limits" lists them. */
export const TEXT_LIMITS: Readonly<Record<string, number>> = {
  name: 200,
  title: 300,
  description: 32_000,
  prompt_template: 32_000,
  body: 32_000,
  text: 20_000,
  content: 200_000,
  message: 10_000,
  command: 10_000,
  answer: 4_000,
  reason: 2_000,
  author: 200,
  url: 2_000,
  source_url: 2_000,
  path: 4_096,
  working_dir: 4_096,
  specs_path: 4_096,
  pattern: 1_000,
  // JSON values and lists, which may also come as JSON text (and are checked again once parsed).
  trigger: 32_000,
  context_steps: 32_000,
  llm_config: 32_000,
  guild_channels: 32_000,
  depends_on: 32_000,
  user_ids: 32_000,
  rules: 32_000,
  add: 32_000,
  remove: 32_000,
};
/** Any other top-level field: ids, branch names, statuses and the like. */
export const DEFAULT_TEXT_LIMIT = 1_000;
/** Text inside JSON values (a hook's trigger, steps and model settings, lists). */
export const NESTED_TEXT_LIMIT = 32_000;
/** All the text of one call together. */
export const MAX_INPUT_TEXT = 500_000;

const SHORTEST_LIMIT = Math.min(...Object.values(TEXT_LIMITS), DEFAULT_TEXT_LIMIT, NESTED_TEXT_LIMIT);

const count = (n: number) => n.toLocaleString('en-US');

function textLimit(path: Path): number {
  const key = ownerKey(path);
  if (key !== undefined && TEXT_LIMITS[key] !== undefined) return TEXT_LIMITS[key];
  return path.length > 1 ? NESTED_TEXT_LIMIT : DEFAULT_TEXT_LIMIT;
}

function lengthProblem(text: string, path: Path): string | null {
  const limit = textLimit(path);
  if (text.length <= limit) return null;
  return `Field '${fieldName(path)}' is ${count(text.length)} characters long; the limit is ${count(limit)}. Shorten it (long material belongs in a note: write_note).`;
}

const IDENTIFIER_KEY = /(^|_)ids?$|^depends_on$/;

type Path = ReadonlyArray<string | number>;

function fieldName(path: Path): string {
  const shown = path.length > 4 ? [...path.slice(0, 4), '…'] : path;
  return shown
    .map((p) => (typeof p === 'number' ? `[${p}]` : p))
    .join('.')
    .replace(/\.\[/g, '[')
    .replace(/\.…$/, '…');
}

const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

type CharProblem = { kind: 'control'; code: number } | { kind: 'whitespace' } | { kind: 'surrogate' } | null;

/** The first character storage or a child process cannot take (one pass over the UTF-16 units). */
function firstBadChar(text: string): CharProblem {
  let whitespace = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === TAB || c === LINE_FEED || c === CARRIAGE_RETURN) {
      whitespace = true;
    } else if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
      return { kind: 'control', code: c };
    } else if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return { kind: 'surrogate' };
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return { kind: 'surrogate' };
    }
  }
  return whitespace ? { kind: 'whitespace' } : null;
}

/** The key that names what a value is: the last object key on its path (list items inherit it). */
function ownerKey(path: Path): string | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const part = path[i];
    if (typeof part === 'string') return part;
  }
  return undefined;
}

function textProblem(text: string, at: () => Path, isKey: boolean): string | null {
  const bad = firstBadChar(text);
  if (bad === null) return null;
  const path = at();
  const where = isKey ? `A field name inside '${fieldName(path.slice(0, -1)) || 'the input'}'` : `Field '${fieldName(path)}'`;
  if (bad.kind === 'control' && bad.code === 0) {
    return `${where} contains a NUL character (\\u0000), which cannot be stored or passed on; remove it.`;
  }
  if (bad.kind === 'control') {
    return `${where} contains the control character ${codePointName(bad.code)}, which is not allowed; only tabs and line breaks may appear in text.`;
  }
  if (bad.kind === 'surrogate') {
    return `${where} is not valid Unicode text (it holds half of a surrogate pair); send it as UTF-8 text.`;
  }
  const key = isKey ? undefined : ownerKey(path);
  if (key !== undefined && IDENTIFIER_KEY.test(key) && firstBadChar(text.trim()) !== null) {
    return `${where} contains a tab or line break; an id is a single line of text.`;
  }
  return null;
}

/** Where a value sits, as a chain to its parent: paths are built only for the error sentence. */
interface Place {
  parent: Place | null;
  key: string | number;
  depth: number;
}

function pathOf(place: Place): Path {
  const path: Array<string | number> = [];
  for (let at: Place | null = place; at !== null; at = at.parent) path.push(at.key);
  return path.reverse();
}

function childOf(parent: Place | null, key: string | number): Place {
  return { parent, key, depth: parent ? parent.depth + 1 : 1 };
}

/**
 * The first problem in a command's raw input, as a sentence naming the field, or null when every
 * string in it can be stored and passed on. Only containers go on the stack, so a long list of
 * numbers or strings costs no memory beyond the input itself.
 */
export function findUnsafeInput(args: Record<string, unknown>): string | null {
  const stack: Array<{ value: object; place: Place | null }> = [{ value: args, place: null }];
  let total = 0;
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, place } = item;
    if (place !== null && place.depth > MAX_INPUT_DEPTH) {
      return `Field '${fieldName(pathOf(place).slice(0, 1))}' is nested more than ${MAX_INPUT_DEPTH} levels deep; send a flatter value.`;
    }
    const check = (key: string | number, child: unknown): string | null => {
      if (typeof key === 'string') {
        const problem = textProblem(key, () => pathOf(childOf(place, key)), true);
        if (problem) return problem;
      }
      if (typeof child === 'string') {
        const problem = textProblem(child, () => pathOf(childOf(place, key)), false);
        // Paths are built only for text longer than the shortest limit.
        const tooLong = problem ?? (child.length > SHORTEST_LIMIT ? lengthProblem(child, pathOf(childOf(place, key))) : null);
        if (tooLong) return tooLong;
        total += child.length;
        return total > MAX_INPUT_TEXT ? `This call holds more than ${count(MAX_INPUT_TEXT)} characters of text; send less at once.` : null;
      }
      if (child !== null && typeof child === 'object') stack.push({ value: child, place: childOf(place, key) });
      return null;
    };
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const problem = check(i, value[i]);
        if (problem) return problem;
      }
    } else {
      for (const key of Object.keys(value)) {
        const problem = check(key, (value as Record<string, unknown>)[key]);
        if (problem) return problem;
      }
    }
  }
  return null;
}
