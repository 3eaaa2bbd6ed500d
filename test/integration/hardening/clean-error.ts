/**
 * What an error sentence for people must never carry: SQL, a stack, a JavaScript class name or
 * Node error code, a driver or file system code.
 */
export const LEAKS: Array<[string, RegExp]> = [
  ['SQL', /\b(select\s.+\sfrom|insert\s+into|update\s.+\sset|delete\s+from)\b/i],
  ['a driver code', /\bSQLITE_[A-Z_]+\b|\bER_[A-Z_]+\b/],
  ['a stack', /\n\s+at\s|\bat\s+\S+\s+\(\S+:\d+:\d+\)|\.(ts|js):\d+:\d+/],
  ['a class name', /\b[A-Z][A-Za-z]*(Error|Exception)\b/],
  ['a Node error code', /\bERR_[A-Z_]+\b/],
  ['a system error code', /\bE(NOENT|ACCES|PERM|EXIST|NOTDIR|ISDIR|NOTEMPTY|NAMETOOLONG|NOSPC|ROFS|INVAL|MFILE|PIPE|CONNREFUSED)\b/],
  ['an internal detail', /\b(undefined|NaN|\[object Object\])\b|Cannot read propert/],
];

/** The leaks found in a text (empty when it is clean). */
export function leaksIn(text: string): string[] {
  return LEAKS.filter(([, pattern]) => pattern.test(text)).map(([what]) => what);
}

/** Asserts `result` is `{error}` alone with a clean sentence (optionally naming `mentions`). */
export function expectCleanError(result: Record<string, unknown>, mentions?: string): string {
  expect(Object.keys(result)).toEqual(['error']);
  const text = result.error;
  expect(typeof text).toBe('string');
  expect({ text, leaks: leaksIn(text as string) }).toEqual({ text, leaks: [] });
  if (mentions !== undefined) expect(text).toContain(mentions);
  return text as string;
}
