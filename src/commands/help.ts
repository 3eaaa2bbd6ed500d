import { z } from 'zod';
import { COMMAND_GROUPS, isAdminCommand, modelAccessOf, type AnyCommand } from './catalog';

interface FieldHelp {
  name: string;
  type: string;
  required: boolean;
  description: string;
  choices?: string[];
  /** A schema default (`.default(x)`); most commands state theirs in the description instead. */
  default?: unknown;
}

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  description?: string;
  default?: unknown;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
};

function typeOf(schema: JsonSchema): string {
  if (schema.enum) return 'choice';
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' | ');
  if (schema.type === 'array') return `list of ${schema.items ? typeOf(schema.items) : 'values'}`;
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  return schema.type ?? 'value';
}

type ObjectSchema = { properties?: Record<string, JsonSchema>; required?: string[] };

/**
 * The fields of a command, read from its zod schema: the input view says what a caller must send
 * (a field with a default is optional there); the output view keeps defaults the input view drops.
 */
export function commandFields(command: AnyCommand): FieldHelp[] {
  const input = z.toJSONSchema(command.input, { unrepresentable: 'any', io: 'input' }) as ObjectSchema;
  const output = z.toJSONSchema(command.input, { unrepresentable: 'any' }) as ObjectSchema;
  const required = new Set(input.required ?? []);
  return Object.entries(input.properties ?? {}).map(([name, field]) => {
    const fallback = field.default ?? output.properties?.[name]?.default;
    return {
      name,
      type: typeOf(field),
      required: required.has(name),
      description: field.description ?? output.properties?.[name]?.description ?? '',
      ...(field.enum && { choices: field.enum.map(String) }),
      ...(fallback !== undefined && { default: fallback }),
    };
  });
}

export function commandListText(commands: readonly AnyCommand[]): string {
  const lines: string[] = [];
  for (const group of COMMAND_GROUPS) {
    const inGroup = commands.filter((c) => c.group === group);
    if (inGroup.length === 0) continue;
    lines.push(`${group[0].toUpperCase()}${group.slice(1)}:`);
    const width = Math.max(...inGroup.map((c) => c.name.length));
    for (const c of inGroup) lines.push(`  ${c.name.padEnd(width)}  ${c.description}`);
    lines.push('');
  }
  lines.push('Run `aq help COMMAND` for a command\'s fields, and `aq exec COMMAND \'{"field": "value"}\'` to run it.');
  return lines.join('\n');
}

export function commandHelpText(command: AnyCommand): string {
  const lines = [`${command.name} — ${command.description}`];
  lines.push(`Class: ${command.kind}${modelAccessOf(command) === 'confirm' ? ' (the chat agent asks a person to confirm it)' : ''}.`);
  if (isAdminCommand(command)) lines.push('Admin only in Slack (AQ_ADMINS).');
  const fields = commandFields(command);
  if (fields.length === 0) {
    lines.push('', 'No fields.');
  } else {
    lines.push('', 'Fields:');
    for (const f of fields) {
      const choices = f.choices ? ` (one of: ${f.choices.join(', ')})` : '';
      const fallback = f.default !== undefined ? `, default ${JSON.stringify(f.default)}` : '';
      lines.push(
        `  ${f.name} (${f.type}, ${f.required ? 'required' : 'optional'}${fallback})${f.description ? ` — ${f.description}` : ''}${choices}`,
      );
    }
  }
  return lines.join('\n');
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}

/** Command names close to `name`: shared words first, then small edit distance. */
export function suggestCommands(name: string, commands: readonly AnyCommand[], limit = 3): string[] {
  const words = name
    .toLowerCase()
    .split(/[_\s-]+/)
    .filter(Boolean);
  return commands
    .map((c) => ({
      name: c.name,
      score: distance(name.toLowerCase(), c.name) - 3 * words.filter((w) => c.name.split('_').includes(w)).length,
    }))
    .sort((a, b) => a.score - b.score)
    .slice(0, limit)
    .map((c) => c.name);
}
