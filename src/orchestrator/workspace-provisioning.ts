import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from '../db/database';
import type { RepoRecord } from '../db/repositories/repos';
import type { WorkspaceRecord } from '../db/repositories/workspaces';
import { GitError } from '../git/git-errors';
import { withoutCredentials } from '../git/remote-credentials';
import { errorMessage } from '../util/error-message';
import { settleAll } from '../util/settle-all';

/*
 * Workspaces made from a project's repository: by add_workspace (a person asks) and by the
 * daemon on demand (zero setup: one per concurrent agent slot, up to max_concurrent_agents).
 * Both name, place and clone a workspace the same way, through the functions here.
 */

/** What provisioning needs from git. */
export interface ProvisioningGit {
  clone(url: string, dest: string): Promise<void>;
  isRepo(path: string): Promise<boolean>;
  getRemoteUrl(path: string): Promise<string | null>;
}

/** The repo a workspace is made from by default: the project's first with a URL, else its first. */
export function defaultRepo(repos: RepoRecord[]): RepoRecord | null {
  return repos.find((r) => r.url) ?? repos[0] ?? null;
}

/** What a workspace of `repo` is cloned from: its URL, else the folder it links; null for neither. */
export function cloneSource(repo: RepoRecord | null): string | null {
  return repo?.url ?? repo?.sourcePath ?? null;
}

/** Where a cloned workspace lives: below the project's folder, in workspaces/<slug>. */
export function clonedWorkspacePath(projectDir: string, slug: string): string {
  return path.join(projectDir, 'workspaces', slug);
}

/** The first `ws-<n>` name no workspace of the project uses (as a name or in its id). */
export function nextWorkspaceName(projectId: string, existing: Array<Pick<WorkspaceRecord, 'id' | 'name'>>): string {
  const taken = new Set(existing.flatMap((w) => [w.name, w.id]));
  for (let n = existing.length + 1; ; n++) {
    const name = `ws-${n}`;
    if (!taken.has(name) && !taken.has(`${projectId}-${name}`)) return name;
  }
}

/** Clones `source` into `target`, a folder that must not exist yet (a GitError says why not). */
export async function cloneWorkspaceFolder(git: Pick<ProvisioningGit, 'clone'>, source: string, target: string): Promise<void> {
  if (await stat(target).catch(() => null)) throw new GitError(`Folder already exists: ${target}`);
  await git.clone(source, target);
}

/** Whether `folder` is a repository of its own whose origin is `source` (as a clone of it names its origin). */
async function isCloneOf(git: ProvisioningGit, folder: string, source: string): Promise<boolean> {
  return (await git.isRepo(folder)) && (await git.getRemoteUrl(folder)) === withoutCredentials(source);
}

/** Why the last attempt to provision a project's workspace failed, kept until one succeeds. */
export interface ProvisioningFailure {
  error: string;
  /** What it tried to clone or link (a new source is tried at once). */
  source: string;
  /** Milliseconds since the epoch. */
  at: number;
}

/** The system_state row that keeps the failures. */
export const PROVISIONING_FAILURES_KEY = 'workspace_provisioning_failures';

export type ProvisioningFailures = Record<string, ProvisioningFailure>;

export async function provisioningFailures(db: Database): Promise<ProvisioningFailures> {
  return db.state.get<ProvisioningFailures>(PROVISIONING_FAILURES_KEY, {});
}

/** Drops the failures kept for `workers` (`<project>@<worker>`), once they are forgotten. */
export async function forgetWorkersFailures(db: Database, workers: string[]): Promise<void> {
  const all = await provisioningFailures(db);
  const gone = new Set(workers);
  const kept = Object.entries(all).filter(([key]) => !(key.includes('@') && gone.has(key.slice(key.lastIndexOf('@') + 1))));
  if (kept.length < Object.keys(all).length) await db.state.set(PROVISIONING_FAILURES_KEY, Object.fromEntries(kept));
}

async function recordFailure(db: Database, projectId: string, failure: ProvisioningFailure | null): Promise<void> {
  const all = await provisioningFailures(db);
  if (failure) all[projectId] = failure;
  else if (all[projectId]) delete all[projectId];
  else return;
  await db.state.set(PROVISIONING_FAILURES_KEY, all);
}

export interface ProvisionDeps {
  db: Database;
  git: ProvisioningGit;
  now: () => Date;
  log: (message: string) => void;
  /** After a failure, the same source is tried again only this much later. */
  retryMs: number;
  /**
   * A worker provisioning for itself: clones go below its own folder, named after it, and are
   * owned by it (no one else uses or touches them). Absent: the app's own workspaces.
   */
  owner?: { workerId: string; dir: string };
}

export interface ProvisionProject {
  id: string;
  workspace: string;
}

/**
 * Gives the project up to `count` new workspaces and returns their ids. From its repository: a
 * clone of the repo's URL (or linked folder) per slot; a repo made with `init` has one checkout,
 * which becomes its one workspace. A project without repos uses its own folder when that is a git
 * repository. A failure is stored (provisioningFailures) for status views and retried later.
 */
