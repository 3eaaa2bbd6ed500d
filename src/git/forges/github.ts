import type { PullRequestInput } from '../pull-requests';
import { CliForge } from './cli-forge';
import type { ChangeRequestView, Forge, MergeMethod } from './forge';

interface GhCheck {
  __typename?: string;
  name?: string;
  context?: string;
  status?: string;
  conclusion?: string;
  state?: string;
}

interface GhPullRequest {
  state?: string;
  mergeable?: string;
  mergeStateStatus?: string;
  statusCheckRollup?: GhCheck[] | null;
}

const FAILED = new Set(['FAILURE', 'ERROR', 'CANCELLED', 'TIMED_OUT', 'ACTION_REQUIRED', 'STARTUP_FAILURE']);

/** A check run (status/conclusion) or a commit status context (state). */
function checkOutcome(check: GhCheck): 'passed' | 'failed' | 'pending' {
  const verdict = (check.conclusion || check.state || '').toUpperCase();
  if (FAILED.has(verdict)) return 'failed';
  if (check.status && check.status.toUpperCase() !== 'COMPLETED') return 'pending';
  if (verdict === 'PENDING' || verdict === 'EXPECTED') return 'pending';
  return 'passed';
}

/** GitHub through the GitHub CLI (`gh`). */
export class GitHubForge extends CliForge implements Forge {
  readonly kind = 'github' as const;
  readonly noun = 'pull request';
  readonly cli = 'gh';
  protected readonly product = 'GitHub CLI';

  async open(cwd: string, pr: PullRequestInput): Promise<string> {
    // `--flag=value` so a title or body starting with "-" is never read as a flag.
    return this.openWith(cwd, pr, ['pr', 'create', `--title=${pr.title}`, `--body=${pr.body}`, `--head=${pr.branch}`, `--base=${pr.base}`]);
  }

  async view(cwd: string, ref: string): Promise<ChangeRequestView> {
    const out = await this.call(
      cwd,
      ['pr', 'view', ref, '--json', 'state,mergeable,mergeStateStatus,statusCheckRollup'],
      `look at the pull request ${ref}`,
    );
    const pr = this.parseJson<GhPullRequest>(out, 'pull request');
    const state = (pr.state ?? '').toUpperCase();
    const checks = pr.statusCheckRollup ?? [];
    const outcomes = checks.map(checkOutcome);
    const count = (outcome: ReturnType<typeof checkOutcome>) => outcomes.filter((o) => o === outcome).length;
    return {
      state: state === 'MERGED' ? 'merged' : state === 'CLOSED' ? 'closed' : 'open',
      conflicts: pr.mergeable?.toUpperCase() === 'CONFLICTING' || pr.mergeStateStatus?.toUpperCase() === 'DIRTY',
      failingChecks: checks.filter((_, i) => outcomes[i] === 'failed').map((c) => c.name || c.context || 'a check'),
      pendingChecks: outcomes.includes('pending'),
      checks: { passing: count('passed'), failing: count('failed'), pending: count('pending') },
    };
  }

  async merge(cwd: string, ref: string, method: MergeMethod): Promise<void> {
    await this.call(cwd, ['pr', 'merge', ref, `--${method}`], `merge the pull request ${ref}`);
  }
}
