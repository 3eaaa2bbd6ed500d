import type { PullRequestInput } from '../pull-requests';

/** The forges Agent Queue talks to; a remote that is neither is plain git. */
export const FORGE_KINDS = ['github', 'gitlab'] as const;
export type ForgeKind = (typeof FORGE_KINDS)[number];

export const MERGE_METHODS = ['merge', 'squash', 'rebase'] as const;
export type MergeMethod = (typeof MERGE_METHODS)[number];

/** Whether a forge's CLI can be used: installed and logged in. */
export type ForgeReadiness = 'ready' | 'missing' | 'unauthenticated';

/** A pull request (GitHub) or merge request (GitLab) as Agent Queue needs to see it. */
export interface ChangeRequestView {
  state: 'open' | 'merged' | 'closed';
  /** The forge reports conflicts with the target branch. */
  conflicts: boolean;
  /** Failed checks (CI jobs, status contexts) by name; a failed pipeline without names is 'pipeline'. */
  failingChecks: string[];
  /** Checks still running. */
  pendingChecks: boolean;
  /** How many checks passed, failed and still run (GitLab: its pipeline, as one). */
  checks: CheckCounts;
}

export interface CheckCounts {
  passing: number;
  failing: number;
  pending: number;
}

/**
 * One forge behind its CLI. Every method throws a GitError with a sentence for people when the
 * CLI is missing, logged out or refuses; `ref` is the PR/MR URL the forge printed on `open`.
 */
export interface Forge {
  readonly kind: ForgeKind;
  /** "pull request" or "merge request". */
  readonly noun: string;
  /** The CLI's program name, for messages ("gh", "glab"). */
  readonly cli: string;
  readiness(cwd: string): Promise<ForgeReadiness>;
  /** Throws the sentence for a CLI that is missing or logged out. */
  assertReady(cwd: string): Promise<void>;
  open(cwd: string, input: PullRequestInput): Promise<string>;
  view(cwd: string, ref: string): Promise<ChangeRequestView>;
  merge(cwd: string, ref: string, method: MergeMethod): Promise<void>;
}

export interface ForgeCliOptions {
  /** Path of the CLI (default its name on PATH). */
  path: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}
