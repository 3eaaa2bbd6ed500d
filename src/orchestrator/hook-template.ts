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

export function renderHookPrompt(template: string, steps: StepResult[], event: Record<string, unknown> | null = null): string {
  return template.replace(PLACEHOLDER, (whole, expression: string) => {
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
    return whole;
  });
}
