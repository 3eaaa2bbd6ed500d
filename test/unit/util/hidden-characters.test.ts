import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { clip, fallbackOf } from '../../../src/slack/blocks/common';
import { txt } from '../../../src/slack/blocks/text';
import { firstHiddenCharacter, withoutDirectionOverrides } from '../../../src/util/hidden-characters';

describe('firstHiddenCharacter', () => {
  it.each([
    ['plain-id', null],
    ['مشروع', null],
    ['a\u202Eb', 0x202e],
    ['\u200Fx', 0x200f],
    ['x\uFEFF', 0xfeff],
    ['\u{1F469}\u{1F3FD}\u200D\u{1F4BB} dev', null],
    ['\u2764\uFE0F\u200D\u{1F525}', null],
    ['\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}', null],
    ['tag\u{E0067}', 0xe0067],
    ['\u{1F468}\u200D', 0x200d],
    ['a\u200Db', 0x200d],
  ])('%j → %p', (text, code) => {
    expect(firstHiddenCharacter(text)).toBe(code);
  });
});

describe('withoutDirectionOverrides', () => {
  it.each([
    ['plain text', 'plain text'],
    ['\u202Eabc', 'abc'],
    ['a\u202Db\u202Cc \u2067d\u2069 \u2066e\u2068f', 'abc d ef'],
    // Directional marks, which right-to-left writing uses, stay.
    ['\u200Fשלום\u200E', '\u200Fשלום\u200E'],
  ])('%j', (text, shown) => {
    expect(withoutDirectionOverrides(text)).toBe(shown);
  });

  it('leaves nothing in a cut label, and the cut stays within its limit', () => {
    const long = `${'word '.repeat(30)}\u202E${'x'.repeat(50)}`;
    for (const limit of [40, 150, 170]) {
      const cut = clip(long, limit);
      expect(cut.length).toBeLessThanOrEqual(limit);
      expect(withoutDirectionOverrides(cut)).toBe(cut);
    }
    expect(clip(`\u202E${'y'.repeat(40)}`, 40)).toBe('y'.repeat(40));
  });

  it('reaches text built into a longer string before Slack sees it', () => {
    const title = 'Fix \u202Etxt.exe';
    expect(fallbackOf(`🔵 ${title} (t-1) — ready`)).toBe('🔵 Fix txt.exe (t-1) — ready');
    expect(txt(` ${title} (web)`).text).toBe(' Fix txt.exe (web)');
  });
});

describe('ids made from names', () => {
  it('are made only through src/commands/derived-ids.ts, which checks them', () => {
    const root = path.resolve(__dirname, '../../..');
    const callers = fg
      .sync('src/**/*.ts', { cwd: root })
      .filter((file) => /\b(nameToId|repoNameToId)\b/.test(readFileSync(path.join(root, file), 'utf8')));
    expect(callers.sort()).toEqual(['src/commands/derived-ids.ts', 'src/db/ids.ts']);
  });
});
