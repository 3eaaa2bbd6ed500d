/** A git failure, told in one short sentence (never a stack or a page of git output). */
export class GitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitError';
  }
}

const NOISE = /^(hint:|warning:|To |From |remote:|\s*$)/;

/** The first meaningful line of what git printed, without its `fatal:` / `error:` prefix. */
export function firstGitLine(output: string): string {
  const line = output
    .split('\n')
    .map((l) => l.trim())
    .find((l) => !NOISE.test(l));
  return (line ?? output.trim()).replace(/^(fatal|error):\s*/i, '').slice(0, 300);
}

export function toGitError(err: unknown, context?: string): GitError {
  if (err instanceof GitError) return err;
  const text = err instanceof Error ? err.message : String(err);
  const sentence = firstGitLine(text) || 'git failed';
  return new GitError(context ? `${context}: ${sentence}` : sentence);
}
