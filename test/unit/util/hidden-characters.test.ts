import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { clip, fallback, truncate } from '../../../src/slack/blocks/common';
import { closeDirectionControls, firstHiddenCharacter } from '../../../src/util/hidden-characters';

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

describe('closeDirectionControls', () => {
  const RLO = '\u202E';
  const PDF = '\u202C';
  const RLI = '\u2067';
  const PDI = '\u2069';
  it.each([
    ['plain text', 'plain text'],
    [`${RLO}abc`, `${RLO}abc${PDF}`],
    [`${RLO}a${PDF}b`, `${RLO}a${PDF}b`],
    [`${RLI}a${RLO}b`, `${RLI}a${RLO}b${PDF}${PDI}`],
    // An isolate's end closes the embeddings opened inside it; a stray end closes nothing.
    [`${RLI}a${RLO}b${PDI}c`, `${RLI}a${RLO}b${PDI}c`],
    [`${PDF}${PDI}a`, `${PDF}${PDI}a`],
    [`${RLO}${RLI}x${PDF}`, `${RLO}${RLI}x${PDF}${PDI}${PDF}`],
  ])('%j', (text, closed) => {
    expect(closeDirectionControls(text)).toBe(closed);
    expect(closeDirectionControls(closed)).toBe(closed);
  });

  it('stays within the limit where Slack text is cut', () => {
    const long = `${'word '.repeat(30)}\u202E${'x'.repeat(50)}`;
    for (const limit of [40, 150, 170]) {
      for (const cut of [clip(long, limit), truncate(long, limit)]) {
        expect(cut.length).toBeLessThanOrEqual(limit);
        expect(closeDirectionControls(cut)).toBe(cut);
      }
    }
    const exact = `\u202E${'y'.repeat(39)}`;
    expect(clip(exact, 40)).toHaveLength(40);
    expect(closeDirectionControls(clip(exact, 40))).toBe(clip(exact, 40));
    expect(closeDirectionControls(fallback(`\u202E${'z '.repeat(3000)}`))).toBe(fallback(`\u202E${'z '.repeat(3000)}`));
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
