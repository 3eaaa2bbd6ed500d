import type { KnownBlock } from '@slack/types';
import { capBlocks, codeBlock, context, emoji, esc, section, type Rendered } from './common';

/** Fields whose text reads best as code (diffs, logs, file contents, command output). */
const CODE_FIELDS = new Set(['diff', 'log', 'content', 'stdout', 'stderr', 'results', 'pull_output']);

function inlineValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return esc(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `\`${esc(JSON.stringify(value)).slice(0, 300)}\``;
}

/** A list of records as one line each (name/title/id first), for results like list_projects. */
function listLines(items: Array<Record<string, unknown>>): string[] {
  return items.map((item) => {
    const label = item.title ?? item.name ?? item.id ?? item.task_id;
    const status = typeof item.status === 'string' ? `${emoji(item.status)} ` : typeof item.state === 'string' ? `${emoji(item.state)} ` : '';
    const rest = Object.entries(item)
      .filter(([k, v]) => !['title', 'name'].includes(k) && v !== null && v !== undefined && typeof v !== 'object')
      .slice(0, 5)
      .map(([k, v]) => `${k}: ${esc(v)}`)
      .join(' · ');
    return `${status}*${esc(label)}*${rest ? `\n${rest}` : ''}`;
  });
}

/** Any command result as blocks: scalars as fields, lists one line per item, text as code. */
export function genericBlocks(command: string, result: Record<string, unknown>): Rendered {
  const blocks: KnownBlock[] = [];
  const scalars: string[] = [];
  for (const [key, value] of Object.entries(result)) {
    if (CODE_FIELDS.has(key) && typeof value === 'string') {
      blocks.push(section(`*${key}*`), codeBlock(value));
    } else if (Array.isArray(value) && value.every((v) => v && typeof v === 'object')) {
      const lines = listLines(value as Array<Record<string, unknown>>);
      blocks.push(section(`*${key}* (${value.length})`));
      for (let i = 0; i < lines.length; i += 10) blocks.push(section(lines.slice(i, i + 10).join('\n\n') || '—'));
    } else {
      scalars.push(`*${key}*: ${inlineValue(value)}`);
    }
  }
  if (scalars.length) blocks.unshift(section(scalars.join('\n')));
  blocks.unshift(context(`\`${command}\``));
  const summary = scalars[0]?.replace(/\*/g, '') ?? command;
  return { text: `${command}: ${summary}`.slice(0, 300), blocks: capBlocks(blocks) };
}

export function errorText(message: string): string {
  return `:warning: ${message}`;
}
