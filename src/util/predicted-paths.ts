/**
 * File paths a task's text names, such as `src/foo.ts` or "edit README.md": what the task will
 * probably touch before it has touched anything. A word counts when it looks like a relative path
 * to a file (a name with an extension, optionally in folders); URLs, absolute paths, versions
 * ("1.2.3") and abbreviations ("e.g.") do not.
 */
const FILE_PATH = /^(?:\.\/)?(?:[\w@+-][\w@.+-]*\/)*[\w@+-][\w@.+-]*\.[A-Za-z][A-Za-z0-9]{0,9}$/;
const SURROUNDING = /^[`'"([{<*_]+|[`'")\]}>*_,;:!?.]+$/g;
const ABBREVIATIONS = new Set(['e.g', 'i.e', 'etc', 'vs']);

export function predictedPaths(text: string): string[] {
  const found = new Set<string>();
  for (const word of text.split(/\s+/)) {
    if (word.includes('://') || word.startsWith('/')) continue;
    const candidate = word.replace(SURROUNDING, '');
    if (!FILE_PATH.test(candidate) || ABBREVIATIONS.has(candidate.toLowerCase())) continue;
    found.add(candidate.replace(/^\.\//, ''));
  }
  return [...found].sort();
}
