import type { PullRequestInput } from '../pull-requests';
import { runCli } from './cli';
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

/** A required check as `gh pr checks --required --json name,bucket` lists it. */
interface GhRequiredCheck {
  name?: string;
  bucket?: string;
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
    // Only the checks the base branch requires hold a merge; the counts (the card) keep them all.
    const required = state === 'OPEN' && outcomes.some((o) => o !== 'passed') ? await this.requiredChecks(cwd, ref) : null;
    return {
      state: state === 'MERGED' ? 'merged' : state === 'CLOSED' ? 'closed' : 'open',
      conflicts: pr.mergeable?.toUpperCase() === 'CONFLICTING' || pr.mergeStateStatus?.toUpperCase() === 'DIRTY',
      failingChecks: required
        ? required.filter((c) => c.bucket === 'fail' || c.bucket === 'cancel').map((c) => c.name || 'a check')
        : checks.filter((_, i) => outcomes[i] === 'failed').map((c) => c.name || c.context || 'a check'),
      pendingChecks: required ? required.some((c) => c.bucket === 'pending') : outcomes.includes('pending'),
      checks: { passing: count('passed'), failing: count('failed'), pending: count('pending') },
    };
  }

  /**
   * The PR's required checks and their buckets (pass, fail, pending, skipping, cancel), from
   * `gh pr checks --required`: `pr view`'s statusCheckRollup does not say which are required.
   * gh exits 1 or 8 while some fail or run, and says so in words when none are required (an
   * empty list). Null when gh cannot tell (one too old for `--json`): then every check counts.
   */
  private async requiredChecks(cwd: string, ref: string): Promise<GhRequiredCheck[] | null> {
    const out = await runCli(
      this.options.path,
      ['pr', 'checks', ref, '--required', '--json', 'name,bucket'],
      cwd,
      this.options.timeoutMs,
      this.options.env,
    );
    if (out.missing || out.timedOut) return null;
    if (/no required checks/i.test(out.stderr)) return [];
    try {
      const list = JSON.parse(out.stdout) as unknown;
      return Array.isArray(list) ? (list as GhRequiredCheck[]) : null;
    } catch {
      return null;
    }
  }

  async merge(cwd: string, ref: string, method: MergeMethod): Promise<void> {
    await this.call(cwd, ['pr', 'merge', ref, `--${method}`], `merge the pull request ${ref}`);
  }
}
