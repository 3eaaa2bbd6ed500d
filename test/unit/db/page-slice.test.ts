import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { pageSlice } from '../../../src/db/repositories/run-sql';

describe('pageSlice: a page size and place written into a statement', () => {
  it('writes whole numbers from 0 up, and nothing without a page', () => {
    expect(pageSlice({ limit: 51 })).toBe(' limit 51');
    expect(pageSlice({ limit: 51, offset: 0 })).toBe(' limit 51 offset 0');
    expect(pageSlice({ limit: 0, offset: 200 })).toBe(' limit 0 offset 200');
    expect(pageSlice(undefined)).toBe('');
  });

  it('refuses anything else, so no other text reaches the statement', () => {
    for (const bad of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60, '5; drop table tasks' as unknown as number]) {
      expect(() => pageSlice({ limit: bad })).toThrow(RangeError);
      expect(() => pageSlice({ limit: 10, offset: bad })).toThrow(RangeError);
    }
  });
});

describe('no statement binds a row count', () => {
  it('writes every limit and offset in src/db through pageSlice or as a number', async () => {
    const root = path.resolve(__dirname, '../../..');
    const files = await fg(['src/db/**/*.ts', '!src/db/migrations/**'], { cwd: root });
    expect(files.length).toBeGreaterThan(30);
    const bound = files.flatMap((file) =>
      readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\b(limit|offset)\s+\?(?!\?)/i.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(bound).toEqual([]);
  });
});
