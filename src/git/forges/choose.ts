import os from 'node:os';
import { GitError } from '../git-errors';
import { FORGE_KINDS, MERGE_METHODS, type Forge, type ForgeKind, type ForgeReadiness, type MergeMethod } from './forge';
import { GitHubForge } from './github';
import { GitLabForge } from './gitlab';
import { settleAll } from '../../util/settle-all';

/** The host of a remote URL (`https://…`, `ssh://…`, `git@host:path`), or null for a local path. */
export function remoteHost(url: string): string | null {
  const full = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/:]+)/i.exec(url);
  if (full) return /^file$/i.test(url.split(':')[0]) ? null : full[1].toLowerCase();
  const scp = /^(?:[^@/]+@)?([^/:]+):(?!\/\/)/.exec(url);
  return scp && !/^[a-z]$/i.test(scp[1]) ? scp[1].toLowerCase() : null;
}

/**
 * Which forge a remote belongs to: github.com and hosts named like GitHub (an Enterprise
 * server), gitlab.com and hosts named like GitLab (a self-managed one). Anything else — a bare
 * repository, a file path, an unknown host — is plain git (null).
 */
export function forgeKindOfRemote(url: string | null): ForgeKind | null {
  const host = url ? remoteHost(url) : null;
  if (!host) return null;
  for (const kind of FORGE_KINDS) {
    if (new RegExp(`(^|[.-])${kind}([.-]|$)`).test(host)) return kind;
  }
  return null;
}

/** Which forge a PR/MR URL belongs to, from its shape. */
export function forgeKindOfChangeUrl(url: string): ForgeKind | null {
  if (/^https?:\/\/[^\s]+\/-\/merge_requests\/\d+/.test(url)) return 'gitlab';
  if (/^https?:\/\/[^\s]+\/pull\/\d+/.test(url)) return 'github';
  return null;
}

/** AQ_MERGE_METHOD (merge, squash or rebase; merge when unset); a wrong value is a sentence. */
export function mergeMethodFrom(env: NodeJS.ProcessEnv): MergeMethod {
  const raw = (env.AQ_MERGE_METHOD ?? '').trim().toLowerCase();
  if (!raw) return 'merge';
  if ((MERGE_METHODS as readonly string[]).includes(raw)) return raw as MergeMethod;
  throw new GitError(`AQ_MERGE_METHOD must be merge, squash or rebase (got ${JSON.stringify(env.AQ_MERGE_METHOD)}).`);
}

export interface ForgesOptions {
  ghPath: string;
  glabPath: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** How long a readiness answer is reused (default 5 minutes). */
  readinessTtlMs?: number;
}

export type ForgesReadiness = Record<ForgeKind, ForgeReadiness>;

/** The forges of this process, chosen by remote or by PR/MR URL, and their cached readiness. */
export class Forges {
  readonly github: GitHubForge;
  readonly gitlab: GitLabForge;
  private readonly env: NodeJS.ProcessEnv;
  private readonly ttlMs: number;
  private readinessCache: { at: number; value: Promise<ForgesReadiness> } | null = null;

  constructor(options: ForgesOptions) {
    this.env = options.env;
    this.ttlMs = options.readinessTtlMs ?? 5 * 60_000;
    this.github = new GitHubForge({ path: options.ghPath, env: options.env, timeoutMs: options.timeoutMs });
    this.gitlab = new GitLabForge({ path: options.glabPath, env: options.env, timeoutMs: options.timeoutMs });
  }

  byKind(kind: ForgeKind): Forge {
    return kind === 'github' ? this.github : this.gitlab;
  }

  forRemote(url: string | null): Forge | null {
    const kind = forgeKindOfRemote(url);
    return kind ? this.byKind(kind) : null;
  }

  forChangeUrl(url: string): Forge | null {
    const kind = forgeKindOfChangeUrl(url);
    return kind ? this.byKind(kind) : null;
  }

  mergeMethod(): MergeMethod {
    return mergeMethodFrom(this.env);
  }

  /**
   * Whether gh and glab are installed and logged in, probed together and reused for a few
   * minutes so get_status stays fast; a probe already under way is shared, not repeated.
   */
  readiness(): Promise<ForgesReadiness> {
    const now = Date.now();
    if (!this.readinessCache || now - this.readinessCache.at > this.ttlMs) {
      const cwd = os.tmpdir();
      const value = settleAll([this.github.readiness(cwd), this.gitlab.readiness(cwd)]).then(([github, gitlab]) => ({ github, gitlab }));
      this.readinessCache = { at: now, value };
    }
    return this.readinessCache.value;
  }
}
