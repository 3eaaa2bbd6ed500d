/**
 * Hook prompt templating. Placeholders:
 * - `{{step_N}}`: the main text of context step N (stdout, content, body or diff, first non-empty),
 *   else the step's whole result as JSON; an absent step renders as empty text.
 * - `{{step_N.field}}`: one field of step N's result.
 * - `{{event}}` (JSON) and `{{event.field}}` (dotted paths allowed): the triggering event.
 * Anything else is left exactly as written, so a typo is visible in the prompt instead of vanishing.
 */

export type StepResult = Record<string, unknown>;

const MAIN_TEXT_FIELDS = ['stdout', 'content', 'body', 'diff'] as const;

export function mainText(result: StepResult): string {
  for (const field of MAIN_TEXT_FIELDS) {
    const value = result[field];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return JSON.stringify(result);
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

export function pathValue(root: unknown, path: string[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g;
/** A placeholder right where `lastIndex` stands. */
const PLACEHOLDER_HERE = new RegExp(PLACEHOLDER.source, 'y');

/** The text a placeholder's expression stands for, or null when it is not one of ours. */
function placeholderValue(expression: string, steps: StepResult[], event: Record<string, unknown> | null): string | null {
  const [head, ...rest] = expression.split('.');
  const stepMatch = /^step_(\d+)$/.exec(head);
  if (stepMatch) {
    const step = steps[Number(stepMatch[1])];
    if (!step) return '';
    return rest.length === 0 ? mainText(step) : asText(pathValue(step, rest));
  }
  if (head === 'event') {
    if (!event) return '';
    return rest.length === 0 ? JSON.stringify(event) : asText(pathValue(event, rest));
  }
  return null;
}

export function renderHookPrompt(template: string, steps: StepResult[], event: Record<string, unknown> | null = null): string {
  return template.replace(PLACEHOLDER, (whole, expression: string) => placeholderValue(expression, steps, event) ?? whole);
}

/** A URL's scheme and authority, up to where its path, query or fragment starts. */
const PAST_AUTHORITY = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*[/?#]/;

/**
 * An http step's URL with its placeholders filled: in the path, query and fragment each value is
 * percent-encoded, so a task's title or a fetched page stays one value there and cannot add a
 * parameter, end the query or climb the path; before that (a template whose host itself comes
 * from a placeholder, as an admin may write it) the value goes in as it is.
 */
export function renderHookUrl(template: string, steps: StepResult[], event: Record<string, unknown> | null = null): string {
  let url = '';
  let from = 0;
  for (const found of template.matchAll(PLACEHOLDER)) {
    url += template.slice(from, found.index);
    from = found.index + found[0].length;
    const value = placeholderValue(found[1], steps, event);
    url += value === null ? found[0] : PAST_AUTHORITY.test(url) ? encodeURIComponent(value) : value;
  }
  return url + template.slice(from);
}

/** The prefix of the environment variables a shell step's placeholders become. */
export const SHELL_VALUE_PREFIX = 'AQ_HOOK_VALUE_';

/**
 * A shell step's command with each placeholder replaced by a reference to an environment
 * variable (`values`) that holds its text, never by the text itself: an event's fields (a task's
 * title, a webhook's body) and an earlier step's output come from people, agents and other
 * sites, and written into the command they would run as shell code. The reference suits where
 * the placeholder stands, so the value is one word as written: `"${V}"` outside quotes, `${V}` in
 * double quotes, and in single quotes, which expand nothing, the quotes closed around `"${V}"`.
 * Should a command's quoting be misread, a reference is still only expanded, never run.
 */
export function renderShellCommand(
  template: string,
  steps: StepResult[],
  event: Record<string, unknown> | null = null,
): { command: string; values: Record<string, string> } {
  const values: Record<string, string> = {};
  let command = '';
  let quote: '' | "'" | '"' = '';
  for (let i = 0; i < template.length; ) {
    PLACEHOLDER_HERE.lastIndex = i;
    const found = template.startsWith('{{', i) ? PLACEHOLDER_HERE.exec(template) : null;
    const value = found ? placeholderValue(found[1], steps, event) : null;
    if (found && value !== null) {
      const name = `${SHELL_VALUE_PREFIX}${Object.keys(values).length + 1}`;
      values[name] = value;
      command += quote === '"' ? `\${${name}}` : quote === "'" ? `'"\${${name}}"'` : `"\${${name}}"`;
      i += found[0].length;
      continue;
    }
    const char = template[i];
    if (char === '\\' && quote !== "'") {
      command += template.slice(i, i + 2);
      i += 2;
      continue;
    }
    if ((char === "'" || char === '"') && (quote === '' || quote === char)) quote = quote ? '' : char;
    command += char;
    i++;
  }
  return { command, values };
}
