import type { DataTableBlock, KnownBlock, RawNumberElement, RawTextElement } from '@slack/types';
import type { HomeData } from '../home-data';
import { plural } from './cards-format';
import { clip } from './common';

/**
 * Slack's data_table limits (Block Kit reference, data table block): a header row and 1 to 100
 * rows, 1 to 20 columns, at most 10,000 characters across all cells, 1 to 100 rows a page.
 */
export const DATA_TABLE_LIMITS = { rows: 100, columns: 20, cellChars: 10_000, pageSize: 100 } as const;

/** Ready tasks the Home's table lists (the sections list HOME_CAPS.ready). */
export const HOME_TABLE_ROWS = DATA_TABLE_LIMITS.rows;
const PAGE_SIZE = 20;
/** Characters we leave every cell but the title, and the most a title gets however few the rows. */
const TITLE_MAX = 80;

const textCell = (text: string): RawTextElement => ({ type: 'raw_text', text: text || '—' });
const numberCell = (value: number): RawNumberElement => ({ type: 'raw_number', value, text: String(value) });

/**
 * The ready queue as one sortable, paginated data_table: position, title, project, priority and
 * id of up to 100 tasks, where the sections show ten. Cells are literal text (Slack parses no
 * markup in raw_text); titles are cut so the table stays within Slack's 10,000 characters.
 */
export function readyQueueTable(data: HomeData): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: 'divider' },
    { type: 'section', text: { type: 'mrkdwn', text: `*Ready queue* · ${data.readyTotal || 'empty'}` } },
  ];
  const tasks = data.ready.slice(0, HOME_TABLE_ROWS);
  if (tasks.length > 0) {
    const header = ['#', 'Task', 'Project', 'Priority', 'Id'].map(textCell);
    const fixed = tasks.reduce(
      (n, t, i) => n + String(i + 1).length + t.projectId.length + String(t.priority ?? '').length + t.id.length,
      0,
    );
    const headerChars = header.reduce((n, c) => n + c.text.length, 0);
    const titleMax = Math.max(10, Math.min(TITLE_MAX, Math.floor((DATA_TABLE_LIMITS.cellChars - headerChars - fixed) / tasks.length)));
    const rows = tasks.map((t, i) => [
      numberCell(i + 1),
      textCell(clip(t.title.replace(/\s+/g, ' ').trim(), titleMax)),
      textCell(t.projectId),
      t.priority === undefined ? textCell('') : numberCell(t.priority),
      textCell(t.id),
    ]);
    const table: DataTableBlock = {
      type: 'data_table',
      caption: 'Ready tasks in the order they start',
      page_size: Math.min(PAGE_SIZE, DATA_TABLE_LIMITS.pageSize),
      row_header_column_index: 1,
      rows: [header, ...rows],
    };
    blocks.push(table);
  }
  const more = data.readyTotal - tasks.length;
  if (more > 0) blocks.push(contextLine(`${plural(more, 'more task')} waiting: \`/aq list_tasks status=READY offset=${tasks.length}\``));
  const reasons = [...new Set(tasks.map((t) => t.waiting).filter((w): w is string => !!w))].slice(0, 3);
  for (const reason of reasons)
    blocks.push({ type: 'context', elements: [{ type: 'plain_text', text: `⏳ Not starting: ${reason}`.slice(0, 2000), emoji: true }] });
  return blocks;
}

const contextLine = (text: string): KnownBlock => ({ type: 'context', elements: [{ type: 'mrkdwn', text }] });
