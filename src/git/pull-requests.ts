import { execFile } from 'node:child_process';
import { assertValidBranchName } from './branch-names';
import { GitError } from './git-errors';
import { gitEnv } from './git-runner';

export interface PullRequestInput {
  title: string;
  body: string;
  /** The branch with the work (already pushed). */
  branch: string;
  /** The branch to merge into. */
  base: string;
}

interface GhResult {
  code: number;
  stdout: string;
  stderr: string;
  missing: boolean;
  timedOut: boolean;
}

const NOT_INSTALLED = 'The GitHub CLI (gh) is not installed; install it and run `gh auth login` to open pull requests.';
const NOT_LOGGED_IN = 'The GitHub CLI (gh) is not logged in; run `gh auth login` on the machine running Agent Queue.';

function runGh(ghPath: string, args: string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<GhResult> {
  return new Promise((resolve) => {
    execFile(
      ghPath,
      args,
      { cwd, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, env: { ...env, GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1', NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const errno = (error as NodeJS.ErrnoException | null)?.code;
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout: String(stdout),
          stderr: String(stderr),
          missing: errno === 'ENOENT' || errno === 'EACCES',
          timedOut: Boolean(error && (error as { killed?: boolean }).killed),
        });
      },
    );
  });
}

function firstLine(text: string): string {
  const line = text.split('\n').map((l) => l.trim()).find(Boolean) ?? 'unknown error';
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/**
 * Opens a pull request with the GitHub CLI (`gh pr create`, arguments passed as an array, never
 * through a shell) and returns its URL: the last URL gh printed. gh missing or logged out is a
 * GitError that says what to do.
 */
export async function createPullRequest(
  ghPath: string,
  cwd: string,
  pr: PullRequestInput,
  timeoutMs = 60_000,
  env: NodeJS.ProcessEnv = gitEnv(process.env),
): Promise<string> {
  assertValidBranchName(pr.branch);
  assertValidBranchName(pr.base);
  if (!pr.title.trim()) throw new GitError('A pull request needs a title.');
  const auth = await runGh(ghPath, ['auth', 'status'], cwd, timeoutMs, env);
  if (auth.missing) throw new GitError(NOT_INSTALLED);
  if (auth.timedOut) throw new GitError('The GitHub CLI (gh) did not answer `gh auth status` in time.');
  if (auth.code !== 0) throw new GitError(NOT_LOGGED_IN);

  // `--flag=value` so a title or body starting with "-" is never read as a flag.
  const args = ['pr', 'create', `--title=${pr.title}`, `--body=${pr.body}`, `--head=${pr.branch}`, `--base=${pr.base}`];
  const created = await runGh(ghPath, args, cwd, timeoutMs, env);
  if (created.missing) throw new GitError(NOT_INSTALLED);
  if (created.timedOut) throw new GitError('The GitHub CLI (gh) timed out opening the pull request.');
  if (created.code !== 0) {
    const text = created.stderr || created.stdout;
    if (/gh auth login|not logged in|authentication/i.test(text)) throw new GitError(NOT_LOGGED_IN);
    throw new GitError(`Could not open the pull request: ${firstLine(text)}`);
  }
  const urls = created.stdout.match(/https?:\/\/[^\s'"<>]+/g);
  if (!urls) throw new GitError('gh did not print the pull request URL.');
  return urls[urls.length - 1];
}
