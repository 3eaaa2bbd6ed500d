import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';

const root = path.resolve(__dirname, '../../..');

/**
 * Commands wait for everything they started before they answer: settleAll (src/util/settle-all.ts)
 * rather than Promise.all, which answers at the first failure and leaves the rest running beside
 * the next command (test/integration/commands/failed-command-reads.test.ts).
 */
describe('lint: commands leave nothing running when they answer', () => {
  it('no Promise.all under src/commands', () => {
    const found = fg.sync('src/commands/**/*.ts', { cwd: root }).flatMap((file) =>
      readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\bPromise\.all\s*\(/.test(line) ? [`${file}:${i + 1}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
