import { execFile } from 'node:child_process';
import { assertValidBranchName } from './branch-names';
import { GitError } from './git-errors';

function runGh(ghPath: string, args: string[], cwd: string, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string; missing: boolean }> {
  return new Promise((resolve) => {
    execFile(ghPath, args, { cwd, timeout: timeoutMs, env: { ...process.env, GH_PROMPT_DISABLED: '1', NO_COLOR: '1' } }, (error, stdout, stderr) => {
      const missing = (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr), missing });
    });
  });
}

/** Opens a pull request with the GitHub CLI and returns its URL. */
export async function createPullRequest(
  ghPath: string,
  cwd: string,
  pr: { title: string; body: string; branch: string; base: string },
  timeoutMs = 60_000,
): Promise<string> {
  assertValidBranchName(pr.branch);
  assertValidBranchName(pr.base);
  const auth = await runGh(ghPath, ['auth', 'status'], cwd, timeoutMs);
  if (auth.missing) {
    throw new GitError('The GitHub CLI (gh) is not installed; install it and run `gh auth login` to open pull requests.');
  }
  if (auth.code !== 0) {
    throw new GitError('The GitHub CLI (gh) is not logged in; run `gh auth login` on the machine running Agent Queue.');
  }
  const created = await runGh(ghPath, ['pr', 'create', '--title', pr.title, '--body', pr.body, '--head', pr.branch, '--base', pr.base], cwd, timeoutMs);
  if (created.code !== 0) {
    const line = (created.stderr || created.stdout).trim().split('\n')[0] ?? 'unknown error';
    throw new GitError(`Could not open the pull request: ${line}`);
  }
  const urls = created.stdout.match(/https?:\/\/\S+/g);
  if (!urls) throw new GitError('gh did not print the pull request URL.');
  return urls[urls.length - 1];
}
