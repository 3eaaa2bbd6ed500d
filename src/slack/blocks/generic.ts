import type { KnownBlock } from '@slack/types';
import { clip, emoji, fallbackOf, LIMITS, type Rendered } from './common';
import { fitBlocks, longCode, type FileUpload } from './long';
import { bold, md, packRich, txt, type Line } from './text';

/** Fields whose text reads best as code (diffs, logs, file contents, command output). */
const CODE_FIELDS = new Set(['diff', 'log', 'content', 'stdout', 'stderr', 'results', 'pull_output', 'output']);

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** One record of a list as a line (name/title/id first, then every other field), all literal. */
function itemLine(item: Record<string, unknown>): Line {
  const label = item.title ?? item.name ?? item.id ?? item.task_id;
  const state = typeof item.status === 'string' ? item.status : typeof item.state === 'string' ? item.state : null;
  const rest = Object.entries(item)
    .filter(([k, v]) => !['title', 'name'].includes(k) && v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => `${k}: ${scalarText(v)}`)
    .join(' · ');
  return [state ? txt(`${emoji(state)} `) : null, bold(scalarText(label)), rest ? txt(`\n${rest}`) : null];
}

/** Any command result as blocks: scalars as key/value lines, lists one line per item, text as code. */
export function genericBlocks(command: string, result: Record<string, unknown>): Rendered {
  const body: KnownBlock[] = [];
  const scalars: Line[] = [];
  const files: FileUpload[] = [];
  for (const [key, value] of Object.entries(result)) {
    if (CODE_FIELDS.has(key) && typeof value === 'string') {
      const long = longCode(key, value, `${command}-${key}.txt`);
      body.push(...packRich([[bold(key)]], LIMITS.richText), ...long.blocks);
      if (long.file) files.push(long.file);
    } else if (Array.isArray(value) && value.length > 0 && value.every((v) => v && typeof v === 'object' && !Array.isArray(v))) {
      const items = value as Array<Record<string, unknown>>;
      body.push(...packRich([[bold(key), txt(` (${items.length})`)]], LIMITS.richText));
      const lines = items.map(itemLine).flatMap((line, i) => (i === 0 ? [line] : [[], line]));
      body.push(...packRich(lines, LIMITS.richText));
    } else {
      scalars.push([bold(key), txt(': '), scalarText(value).includes('\n') ? txt(`\n${scalarText(value)}`) : txt(scalarText(value))]);
    }
  }
  const blocks: KnownBlock[] = [
    { type: 'context', elements: [{ type: 'mrkdwn', text: md`\`${command}\``.text }] },
    ...packRich(scalars, LIMITS.richText),
    ...body,
  ];
  const fitted = fitBlocks(blocks, () => JSON.stringify(result, null, 2), `${command}.json`);
  if (fitted.file) files.push(fitted.file);
  const first = Object.entries(result).find(([, v]) => v === null || typeof v !== 'object');
  const summary = first ? `${first[0]}: ${scalarText(first[1])}` : command;
  return { text: fallbackOf(clip(`${command}: ${summary}`, 300)), blocks: fitted.blocks, ...(files.length && { files }) };
}

/** An error for a person: the sentence as is (escaped), with the help hint for the command. */
export function errorText(message: string): string {
  return fallbackOf(`:warning: ${message}`);
}
