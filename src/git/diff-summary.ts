/** One file of a unified diff: its path and the lines it adds and removes. */
export interface DiffFileStat {
  path: string;
  added: number;
  removed: number;
}

export interface DiffSummary {
  files: DiffFileStat[];
  insertions: number;
  deletions: number;
}

/** What a `git diff` changed, file by file, read from its text (the same numbers `git diff --numstat` gives for text files). */
export function summarizeDiff(diff: string): DiffSummary {
  const files: DiffFileStat[] = [];
  let current: DiffFileStat | null = null;
  let inHunk = false;
  for (const line of diff.split('\n')) {
    const header = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
    if (header) {
      current = { path: header[2], added: 0, removed: 0 };
      files.push(current);
      inHunk = false;
    } else if (current && line.startsWith('@@')) inHunk = true;
    else if (current && inHunk && line.startsWith('+')) current.added += 1;
    else if (current && inHunk && line.startsWith('-')) current.removed += 1;
  }
  return {
    files,
    insertions: files.reduce((n, f) => n + f.added, 0),
    deletions: files.reduce((n, f) => n + f.removed, 0),
  };
}
