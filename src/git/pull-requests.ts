import { GitHubForge } from './forges/github';
import { gitEnv } from './git-runner';

export interface PullRequestInput {
  title: string;
  body: string;
  /** The branch with the work (already pushed). */
  branch: string;
  /** The branch to merge into. */
  base: string;
}

/**
 * Opens a pull request with the GitHub CLI (`gh pr create`, arguments passed as an array, never
 * through a shell) and returns its URL: the last URL gh printed. gh missing or logged out is a
 * GitError that says what to do. The forge-neutral path is src/git/forges.
 */
export async function createPullRequest(
  ghPath: string,
  cwd: string,
  pr: PullRequestInput,
  timeoutMs = 60_000,
  env: NodeJS.ProcessEnv = gitEnv(process.env),
): Promise<string> {
  return new GitHubForge({ path: ghPath, env, timeoutMs }).open(cwd, pr);
}
