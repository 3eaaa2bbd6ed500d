import { WebClient } from '@slack/web-api';
import { FakeSlack } from '../../support/fake-slack';
import { HOSTILE } from '../../support/hostile';
import { mrkdwnProblems, validateMessage, validateView, visibleTexts } from '../../support/slack-validator';

const section = (text: string, type = 'mrkdwn') => ({ type: 'section', text: { type, text } });

describe('slack-validator', () => {
  it('accepts what our templates write: escaped text, user and channel mentions, dates, links', () => {
    expect(
      mrkdwnProblems(
        'Approved by <@U1> in <#C1> at <!date^1700000000^{time}|noon>, see <https://github.com/x/y/pull/1|PR 1>. a &amp; b &lt;c&gt;',
      ),
    ).toEqual([]);
  });

  it('flags broadcasts, hostile mentions and links, stray markup and unescaped & or <', () => {
    const problems = mrkdwnProblems(HOSTILE);
    expect(problems).toEqual(
      expect.arrayContaining([
        'a broadcast or group mention <!channel>',
        'a mention of <@U999> taken from text we did not write',
        'a link <https://evil.example|click me> taken from text we did not write',
        expect.stringContaining('an unescaped &'),
      ]),
    );
    expect(mrkdwnProblems('<!here> <!subteam^S1> <javascript:x> 1 < 2')).toEqual([
      'a broadcast or group mention <!here>',
      'a broadcast or group mention <!subteam^S1>',
      'unescaped markup <javascript:x>',
      'an unescaped <',
    ]);
  });

  it('checks Block Kit limits on messages and views', () => {
    const tooMany = Array.from({ length: 51 }, () => section('x'));
    const problems = validateMessage({
      text: 'x'.repeat(4000),
      blocks: [
        ...tooMany,
        section('y'.repeat(3001)),
        { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } },
        { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'b'.repeat(76) }, action_id: 'a' }] },
        section(''),
        { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: '' }] }] },
        {
          type: 'input',
          label: { type: 'plain_text', text: 'Project' },
          element: {
            type: 'static_select',
            action_id: 'v',
            options: [
              { text: { type: 'plain_text', text: 'a' }, value: 'a' },
              { text: { type: 'plain_text', text: 'b' }, value: 'a' },
            ],
            initial_option: { text: { type: 'plain_text', text: 'c' }, value: 'c' },
          },
        },
      ],
    }).map((v) => `${v.path}: ${v.problem}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        'text: the top-level text is 4000 characters (at most 3999)',
        'blocks: 57 blocks (at most 50)',
        'blocks[51].text.text: text is 3001 characters (at most 3000)',
        'blocks[52].text.text: text is 151 characters (at most 150)',
        'blocks[53].elements[0].text.text: text is 76 characters (at most 75)',
        'blocks[54].text.text: empty text',
        'blocks[55].elements[0].elements[0].text: empty rich text',
        'blocks[56].element.options[1].value: duplicate option value a',
        'blocks[56].element.initial_option: initial_option is not one of the options',
      ]),
    );
    expect(validateView({ type: 'home', blocks: Array.from({ length: 101 }, () => ({ type: 'divider' })) })).toEqual([
      { path: 'view.blocks', problem: '101 blocks (at most 100)' },
    ]);
    expect(
      validateView({ type: 'modal', title: { type: 'plain_text', text: 'A title far too long for a modal' }, blocks: [] })[0].problem,
    ).toContain('at most 24');
  });

  it('refuses an action_id twice in one block and a block_id twice in one message or view, as Slack does', () => {
    const button = (action_id: string) => ({ type: 'button', text: { type: 'plain_text', text: 'b' }, action_id, value: 'v' });
    const row = (block_id: string, ...ids: string[]) => ({ type: 'actions', block_id, elements: ids.map(button) });
    expect(validateMessage({ text: 'x', blocks: [row('r1', 'a', 'b', 'a')] })).toEqual([
      { path: 'blocks[0].elements[2].action_id', problem: 'duplicate action_id a in one block' },
    ]);
    // The same action_id in two blocks is what Slack allows (one Approve per task row).
    expect(validateMessage({ text: 'x', blocks: [row('r1', 'a'), row('r2', 'a')] })).toEqual([]);
    expect(validateView({ type: 'home', blocks: [row('r1', 'a'), section('s'), row('r1', 'b')] })).toEqual([
      { path: 'view.blocks[2].block_id', problem: 'duplicate block_id r1 in one message or view' },
    ]);
  });

  it('reads what a person sees: rich and plain text literally, mrkdwn decoded', () => {
    const blocks = [
      section('a &amp; b'),
      {
        type: 'rich_text',
        elements: [
          {
            type: 'rich_text_section',
            elements: [
              { type: 'text', text: '*x* ' },
              { type: 'text', text: 'y', style: { bold: true } },
            ],
          },
        ],
      },
    ];
    expect(visibleTexts(blocks)).toEqual(['a & b', '*x* y']);
    expect(visibleTexts(blocks, { literalOnly: true })).toEqual(['*x* y']);
  });
});

describe('FakeSlack runs every payload through the validator', () => {
  it('fails close() when the app posted a hostile or oversized payload, and passes clean ones', async () => {
    const slack = await FakeSlack.start();
    const client = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    await client.chat.postMessage({ channel: 'C1', text: 'fine &amp; escaped', blocks: [section('ok')] });
    expect(slack.violations).toEqual([]);
    await client.chat.postMessage({ channel: 'C1', text: `Task ${HOSTILE}` });
    await client.views.publish({
      user_id: 'U1',
      view: { type: 'home', blocks: Array.from({ length: 101 }, () => ({ type: 'divider' as const })) },
    });
    await fetch(slack.responseUrl('r9'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: '<!here>' }),
    });
    expect(slack.violations.map((v) => v.where)).toEqual([
      'chat.postMessage',
      'chat.postMessage',
      'chat.postMessage',
      'chat.postMessage',
      'chat.postMessage',
      'views.publish',
      'response_url r9',
    ]);
    await expect(slack.close()).rejects.toThrow(
      /chat\.postMessage text: a broadcast or group mention <!channel>[\s\S]*a right-to-left or left-to-right override[\s\S]*views\.publish view\.blocks: 101 blocks[\s\S]*response_url r9 text: a broadcast or group mention <!here>/,
    );
  });

  it('lets a test take the violations it caused on purpose', async () => {
    const slack = await FakeSlack.start();
    const client = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    await client.chat.postMessage({ channel: 'C1', text: '<!channel>' });
    expect(slack.takeViolations()).toHaveLength(1);
    await expect(slack.close()).resolves.toBeUndefined();
  });
});
