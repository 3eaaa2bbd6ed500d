import { z } from 'zod';
import { COMMAND_GROUPS, type AnyCommand } from '../commands/catalog';

interface FieldHelp {
  name: string;
  type: string;
  required: boolean;
  description: string;
  choices?: string[];
}

type JsonSchema = { type?: string | string[]; enum?: unknown[]; description?: string; items?: JsonSchema; anyOf?: JsonSchema[] };

function typeOf(schema: JsonSchema): string {
  if (schema.enum) return 'choice';
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' | ');
  if (schema.type === 'array') return `list of ${schema.items ? typeOf(schema.items) : 'values'}`;
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  return schema.type ?? 'value';
}

/** The fields of a command, read from its zod schema. */
export function commandFields(command: AnyCommand): FieldHelp[] {
  const schema = z.toJSONSchema(command.input, { unrepresentable: 'any' }) as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, field]) => ({
    name,
    type: typeOf(field),
    required: required.has(name),
    description: field.description ?? '',
    ...(field.enum && { choices: field.enum.map(String) }),
  }));
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
  if (command.admin) lines.push('Admin only in Slack (AQ_ADMINS).');
  const fields = commandFields(command);
  if (fields.length === 0) {
    lines.push('', 'No fields.');
  } else {
    lines.push('', 'Fields:');
    for (const f of fields) {
      const choices = f.choices ? ` (one of: ${f.choices.join(', ')})` : '';
      lines.push(`  ${f.name} (${f.type}, ${f.required ? 'required' : 'optional'})${f.description ? ` — ${f.description}` : ''}${choices}`);
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
  const words = name.toLowerCase().split(/[_\s-]+/).filter(Boolean);
  return commands
    .map((c) => ({
      name: c.name,
      score: distance(name.toLowerCase(), c.name) - 3 * words.filter((w) => c.name.split('_').includes(w)).length,
    }))
    .sort((a, b) => a.score - b.score)
    .slice(0, limit)
    .map((c) => c.name);
}
