import type { KnownBlock } from '@slack/types';
import { firstSentence } from '../../../src/slack/blocks/help';
import { permissionPost, timedOutReply } from '../../../src/slack/blocks/cards-requests';
import { tryWords } from '../../../src/slack/blocks/cards-format';
import { threadRoot } from '../../../src/slack/blocks/cards-thread';
import { statusWord } from '../../../src/slack/blocks/common';
import { taskButtons, taskDetailBlocks, taskListBlocks } from '../../../src/slack/blocks/tasks';
import { homeBlocks } from '../../../src/slack/home';
import type { HomeData } from '../../../src/slack/home-data';
import type { Result } from '../../../src/slack/blocks/result-types';
import { visibleTexts } from '../../support/slack-validator';
import { taskResult } from '../../support/task-result';

const seen = (blocks: KnownBlock[]) => visibleTexts(blocks).join('\n');
/** Every button's label, in rows and beside sections. */
const buttons = (blocks: KnownBlock[]) =>
  blocks.flatMap((b) => {
    const elements = b.type === 'actions' ? b.elements : b.type === 'section' && b.accessory ? [b.accessory] : [];
    return elements.filter((e) => e.type === 'button').map((e) => (e as { text: { text: string } }).text.text);
  });

const emptyHome: HomeData = {
  projectCount: 0,
  repoCount: 0,
  agents: [],
  byStatus: {},
  schedulingPaused: false,
  attention: [],
  attentionTotal: 0,
  running: [],
  runningTotal: 0,
  ready: [],
  readyTotal: 0,
  pausedProjects: [],
};

describe('what people read', () => {
  it('counts tries only once a task has failed before', () => {
    expect(tryWords('IN_PROGRESS', '0 of 3')).toBeNull();
    expect(tryWords('IN_PROGRESS', '1 of 3')).toBe('try 2 of 3');
    expect(tryWords('FAILED', '3 of 3')).toBe('try 3 of 3');
    const root = {
      id: 't-1',
      title: 'Fix it',
      projectId: 'web',
      agent: 'claude-1',
      branch: null,
      prUrl: null,
      tokens: null,
      costUsd: null,
    };
    expect(seen(threadRoot({ ...root, status: 'IN_PROGRESS', retries: '0 of 3' }).blocks as KnownBlock[])).not.toContain('try');
  });

  it('shows an approved task waiting in its merge train under Needs you with its place, and no Approve', () => {
    const row = { id: 't1', title: 'Land me', projectId: 'p', detail: null, prUrl: null, status: 'AWAITING_APPROVAL' as const };
    const train = { train: 'web', place: 1, state: 'checking', since: '2026-11-26T06:00:00.000Z', tries: 1, last_outcome: null } as const;
    const home = {
      ...emptyHome,
      projectCount: 1,
      agents: [{ id: 'a', name: 'a', state: 'IDLE' }],
      byStatus: { AWAITING_APPROVAL: 1 },
      attentionTotal: 1,
    };
    const waiting = JSON.stringify(homeBlocks({ ...home, attention: [{ ...row, train }] }));
    expect(waiting).toContain('🚂 #1 in the merge train');
    expect(waiting).toContain('sent back 1 time');
    expect(waiting).not.toContain('aq_approve_task');
    expect(waiting).toContain('aq_restart_task');
    expect(seen(homeBlocks({ ...home, attention: [{ ...row, train }] }))).toContain('approved, waiting to land');
    const asking = JSON.stringify(homeBlocks({ ...home, attention: [{ ...row, train: null }] }));
    expect(asking).toContain('aq_approve_task');
    expect(seen(homeBlocks({ ...home, attention: [{ ...row, train: null }] }))).toContain('awaiting approval');
  });

  it('greets a fresh install with its first steps, not a row of zero counts or a second New project button', () => {
    const fresh = homeBlocks(emptyHome);
    expect(seen(fresh)).not.toContain('0 projects');
    expect(buttons(fresh).filter((b) => /project/i.test(b))).toEqual(['Create a project']);
    const busy = homeBlocks({ ...emptyHome, projectCount: 2, agents: [{ id: 'a', name: 'a', state: 'IDLE' }] });
    expect(seen(busy)).toContain('2 projects · 1 agent');
    expect(buttons(busy)).toContain('New project');
  });

  it("gives a task card only the facts that are set, in the thread root's words", () => {
    const card = (more: Partial<Result<'get_task'>>) => seen(taskDetailBlocks(taskResult(more)).blocks as KnownBlock[]);
    expect(card({})).toContain('ready · web · priority 5');
    expect(card({})).not.toMatch(/—|try|approval/);
    expect(card({ status: 'FAILED', retry_count: 3, assigned_agent: 'claude-1', requires_approval: true })).toContain(
      'failed · web · priority 5 · agent claude-1 · try 3 of 3 · needs approval',
    );
  });

  it('lists tasks with the same facts in the same order as their cards', () => {
    const list = taskListBlocks(
      {
        tasks: [{ id: 't-1', title: 'Fix it', status: 'IN_PROGRESS', project_id: 'web', priority: 5, assigned_agent: 'claude-1' }],
        total: 1,
      },
      {},
    );
    expect(seen(list.blocks as KnownBlock[])).toContain('running · web · priority 5 · agent claude-1');
  });

  it('offers a failed task the same buttons, in the same order, in its thread as on the Home', () => {
    const row = taskButtons('t-1', 'FAILED') as KnownBlock;
    expect(buttons([row])).toEqual(['Restart', 'Skip', 'View error']);
  });

  it('says states in words, the same everywhere', () => {
    expect(statusWord('IN_PROGRESS')).toBe('running');
    expect(statusWord('WAITING_INPUT')).toBe('waiting for input');
    expect(statusWord('SOMETHING_NEW')).toBe('something new');
  });

  it('keeps command names out of request cards and ends sentences once', () => {
    const p = permissionPost({ request_id: '1', title: 'Fix it', tool: 'Bash', detail: 'ls', rule: 'Bash(ls:*)', timeout_seconds: 60 });
    expect(seen(p.blocks as KnownBlock[])).not.toContain('get_tool_policy');
    expect(seen(p.blocks as KnownBlock[])).toContain("adds Bash(ls:*) to the project's tool policy. Unanswered after 1m");
    const late = seen(timedOutReply({ title: 'Fix it', kind: 'permission', timeout_seconds: 60, action: 'block' }).blocks as KnownBlock[]);
    expect(late).toContain('within 1m, so the task is blocked. Restart it when you can answer.');
  });

  it('lists a command in the overview by its first sentence', () => {
    expect(firstSentence('Create a task. It waits for its dependencies.')).toBe('Create a task');
    expect(firstSentence('Run hooks, e.g. nightly ones. More.')).toBe('Run hooks, e.g. nightly ones');
    expect(firstSentence('Overview: agents and counts')).toBe('Overview: agents and counts');
  });
});
