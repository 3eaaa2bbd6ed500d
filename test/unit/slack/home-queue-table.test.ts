import type { DataTableBlock } from '@slack/types';
import { readyQueueTable } from '../../../src/slack/blocks/home-queue-table';
import type { HomeData } from '../../../src/slack/home-data';
import { dataTableProblems } from '../../support/slack-data-table';
import { validateView } from '../../support/slack-validator';

const home = (ready: HomeData['ready'], readyTotal = ready.length): HomeData => ({
  projectCount: 1,
  repoCount: 0,
  agents: [],
  byStatus: { READY: readyTotal },
  schedulingPaused: false,
  attention: [],
  attentionTotal: 0,
  running: [],
  runningTotal: 0,
  ready,
  readyTotal,
  pausedProjects: [],
});

const task = (i: number, title = `Task ${i}`) => ({ id: `t-${i}`, title, projectId: 'web', priority: i % 3 });
const tableOf = (blocks: ReturnType<typeof readyQueueTable>) => blocks.find((b) => b.type === 'data_table') as DataTableBlock | undefined;

describe('the ready queue as a data_table', () => {
  it("keeps 100 rows of long titles within Slack's 10,000 characters, and says how many more wait", () => {
    const blocks = readyQueueTable(
      home(
        Array.from({ length: 100 }, (_, i) => task(i, `${'x'.repeat(300)} ${i}`)),
        140,
      ),
    );
    const table = tableOf(blocks)!;
    expect(table.rows).toHaveLength(101);
    expect(dataTableProblems('table', table as unknown as Record<string, unknown>)).toEqual([]);
    expect(validateView({ type: 'home', blocks })).toEqual([]);
    expect(JSON.stringify(blocks)).toContain('40 more tasks waiting: `/aq list_tasks status=READY offset=100`');
  });

  it('shows no table for an empty queue (Slack wants a row besides the header)', () => {
    const blocks = readyQueueTable(home([]));
    expect(tableOf(blocks)).toBeUndefined();
    expect(JSON.stringify(blocks)).toContain('*Ready queue* · empty');
  });

  it('is refused by the fake when it breaks a rule Slack documents', () => {
    const table = tableOf(readyQueueTable(home([task(1), task(2)])))! as unknown as Record<string, unknown>;
    expect(dataTableProblems('t', table)).toEqual([]);
    const rows = table.rows as unknown[][];
    const problems = (block: Record<string, unknown>) => dataTableProblems('t', block).map((p) => p.problem);
    expect(problems({ ...table, rows: [rows[0]] })).toEqual(['1 rows with the header (2 to 101)']);
    expect(problems({ ...table, rows: [rows[0], rows[1].slice(1)] })).toEqual(['4 cells (every row has 5)']);
    expect(problems({ ...table, page_size: 101 })).toEqual(['page_size 101 (1 to 100)']);
    expect(problems({ ...table, caption: '' })).toEqual(['no caption']);
    const long = { type: 'raw_text', text: 'y'.repeat(10_001) };
    expect(problems({ ...table, rows: [rows[0], [long, ...rows[1].slice(1)]] })).toEqual([
      expect.stringMatching(/^\d+ characters across the cells \(at most 10000\)$/),
    ]);
  });
});
