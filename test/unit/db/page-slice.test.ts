import { pageSlice } from '../../../src/db/repositories/run-sql';

describe('pageSlice: a page size and place written into a statement', () => {
  it('writes whole numbers from 0 up', () => {
    expect(pageSlice(51)).toBe('limit 51');
    expect(pageSlice(51, 0)).toBe('limit 51 offset 0');
    expect(pageSlice(0, 200)).toBe('limit 0 offset 200');
  });

  it('refuses anything else, so no other text reaches the statement', () => {
    for (const bad of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60, '5; drop table tasks' as unknown as number]) {
      expect(() => pageSlice(bad)).toThrow(RangeError);
      expect(() => pageSlice(10, bad)).toThrow(RangeError);
    }
  });
});
