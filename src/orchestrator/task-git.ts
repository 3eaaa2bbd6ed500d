import type { GitManager } from '../git/git-manager';
import type { LandingMode } from '../db/value-sets';
import { updateBranchToBase, type BranchUpdate } from '../git/branch-update';
import { landApproval } from '../git/forges/approval';
import { assertValidBranchName } from '../git/branch-names';
import { refsPresent, type RefsPresent } from '../git/repo-state';
import type { TaskGit } from './completion';
import { errorMessage } from '../util/error-message';

/**
 * The orchestrator's git steps on top of GitManager. Kept thin: each step is a few GitManager
 * calls, and every failure leaves the workspace on a known branch with a clean tree.
 */
export class GitManagerTaskGit implements TaskGit {
  constructor(private readonly git: GitManager) {}

  isRepo(path: string): Promise<boolean> {
    return this.git.isRepo(path);
  }

  detectDefaultBranch(path: string): Promise<string> {
    return this.git.detectDefaultBranch(path);
  }

  commitAll(path: string, msg: string): Promise<{ committed: boolean }> {
    return this.git.commitAll(path, msg);
  }

  pushBranch(path: string, branch: string): Promise<void> {
    return this.git.push(path, branch, { forceWithLease: true });
  }

  /** Through the forge origin lives on (gh, glab); null for plain git, where approval merges and pushes. */
  async createPullRequest(path: string, pr: { title: string; body: string; branch: string; base: string }): Promise<string | null> {
    const forge = await this.git.forgeFor(path);
    return forge ? forge.open(path, pr) : null;
  }

  private async hasOrigin(path: string): Promise<boolean> {
    return (await this.git.getRemoteUrl(path).catch(() => null)) !== null;
  }

  /**
   * Puts the default branch at origin's tip (it is never worked on directly). `refs` answers
   * "on it already?" and "on origin?" when the caller has already asked (one git process for both).
   */
  private async resetDefault(path: string, defaultBranch: string, known?: RefsPresent): Promise<void> {
    const local = `refs/heads/${defaultBranch}`;
    const remote = `refs/remotes/origin/${defaultBranch}`;
    const refs = known ?? (await refsPresent(this.git, path, [local, remote]));
    // A branch without commits is not listed: ask HEAD itself then.
    const onDefault = refs.present.has(local) ? refs.checkedOut === local : (await this.git.currentBranch(path)) === defaultBranch;
    if (!onDefault) await this.git.run(path, ['checkout', defaultBranch, '--']);
    if (refs.present.has(remote)) await this.git.run(path, ['reset', '--hard', `origin/${defaultBranch}`]);
  }

  async prepareTaskBranch(path: string, branch: string, options: { defaultBranch: string; reuse: boolean }): Promise<void> {
    assertValidBranchName(branch);
    const originUrl = await this.git.getRemoteUrl(path).catch(() => null);
    if (originUrl !== null) {
      // Before an agent works here: a token in origin's URL would be readable in .git/config.
      await this.git.keepOriginCredentialsApart(path, originUrl);
      await this.git.fetch(path);
    }
    if (await this.git.hasUncommittedChanges(path)) {
      // Leftovers of an interrupted run are kept in a stash, never thrown away.
      await this.git.run(path, ['stash', 'push', '--include-untracked', '-m', `agent-queue: left in the workspace before ${branch}`]);
    }
    const own = `refs/heads/${branch}`;
    const onOrigin = `refs/remotes/origin/${branch}`;
    const defaults = [`refs/heads/${options.defaultBranch}`, `refs/remotes/origin/${options.defaultBranch}`];
    const refs = await refsPresent(this.git, path, options.reuse ? [own, onOrigin, ...defaults] : defaults);
    if (options.reuse && refs.present.has(own)) {
      await this.git.run(path, ['checkout', branch, '--']);
      return;
    }
    if (options.reuse && originUrl !== null && refs.present.has(onOrigin)) {
      await this.git.run(path, ['checkout', '-B', branch, `origin/${branch}`]);
      return;
    }
    await this.resetDefault(path, options.defaultBranch, refs);
    await this.git.run(path, ['checkout', '-B', branch]);
  }

  async mergeTaskBranch(
    path: string,
    branch: string,
    defaultBranch: string,
    options: { originFetched?: boolean } = {},
  ): Promise<{ merged: true } | { merged: false; message: string }> {
    const origin = options.originFetched === true || (await this.hasOrigin(path));
    const restore = async () => {
      await this.resetDefault(path, defaultBranch).catch(() => undefined);
      await this.git.run(path, ['checkout', branch, '--']).catch(() => undefined);
    };
    try {
      if (origin && !options.originFetched) await this.git.fetch(path);
      await this.resetDefault(path, defaultBranch);
      const outcome = await this.git.merge(path, branch, defaultBranch);
      if (outcome.status === 'conflict') {
        await restore();
        return { merged: false, message: `Merge conflict in ${outcome.files.join(', ')}; the workspace was restored to '${branch}'.` };
      }
    } catch (err) {
      await restore();
      return { merged: false, message: errorMessage(err) };
    }
    if (!origin) return { merged: true };
    try {
      await this.git.push(path, defaultBranch, { setUpstream: false });
    } catch (err) {
      await restore();
      return { merged: false, message: `${errorMessage(err)}; the workspace was restored to '${branch}'.` };
    }
    return { merged: true };
  }

  updateTaskBranch(path: string, branch: string, defaultBranch: string, mode: LandingMode): Promise<BranchUpdate> {
    return updateBranchToBase(this.git, path, { branch, defaultBranch, mode });
  }

  async landPullRequest(path: string, pr: { branch: string; prUrl: string; title: string; body: string }): Promise<void> {
    await this.git.push(path, pr.branch, { forceWithLease: true });
    await landApproval(this.git, { path, branch: pr.branch, prUrl: pr.prUrl, title: pr.title, body: pr.body });
  }
}
