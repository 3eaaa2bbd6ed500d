import type { z } from 'zod';

function fieldName(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

function valueAt(args: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current: unknown = args;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) return String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  record: 'an object',
};

/** Turns the first problem zod found into one sentence that names the field. */
export function describeInputError(error: z.ZodError, args: unknown): string {
  const issue = error.issues[0];
  if (!issue) return 'The input is not valid.';
  const name = fieldName(issue.path);
  const value = valueAt(args, issue.path);
  const where = name ? `'${name}'` : 'the input';

  if (name && (value === undefined || value === null || (typeof value === 'string' && value.trim() === '' && issue.code === 'too_small'))) {
    return `Missing required field ${where}.`;
  }
  switch (issue.code) {
    case 'invalid_type': {
      const expected = TYPE_WORDS[String(issue.expected)] ?? String(issue.expected);
      if (issue.expected === 'int' || (issue.expected === 'number' && typeof value === 'number')) {
        return `Field ${where} must be a whole number (got ${shown(value)}).`;
      }
      return `Field ${where} must be ${expected} (got ${shown(value)}).`;
    }
    case 'invalid_value':
      return `Field ${where} must be one of ${issue.values.map((v) => String(v)).join(', ')} (got ${shown(value)}).`;
    case 'too_small':
      if (issue.origin === 'string') return `Field ${where} must not be empty.`;
      if (issue.origin === 'array') return `Field ${where} must have at least ${issue.minimum} item(s).`;
      return `Field ${where} must be at least ${issue.minimum} (got ${shown(value)}).`;
    case 'too_big':
      if (issue.origin === 'string') return `Field ${where} must be at most ${issue.maximum} characters.`;
      return `Field ${where} must be at most ${issue.maximum} (got ${shown(value)}).`;
    case 'unrecognized_keys':
      return `Unknown field(s): ${issue.keys.join(', ')}.`;
    default:
      return `Field ${where} is not valid: ${issue.message}.`;
  }
}
