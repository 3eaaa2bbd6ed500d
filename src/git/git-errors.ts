import { redactCredentials } from './clone-url';
import { errorMessage } from '../util/error-message';

/** A git failure, told in one short sentence (never a stack or a page of git output). */
export class GitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitError';
  }
}

/** What a git process left behind when it exited non-zero (internal: callers see GitError). */
export class GitExitError extends Error {
  constructor(
    readonly exitCode: number,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(stderr.trim() || stdout.trim() || `git exited with code ${exitCode}`);
    this.name = 'GitExitError';
  }
}

const MAX_LENGTH = 300;
const NOISE = /^(hint:|warning:|To |From |remote:|Auto-merging |\s*$)/;

/** Git's own wording for some failures says little to a person; these say what to do. */
const REWRITES: Array<[RegExp, (m: RegExpMatchArray) => string]> = [
  [/\[rejected\][^\n]*\((fetch first|non-fast-forward)\)/, () => 'origin has commits this branch does not have; fetch and rebase first'],
  [/\[rejected\][^\n]*\(stale info\)/, () => 'origin changed since the last fetch, so the force-with-lease push was refused'],
  [/\[remote rejected\][^\n]*\(([^)\n]*)\)/, (m) => `origin refused the push: ${m[1]}`],
  [/would be overwritten by (checkout|merge)/, () => 'You have uncommitted changes that would be overwritten; commit or stash them first'],
  [/Please tell me who you are/, () => 'No git identity is configured (user.name / user.email)'],
  [
    /Could not read from remote repository|does not appear to be a git repository/,
    () => 'Could not read from the remote repository (check the URL and your access)',
  ],
];

/**
 * The first meaningful line of what git printed: a `fatal:`/`error:` line when there is one,
 * else the first line that is not a hint or progress, without its prefix and on one line.
 */
export function firstGitLine(output: string): string {
  for (const [pattern, say] of REWRITES) {
    const m = output.match(pattern);
    if (m) return say(m);
  }
  const lines = output.split('\n').map((l) => l.trim());
  const line = lines.find((l) => /^(fatal|error):/i.test(l)) ?? lines.find((l) => !NOISE.test(l)) ?? '';
  const text = line.replace(/^(fatal|error):\s*/i, '').replace(/\s+/g, ' ');
  return text.length > MAX_LENGTH ? `${text.slice(0, MAX_LENGTH - 1)}…` : text;
}

/** Any failure from the git layer, as a GitError with a one-line message. */
export function toGitError(err: unknown, context?: string): GitError {
  if (err instanceof GitError) return context ? new GitError(`${context}: ${err.message}`) : err;
  const text = err instanceof GitExitError ? `${err.stderr}\n${err.stdout}` : errorMessage(err);
  // git repeats a remote's URL in its errors, token and all.
  const sentence = redactCredentials(firstGitLine(text) || 'git failed');
  return new GitError(context ? `${context}: ${sentence}` : sentence);
}
