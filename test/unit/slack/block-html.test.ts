import { blockHtml, mrkdwnHtml, pageHtml } from '../../support/block-html';

describe('the Block Kit drawing tool', () => {
  it('draws text as Slack would, never as markup of its own', () => {
    expect(blockHtml({ type: 'header', text: { type: 'plain_text', text: '<img src=x> & :wave:' } })).toBe(
      '<h1>&lt;img src=x&gt; &amp; 👋</h1>',
    );
    expect(mrkdwnHtml('*Done* _now_ `a&lt;b` <https://x.test/pr/1|PR 1> <@U123>')).toBe(
      '<b>Done</b> <i>now</i> <code>a&lt;b</code> <a href="https://x.test/pr/1">PR 1</a> <span class="mention">@U123</span>',
    );
    const rich = blockHtml({
      type: 'rich_text',
      elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: '<b>', style: { bold: true } }] }],
    });
    expect(rich).toContain('<b>&lt;b&gt;</b>');
  });

  it('draws buttons as pills with their style, and a modal with its submit label', () => {
    const row = blockHtml({
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: 'Approve' }, style: 'primary', action_id: 'a' }],
    });
    expect(row).toContain('<span class="btn primary" title="a">Approve</span>');
    const page = pageHtml([
      {
        kind: 'modal',
        view: { type: 'modal', title: { type: 'plain_text', text: 'Deny' }, submit: { type: 'plain_text', text: 'Deny it' }, blocks: [] },
      },
    ]);
    expect(page).toContain('<span class="btn primary">Deny it</span>');
  });
});
