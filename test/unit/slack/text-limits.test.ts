import { clip, codeBlocks, fallback, splitText, truncate } from '../../../src/slack/blocks/common';
import { stopTaskButton } from '../../../src/slack/blocks/cards-format';
import { longCode } from '../../../src/slack/blocks/long';
import { md, mdCode, mdJoin, packRich, richLength, trusted, txt } from '../../../src/slack/blocks/text';
import { markdownToBlocks } from '../../../src/slack/mrkdwn';
import { asRead, HOSTILE } from '../../support/hostile';
import { validateMessage, visibleTexts } from '../../support/slack-validator';

describe('the md tag escapes every value and nothing else', () => {
  it('escapes interpolations, keeps template text and nested md', () => {
    const title = '<!here> & <@U1>';
    expect(md`*Task* ${title} ${3} ${null}`.text).toBe('*Task* &lt;!here&gt; &amp; &lt;@U1&gt; 3 ');
    expect(md`a ${md`*${'<b>'}*`} ${trusted('<@U1>')}`.text).toBe('a *&lt;b&gt;* <@U1>');
    expect(mdJoin(['<a>', md`*b*`], ' & ').text).toBe('&lt;a&gt; &amp; *b*');
  });

  it('puts a value in a code span only when it can stay exact', () => {
    expect(mdCode('a<b').text).toBe('`a&lt;b`');
    expect(mdCode('a`b').text).toBe('a`b');
    expect(mdCode('two\nlines').text).toBe('two\nlines');
  });
});

describe('long text is split, never lost', () => {
  const long = Array.from({ length: 500 }, (_, i) => `line ${i} ${'word '.repeat(i % 20)}`).join('\n');

  it('splitText and codeBlocks keep every character, at line breaks', () => {
    const pieces = splitText(long, 3000);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((p) => p.length <= 3000)).toBe(true);
    expect(pieces.join('\n')).toBe(long);
    expect(visibleTexts(codeBlocks(long)).join('\n')).toBe(long);
    const oneLine = 'x'.repeat(7000);
    expect(splitText(oneLine, 3000).join('')).toBe(oneLine);
  });

  it('packRich splits lines and long runs into blocks within the limit, in order', () => {
    const blocks = packRich([[txt('a'.repeat(5000))], [txt(HOSTILE)]], 3000);
    expect(blocks.every((b) => richLength(b) <= 3000)).toBe(true);
    expect(asRead(visibleTexts(blocks).join('').replace(/\n/g, ''))).toBe(`${'a'.repeat(5000)}${asRead(HOSTILE)}`);
  });

  it('longCode shows a preview and attaches the whole of a long text', () => {
    const { blocks, file } = longCode('diff', long, 'x.diff');
    expect(file?.content).toBe(long);
    expect(visibleTexts(blocks).join('\n')).toContain('Showing the first 30 lines of 500 lines');
    expect(longCode('diff', 'short', 'x.diff').file).toBeUndefined();
  });

  it('Markdown with a huge paragraph and code becomes valid blocks with all the text', () => {
    const text = `${'word '.repeat(2000)}&\n\n\`\`\`\n${'code\n'.repeat(1500)}\`\`\``;
    const blocks = markdownToBlocks(text);
    expect(validateMessage({ text: 'x', blocks })).toEqual([]);
    const shown = visibleTexts(blocks).join('');
    expect(shown.split('word').length - 1).toBe(2000);
    expect(shown.split('code').length - 1).toBe(1500);
  });

  it('cuts that must happen end at a word and say so', () => {
    expect(clip('Deploy the payment service today', 20)).toBe('Deploy the payment…');
    // A cut that would split an emoji leaves the emoji out whole.
    expect(clip(`${'x'.repeat(18)}🚀🚀`, 20)).toBe(`${'x'.repeat(18)}…`);
    expect(clip(`${'x'.repeat(17)}🚀🚀`, 20)).toBe(`${'x'.repeat(17)}🚀…`);
    const rockets = '🚀'.repeat(3000);
    const wellFormed = (t: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(t);
    const pieces = splitText(rockets, 5);
    expect(pieces.join('')).toBe(rockets);
    expect(pieces.every(wellFormed)).toBe(true);
    expect(wellFormed(truncate(rockets, 1001))).toBe(true);
    expect(wellFormed(fallback(rockets.repeat(2)))).toBe(true);
    const cut = truncate('alpha beta gamma\n'.repeat(400), 1000);
    expect(cut.length).toBeLessThanOrEqual(1000);
    expect(cut).toMatch(/… cut here, \d+ more lines not shown$/);
    expect(fallback(`${'a &amp; '.repeat(600)}`).endsWith('…')).toBe(true);
    expect(fallback(`${'a &amp; '.repeat(600)}`)).not.toMatch(/&[a-z]{0,3}…$/);
  });
});

describe("a Stop button's confirm dialog", () => {
  it('names a long title clipped before escaping, and never ends inside an entity', () => {
    for (const title of ['&'.repeat(400), `${'x'.repeat(199)}&&&`, `${'a'.repeat(150)}🚀`.repeat(3)]) {
      const text = stopTaskButton('t-1', title).confirm?.text.text ?? '';
      expect(text.length).toBeLessThanOrEqual(300);
      expect(validateMessage({ text: 'x', blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] })).toEqual([]);
      expect(text).not.toMatch(/&[a-z]{0,3}$/);
    }
  });
});
