import type { KnownBlock } from '@slack/types';
import { renderResult } from '../../../src/slack/blocks/render';
import { answeredReply, permissionPost, questionPost, settledRequestBlocks, timedOutReply } from '../../../src/slack/blocks/cards-requests';
import { denyRequestModal } from '../../../src/slack/blocks/request-modals';
import { txt } from '../../../src/slack/blocks/text';
import { HOSTILE, HOSTILE_FORMATTING, showsLiterally } from '../../support/hostile';
import { validateCall, validateMessage } from '../../support/slack-validator';

function expectSafe(label: string, rendered: { text: string; blocks: unknown[] }): void {
  expect({ label, violations: validateMessage(rendered as unknown as Record<string, unknown>) }).toEqual({ label, violations: [] });
}

const SHORT = '<!here> *x* & <b>';

/** An agent's question and permission request carry text the model wrote: all of it is shown literally. */
describe('agent requests in Slack, with hostile text', () => {
  const question = {
    request_id: 7,
    kind: 'question',
    title: HOSTILE,
    questions: [
      {
        question: HOSTILE,
        header: HOSTILE_FORMATTING,
        options: [
          { label: SHORT, description: HOSTILE },
          { label: 'x'.repeat(120), description: HOSTILE_FORMATTING },
        ],
        multiSelect: true,
      },
    ],
    timeout_seconds: 3600,
    on_timeout: 'skip',
  };
  const permission = {
    request_id: 8,
    kind: 'permission',
    title: HOSTILE,
    tool: HOSTILE_FORMATTING,
    detail: `curl ${HOSTILE}`,
    description: HOSTILE,
    reason: HOSTILE,
    rule: `Bash(${HOSTILE})`,
    timeout_seconds: 60,
    on_timeout: 'block',
  };

  it('posts questions with option buttons and permissions with Allow / Always / Deny, literally', () => {
    const q = questionPost(question);
    expectSafe('question', q);
    expect(showsLiterally(q.blocks, HOSTILE)).toBe(true);
    expect(showsLiterally(q.blocks, SHORT)).toBe(true);
    expect(q.text).not.toContain('<!channel>');
    const elements = q.blocks
      .filter((b) => b.type === 'actions')
      .flatMap((b) => (b as { elements: Array<{ action_id: string; value?: string; options?: Array<{ value: string }> }> }).elements);
    // A multi-select question: a checkbox per option, and Submit for all that are ticked.
    expect(elements.map((b) => [b.action_id, b.value ?? b.options?.map((o) => o.value)])).toEqual([
      ['aq_request_choices', ['0', '1']],
      ['aq_request_submit_choices', '7:0'],
    ]);
    const single = questionPost({ ...question, questions: [{ ...question.questions[0], multiSelect: false }] });
    expectSafe('single-select question', single);
    const buttons = single.blocks
      .filter((b) => b.type === 'actions')
      .flatMap((b) => (b as { elements: Array<{ action_id: string; value: string }> }).elements);
    expect(buttons.map((b) => [b.action_id, b.value])).toEqual([
      ['aq_request_option:0:0', '7:0:0'],
      ['aq_request_option:0:1', '7:0:1'],
    ]);

    const p = permissionPost(permission);
    expectSafe('permission', p);
    expect(showsLiterally(p.blocks, `curl ${HOSTILE}`)).toBe(true);
    expect(showsLiterally(p.blocks, `Bash(${HOSTILE})`)).toBe(true);
    expect(JSON.stringify(p.blocks)).toContain('the task is blocked');
    const ids = p.blocks.flatMap((b) =>
      b.type === 'actions' ? (b as { elements: Array<{ action_id: string }> }).elements.map((e) => e.action_id) : [],
    );
    expect(ids).toEqual(['aq_request_allow', 'aq_request_always', 'aq_request_deny']);

    const two = questionPost({ ...question, questions: [...question.questions, { question: 'Port?', options: [{ label: '80' }] }] });
    const partly = settledRequestBlocks(two.blocks as KnownBlock[], [txt('Answered')], 'aqreq:7:1');
    expect(partly.filter((b) => b.type === 'actions').map((b) => b.block_id)).toEqual(['aqreq:7:0']);
    const settled = settledRequestBlocks(p.blocks as KnownBlock[], [txt(`Denied by ${HOSTILE}`)]);
    expect(settled.some((b) => b.type === 'actions')).toBe(false);
    expectSafe('settled', { text: p.text, blocks: settled });
    expect(validateCall('views.open', { view: denyRequestModal({ request_id: '8', channel_id: 'C1', message_ts: '1.2' }) })).toEqual([]);
  });

  it('tells answers and timeouts in the thread literally, mentioning only a real user id', () => {
    const answered = answeredReply({ kind: 'question', title: HOSTILE, answered_by: HOSTILE, answers: { [HOSTILE]: SHORT } });
    expectSafe('answered', answered);
    expect(showsLiterally(answered.blocks, SHORT)).toBe(true);
    expect(JSON.stringify(answered.blocks)).not.toContain('"type":"user"');
    const denied = answeredReply({ kind: 'permission', title: 'T', decision: 'deny', answered_by: 'U123ABC', reason: HOSTILE });
    expectSafe('denied', denied);
    expect(JSON.stringify(denied.blocks)).toContain('"user_id":"U123ABC"');
    expect(showsLiterally(denied.blocks, HOSTILE)).toBe(true);
    const late = timedOutReply({ kind: 'permission', title: HOSTILE, action: 'block', timeout_seconds: 90 });
    expectSafe('timed out', late);
    expect(JSON.stringify(late.blocks)).toContain('the task is blocked');
  });

  it('renders the policy and request commands literally', () => {
    for (const [name, result] of [
      [
        'get_tool_policy',
        { project_id: HOSTILE, rules: [HOSTILE], is_default: false, asks_people: true, timeout_seconds: 60, on_timeout: 'skip' },
      ],
      [
        'list_agent_requests',
        {
          requests: [{ id: 1, kind: 'permission', tool: HOSTILE, detail: HOSTILE, task_id: 't', status: 'pending' }],
          total: 1,
          next_offset: null,
        },
      ],
      ['answer_agent_request', { request_id: 1, title: HOSTILE, decision: 'always', status: 'answered', rule_added: HOSTILE }],
    ] as const) {
      const rendered = renderResult(name, {}, result as unknown as Record<string, unknown>);
      expectSafe(name, rendered);
      expect({ name, literal: showsLiterally(rendered.blocks, HOSTILE) }).toEqual({ name, literal: true });
    }
  });
});
