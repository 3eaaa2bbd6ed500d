import type { PullRequestInput } from '../pull-requests';
import { CliForge } from './cli-forge';
import type { ChangeRequestView, Forge, MergeMethod } from './forge';

interface GlabMergeRequest {
  state?: string;
  has_conflicts?: boolean;
  detailed_merge_status?: string;
  head_pipeline?: { status?: string } | null;
  pipeline?: { status?: string } | null;
}

const PIPELINE_FAILED = new Set(['failed', 'canceled']);
const PIPELINE_PENDING = new Set(['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'scheduled']);

/**
 * `https://host/group/project/-/merge_requests/12` → the MR's number and its project, so glab
 * is pointed at the right repository whatever folder it runs in.
 */
export function mergeRequestTarget(ref: string): string[] {
  const match = /^(https?:\/\/[^\s]+?)\/-\/merge_requests\/(\d+)/.exec(ref);
  return match ? [match[2], `--repo=${match[1]}`] : [ref];
}

/** GitLab through the GitLab CLI (`glab`). */
export class GitLabForge extends CliForge implements Forge {
  readonly kind = 'gitlab' as const;
  readonly noun = 'merge request';
  readonly cli = 'glab';
  protected readonly product = 'GitLab CLI';

  async open(cwd: string, mr: PullRequestInput): Promise<string> {
    return this.openWith(cwd, mr, [
      'mr',
      'create',
      `--title=${mr.title}`,
      `--description=${mr.body}`,
      `--source-branch=${mr.branch}`,
      `--target-branch=${mr.base}`,
      '--yes',
    ]);
  }

  async view(cwd: string, ref: string): Promise<ChangeRequestView> {
    const out = await this.call(cwd, ['mr', 'view', ...mergeRequestTarget(ref), '--output=json'], `look at the merge request ${ref}`);
    const mr = this.parseJson<GlabMergeRequest>(out, 'merge request');
    const state = (mr.state ?? '').toLowerCase();
    const pipeline = (mr.head_pipeline?.status ?? mr.pipeline?.status ?? '').toLowerCase();
    const failing = PIPELINE_FAILED.has(pipeline);
    const pending = PIPELINE_PENDING.has(pipeline);
    return {
      state: state === 'merged' ? 'merged' : state === 'closed' || state === 'locked' ? 'closed' : 'open',
      conflicts: Boolean(mr.has_conflicts) || mr.detailed_merge_status === 'conflict',
      failingChecks: failing ? ['pipeline'] : [],
      pendingChecks: pending,
      // The pipeline is the MR's one check; a skipped or manual one holds nothing up.
      checks: { passing: pipeline === 'success' ? 1 : 0, failing: failing ? 1 : 0, pending: pending ? 1 : 0 },
    };
  }

  async merge(cwd: string, ref: string, method: MergeMethod): Promise<void> {
    const how = method === 'squash' ? ['--squash'] : method === 'rebase' ? ['--rebase'] : [];
    await this.call(cwd, ['mr', 'merge', ...mergeRequestTarget(ref), ...how, '--yes'], `merge the merge request ${ref}`);
  }
}
