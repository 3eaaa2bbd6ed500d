import { z } from 'zod';
import type { AnyCommand } from '../../../src/commands/catalog';

/**
 * Inputs generated from a command's own schema (its JSON Schema, as the model sees it), so that
 * a new command, or a new field, is covered by the hardening tests without new test code.
 */

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  additionalProperties?: unknown;
  minimum?: number;
};

export function fieldsOf(command: AnyCommand): Record<string, JsonSchema> {
  const schema = z.toJSONSchema(command.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return schema.properties ?? {};
}

function minimums(schema: JsonSchema): number[] {
  if (schema.anyOf) return schema.anyOf.flatMap(minimums);
  return schema.minimum === undefined ? [] : [schema.minimum];
}

function types(schema: JsonSchema): string[] {
  if (schema.anyOf) return schema.anyOf.flatMap(types);
  if (Array.isArray(schema.type)) return schema.type;
  return schema.type ? [schema.type] : [];
}

/** One place a string can go in a command's input: where it is named, and the input carrying it. */
export interface StringSlot {
  field: string;
  /** The command's own field the slot sits in. */
  top: string;
  /** True when the value is sent as JSON text, which the field's schema may parse (or refuse). */
  asJsonText: boolean;
  input(text: string): Record<string, unknown>;
}

/** Every place in `schema` that holds text, down through lists and objects (JSON values included). */
function slotsIn(
  schema: JsonSchema,
  field: string,
  wrap: (value: unknown) => unknown,
): Array<{ field: string; wrap: (text: string) => unknown }> {
  const kinds = types(schema);
  const slots: Array<{ field: string; wrap: (text: string) => unknown }> = [];
  // A field with no type (a JSON value) takes text as well.
  if (kinds.includes('string') || kinds.length === 0) slots.push({ field, wrap });
  if (kinds.includes('array')) {
    const items = schema.items ?? {};
    slots.push(...slotsIn(items, `${field}[0]`, (value) => wrap([value])));
    if (types(items).length === 0) slots.push({ field: `${field}[0].note`, wrap: (text) => wrap([{ note: text }]) });
  }
  if (kinds.includes('object')) {
    for (const [key, inner] of Object.entries(schema.properties ?? {})) {
      slots.push(...slotsIn(inner, `${field}.${key}`, (value) => wrap({ [key]: value })));
    }
    if (!schema.properties) slots.push({ field: `${field}.note`, wrap: (text) => wrap({ note: text }) });
  }
  return slots;
}

export function stringSlots(command: AnyCommand): StringSlot[] {
  const fields = Object.entries(fieldsOf(command));
  // Valid values for every field, so that only the slot under test can be refused once parsed.
  const others = Object.fromEntries(fields.map(([name, schema]) => [name, plausible(schema, 'x')]));
  return fields.flatMap(([name, schema]) => {
    const slots = slotsIn(schema, name, (value) => value);
    const direct = slots.map(({ field, wrap }) => ({
      field,
      top: name,
      asJsonText: false,
      input: (text: string) => ({ [name]: wrap(text) }),
    }));
    // Lists and objects may also arrive as JSON text (from Slack or the model): the same text inside.
    const nested = slots.filter((slot) => slot.field !== name);
    const asText = nested.map(({ field, wrap }) => ({
      field,
      top: name,
      asJsonText: true,
      input: (text: string) => ({ ...others, [name]: JSON.stringify(wrap(text)) }),
    }));
    return [...direct, ...asText];
  });
}

/** Values of every wrong kind, and hostile text, for any field. */
export const GARBAGE: unknown[] = [
  12345,
  -1,
  1e308,
  0.5,
  true,
  null,
  {},
  [],
  [[[]]],
  { nested: { deeper: [1, { x: 'y' }] } },
  '',
  '   ',
  'ghost',
  '../../../../etc/passwd',
  "'; DROP TABLE tasks; --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal placeholder is the hostile text here
  '%s%n{0}${x}',
  '\u202e\ufeff😀',
  'x'.repeat(20_000),
];

/** A value of the right kind for a field, carrying `text` where text goes. */
export function plausible(schema: JsonSchema, text: string): unknown {
  if (schema.enum) return schema.enum[0];
  const kinds = types(schema);
  if (kinds.includes('string')) return text;
  // The smallest number the field takes (a time limit may start at 10), 1 when it says none.
  if (kinds.includes('integer') || kinds.includes('number')) return Math.max(1, ...minimums(schema));
  if (kinds.includes('boolean')) return true;
  if (kinds.includes('array')) return [];
  if (kinds.includes('object')) return {};
  return text;
}
