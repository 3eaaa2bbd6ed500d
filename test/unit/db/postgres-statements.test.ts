import { bindForPostgres, postgresPlaceholderOffsets } from '../../../src/db/postgres-statements';

/**
 * How a statement's `?` become `$n` and its values are typed for a named prepared statement
 * (src/db/postgres-statements.ts): as PostgreSQL would type the literal MikroORM writes in, or
 * not at all (null), so the statement is written in as before. What the server answers is
 * test/integration/db/postgres-prepared-statements.test.ts.
 */
describe('binding a statement for PostgreSQL', () => {
  const bind = (sql: string, params: unknown[]) => {
    const offsets = postgresPlaceholderOffsets(sql);
    return offsets && bindForPostgres(sql, offsets, params);
  };

  it('numbers each value and types it as its literal would be', () => {
    expect(bind('select * from t where a = ? and b > ? and c < ? and d = ? and e = ?', ['x', 7, 5_000_000_000, 1.5, -2])).toEqual({
      text: 'select * from t where a = $1 and b > $2::int4 and c < $3::int8 and d = $4::numeric and e = $5::int4',
      values: ['x', '7', '5000000000', '1.5', '-2'],
    });
    expect(bind('select ?, ?', [2_147_483_647, 2_147_483_648])).toEqual({
      text: 'select $1::int4, $2::int8',
      values: ['2147483647', '2147483648'],
    });
  });

  it('sends a date as its milliseconds and text as PostgreSQL can store it', () => {
    const at = new Date(1_795_776_170_294);
    expect(bind('update t set at = ?, name = ? where id = ?', [at, 'a\u0000b', 'id'])).toEqual({
      text: 'update t set at = $1::int8, name = $2 where id = $3',
      values: ['1795776170294', 'a\uFFFDb', 'id'],
    });
  });

  it('writes null and booleans in, so the text says what they are', () => {
    expect(bind('insert into t (a, b, c) values (?, ?, ?)', [null, true, undefined])).toEqual({
      text: 'insert into t (a, b, c) values (null, true, null)',
      values: [],
    });
  });

  it('reads past quotes, comments and casts, and gives back a text without values as it is', () => {
    expect(bind("select 'a''b' as s, \"c\" from t -- a note\n where x::text = ? /* c */", ['v'])).toEqual({
      text: "select 'a''b' as s, \"c\" from t -- a note\n where x::text = $1 /* c */",
      values: ['v'],
    });
    expect(bind('select 1;', [])).toEqual({ text: 'select 1;', values: [] });
  });

  it.each([
    ['a ? in quotes', "select '?' from t where a = ?", ['x']],
    ['a ? in a comment', 'select 1 /* ? */ where a = ?', ['x']],
    ['an identifier (??)', 'select ?? from t', ['a']],
    ['an escaped \\?', 'select a \\? b from t where c = ?', ['x']],
    ['a jsonb operator ?|', 'select a ?| b from t where c = ?', ['x']],
    ['a $1 of its own', 'select $1 from t where c = ?', ['x']],
    ['dollar quoting', 'select $$?$$ from t', []],
    ['two statements', 'update t set a = ?; select 1', [1]],
    ['an unclosed comment', 'select 1 /* where a = ?', ['x']],
  ])('declines %s', (_what, sql, params) => {
    expect(bind(sql, params)).toBeNull();
  });

  it.each([
    ['an array', ['a', 'b']],
    ['an object', { a: 1 }],
    ['a buffer', Buffer.from('x')],
    ['NaN', Number.NaN],
    ['an infinity', Number.POSITIVE_INFINITY],
    ['a whole number past 2^53', 2 ** 60],
    ['an invalid date', new Date(Number.NaN)],
    ['a bigint', 5n],
  ])('declines %s as a value', (_what, value) => {
    expect(bind('select * from t where a = ?', [value])).toBeNull();
  });

  it('declines when the values and the marks do not match', () => {
    expect(bind('select * from t where a = ? and b = ?', ['x'])).toBeNull();
  });
});
