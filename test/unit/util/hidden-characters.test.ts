import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { firstHiddenCharacter } from '../../../src/util/hidden-characters';

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

describe('ids made from names', () => {
  it('are made only through src/commands/derived-ids.ts, which checks them', () => {
    const root = path.resolve(__dirname, '../../..');
    const callers = fg
      .sync('src/**/*.ts', { cwd: root })
      .filter((file) => /\b(nameToId|repoNameToId)\b/.test(readFileSync(path.join(root, file), 'utf8')));
    expect(callers.sort()).toEqual(['src/commands/derived-ids.ts', 'src/db/ids.ts']);
  });
});
