export interface PorcelainEntry {
  /** The two-letter XY code of `git status --porcelain` (`' M'`, `'??'`, `'UU'` …). */
  code: string;
  /** Index (staged) side of the code. */
  x: string;
  /** Working-tree side of the code. */
  y: string;
  path: string;
  /** For renames and copies, the path it came from. */
  origPath?: string;
}

/** Unmerged paths: both sides touched them and git left them for a person to resolve. */
export const CONFLICT_CODES = new Set(['UU', 'AA', 'DD', 'AU', 'UA', 'DU', 'UD']);

/** Parses `git status --porcelain=v1 -z` (NUL-separated, so any file name survives). */
export function parsePorcelainZ(output: string): PorcelainEntry[] {
  const fields = output.split('\0');
  const entries: PorcelainEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    if (field.length < 4) continue;
    const code = field.slice(0, 2);
    const entry: PorcelainEntry = { code, x: code[0], y: code[1], path: field.slice(3) };
    if (code[0] === 'R' || code[0] === 'C') entry.origPath = fields[++i];
    entries.push(entry);
  }
  return entries;
}

export function isConflict(entry: PorcelainEntry): boolean {
  return CONFLICT_CODES.has(entry.code);
}