export async function provisionWorkspaces(deps: ProvisionDeps, project: ProvisionProject, count: number): Promise<string[]> {
  const { db } = deps;
  const [repos, existing] = await settleAll([db.repos.list(project.id), db.workspaces.list(project.id)]);
  const repo = defaultRepo(repos);
  const source = cloneSource(repo);
  const linkable = !source ? (repo ? repo.checkoutBasePath : project.workspace) : null;
  const what = source ?? linkable;
  if (!what || count <= 0) return [];

  if (deps.owner) return provisionForWorker(deps, deps.owner, project, repo, source, existing, count);
  const failed = (await provisioningFailures(db))[project.id];
  if (failed && failed.source === what && deps.now().getTime() - failed.at < deps.retryMs) return [];

  const created: string[] = [];
  try {
    if (linkable) {
      if (existing.length > 0 || (await db.workspaces.list()).some((w) => w.path === linkable)) return [];
      if (!(await deps.git.isRepo(linkable))) {
        // A project with no repository and a plain folder: nothing to provision from, nothing failed.
        if (!repo) return [];
        throw new GitError(`Not a git repository: ${linkable}`);
      }
      const id = repo ? `${project.id}-${repo.id}` : `${project.id}-default`;
      await db.workspaces.create({
        id,
        projectId: project.id,
        name: repo ? repo.id : 'default',
        path: linkable,
        sourceType: 'link',
        repoId: repo?.id ?? null,
      });
      created.push(id);
    } else {
      const names: string[] = [];
      const taken: Array<Pick<WorkspaceRecord, 'id' | 'name'>> = [...existing];
      while (names.length < count) {
        const name = nextWorkspaceName(project.id, taken);
        taken.push({ id: `${project.id}-${name}`, name });
        // A folder left behind (a removed workspace) is not ours to reuse: take the next name.
        if (await stat(clonedWorkspacePath(project.workspace, name)).catch(() => null)) continue;
        names.push(name);
      }
      // Clones run side by side; a failed one does not undo the ones that worked.
      const results = await Promise.allSettled(
        names.map(async (name) => {
          const target = clonedWorkspacePath(project.workspace, name);
          await cloneWorkspaceFolder(deps.git, source!, target);
          const id = `${project.id}-${name}`;
          await db.workspaces.create({ id, projectId: project.id, name, path: target, sourceType: 'clone', repoId: repo?.id ?? null });
          return id;
        }),
      );
      for (const r of results) if (r.status === 'fulfilled') created.push(r.value);
      const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (rejected) throw rejected.reason;
    }
    await recordFailure(db, project.id, null);
  } catch (err) {
    const error = err instanceof GitError ? err.message : `Could not prepare a workspace from ${what}: ${errorMessage(err)}`;
    deps.log(`Workspace provisioning for project ${project.id} failed: ${error}`);
    await recordFailure(db, project.id, { error, source: what, at: deps.now().getTime() });
  }
  if (created.length > 0) deps.log(`Provisioned workspace(s) ${created.join(', ')} for project ${project.id}.`);
  return created;
}

/**
 * A worker's clones of the project's repo: `<worker>-ws-<n>` in `<worker dir>/<project>/`. A
 * project whose workspace is a linked folder on the app's machine has nothing a worker can
 * clone: it gets none. Failures are kept under `<project>@<worker>`. A folder of such a name
 * without a row is the worker's own checkout from before it was forgotten (silent for a day, as a
 * machine switched off over a weekend): taken back while it is still a clone of the source, else
 * left alone for the next name.
 */
async function provisionForWorker(
  deps: ProvisionDeps,
  owner: { workerId: string; dir: string },
  project: ProvisionProject,
  repo: RepoRecord | null,
  source: string | null,
  existing: WorkspaceRecord[],
  count: number,
): Promise<string[]> {
  if (!source || count <= 0) return [];
  const key = `${project.id}@${owner.workerId}`;
  const failed = (await provisioningFailures(deps.db))[key];
  if (failed && failed.source === source && deps.now().getTime() - failed.at < deps.retryMs) return [];
  const taken = new Set(existing.flatMap((w) => [w.name, w.id]));
  const names: Array<{ name: string; takenBack: boolean }> = [];
  for (let n = 1; names.length < count; n++) {
    const name = `${owner.workerId}-ws-${n}`;
    if (taken.has(name) || taken.has(`${project.id}-${name}`)) continue;
    const target = path.join(owner.dir, project.id, name);
    if (await stat(target).catch(() => null)) {
      if (await isCloneOf(deps.git, target, source)) names.push({ name, takenBack: true });
      continue;
    }
    names.push({ name, takenBack: false });
  }
  const results = await Promise.allSettled(
    names.map(async ({ name, takenBack }) => {
      const target = path.join(owner.dir, project.id, name);
      if (!takenBack) await cloneWorkspaceFolder(deps.git, source, target);
      const id = `${project.id}-${name}`;
      await deps.db.workspaces.create({
        id,
        projectId: project.id,
        name,
        path: target,
        sourceType: 'clone',
        repoId: repo?.id ?? null,
        workerId: owner.workerId,
      });
      return id;
    }),
  );
  const created = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected) {
    const err = rejected.reason;
    const error = err instanceof GitError ? err.message : `Could not clone ${source}: ${errorMessage(err)}`;
    deps.log(`Workspace provisioning for project ${project.id} failed: ${error}`);
    await recordFailure(deps.db, key, { error, source, at: deps.now().getTime() });
  } else await recordFailure(deps.db, key, null);
  const back = new Set(names.filter((n) => n.takenBack).map((n) => `${project.id}-${n.name}`));
  const made = created.filter((id) => !back.has(id));
  const tookBack = created.filter((id) => back.has(id));
  if (made.length > 0) deps.log(`Provisioned workspace(s) ${made.join(', ')} for project ${project.id}.`);
  if (tookBack.length > 0)
    deps.log(`Took back workspace(s) ${tookBack.join(', ')} for project ${project.id}: checkouts already in ${owner.dir}.`);
  return created;
}
