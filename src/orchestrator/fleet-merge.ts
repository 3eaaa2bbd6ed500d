import type { TaskGit } from './completion';

/**
 * How the git layer words a push refused because origin moved meanwhile (git-errors.ts): behind
 * origin, or origin's ref lock taken by another push at the same moment.
 */
const ORIGIN_MOVED =
  /origin has commits this branch does not have|origin refused the push: (failed to update ref|cannot lock ref|incorrect old value)/;

/**
 * A task merge that tries again when its push lost a race: another machine of the fleet pushed
 * the default branch between this one's fetch and push. Each try fetches, merges and pushes
 * afresh (the first skips the fetch when the caller has just fetched: `originFetched`); a real
 * conflict or any other failure is answered at once.
 */
export async function mergeRetryingRaces(
  git: Pick<TaskGit, 'mergeTaskBranch'>,
  path: string,
  branch: string,
  defaultBranch: string,
  options: { tries?: number; originFetched?: boolean } = {},
): Promise<{ merged: true } | { merged: false; message: string }> {
  const tries = options.tries ?? 5;
  for (let attempt = 1; ; attempt++) {
    const outcome = await git.mergeTaskBranch(path, branch, defaultBranch, {
      originFetched: attempt === 1 && options.originFetched === true,
    });
    if (outcome.merged || attempt >= tries || !ORIGIN_MOVED.test(outcome.message)) return outcome;
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt + Math.floor(Math.random() * 200)));
  }
}
