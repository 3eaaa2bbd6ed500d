import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';

const root = path.resolve(__dirname, '../../..');

/**
 * Work done side by side is waited for whole: settleAll (src/util/settle-all.ts) rather than
 * Promise.all, which answers at the first failure and leaves the rest running beside what comes
 * next — the next command (test/integration/commands/failed-command-reads.test.ts), or the daemon's
 * next pass, whose hook, pull request and automation ticks then overlapped the last ones.
 */
describe('lint: nothing is left running when a step answers', () => {
  it('no Promise.all under src', () => {
    const found = fg.sync('src/**/*.ts', { cwd: root, ignore: ['src/util/settle-all.ts'] }).flatMap((file) =>
      readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\bPromise\.all\s*\(/.test(line) ? [`${file}:${i + 1}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
