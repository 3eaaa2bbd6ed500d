import { z } from 'zod';

/**
 * Input helpers shared by command definitions. Values arrive as JSON from the model and the CLI,
 * and as text from Slack, so numbers and booleans also accept their usual spellings.
 */

export const requiredText = (description: string) => z.string().trim().min(1).describe(description);

export const optionalText = (description: string) => z.string().optional().describe(description);

function toNumber(value: unknown): unknown {
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  return value;
}

export const integer = (description: string, bounds: { min?: number; max?: number } = {}) => {
  let schema = z.number().int();
  if (bounds.min !== undefined) schema = schema.min(bounds.min);
  if (bounds.max !== undefined) schema = schema.max(bounds.max);
  return z.preprocess(toNumber, schema).describe(description);
};

export const decimal = (description: string, bounds: { min?: number; max?: number } = {}) => {
  let schema = z.number();
  if (bounds.min !== undefined) schema = schema.min(bounds.min);
  if (bounds.max !== undefined) schema = schema.max(bounds.max);
  return z.preprocess(toNumber, schema).describe(description);
};

const TRUE_WORDS = ['true', 'yes', 'y', 'on', '1'];
const FALSE_WORDS = ['false', 'no', 'n', 'off', '0'];

export const boolean = (description: string) =>
  z
    .preprocess((value) => {
      if (typeof value === 'string') {
        const word = value.trim().toLowerCase();
        if (TRUE_WORDS.includes(word)) return true;
        if (FALSE_WORDS.includes(word)) return false;
      }
      if (value === 1) return true;
      if (value === 0) return false;
      return value;
    }, z.boolean())
    .describe(description);

function parseJsonText(value: unknown): unknown {
  if (typeof value === 'string') {
    const text = value.trim();
    if (text.startsWith('{') || text.startsWith('[')) {
      try {
        return JSON.parse(text);
      } catch {
        return value;
      }
    }
  }
  return value;
}

export const jsonObject = (description: string) => z.preprocess(parseJsonText, z.record(z.string(), z.unknown())).describe(description);

export const jsonList = (description: string) => z.preprocess(parseJsonText, z.array(z.unknown())).describe(description);

export const stringList = (description: string) =>
  z
    .preprocess(
      (value) => {
        const parsed = parseJsonText(value);
        if (typeof parsed === 'string')
          return parsed
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
        return parsed;
      },
      z.array(z.string().trim().min(1)),
    )
    .describe(description);

/** A field the user may leave out or send empty: empty strings count as absent. */
export function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === '' || value === null ? undefined : value), schema.optional());
}
