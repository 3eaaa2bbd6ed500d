import { rm } from 'node:fs/promises';
import { z } from 'zod';
import type { WorkspaceRecord } from '../db/repositories/workspaces';
import { findBranchConflicts } from '../git/merge-check';
import { syncWorkspace } from '../git/sync';
import {
  cloneSource,
  clonedWorkspacePath,
  cloneWorkspaceFolder,
  defaultRepo,
  nextWorkspaceName,
} from '../orchestrator/workspace-provisioning';
import { isAdminHere } from './admin-check';
import { allowedCloneSource } from './clone-source';
import { redactCredentials } from '../git/clone-url';
import { withoutCredentials } from '../git/remote-credentials';
import { CommandError, defineCommand, type CommandContext } from './catalog';
import { idFromName } from './derived-ids';
import { isWithin, linkTargetCheck, resolveReal, validatePath } from './path-validation';
import { projectIdOrActive, requireProject } from './projects';
import { loggedErrorText } from './error-text';
import { gitStep } from './repo-path';
import { nextOffset, pageFields, pageOf, type ListPaging } from './paging';
import { boolean, optional, requiredText } from './schema';
import { settleAll } from '../util/settle-all';

const WORKSPACE_LIST: ListPaging = { key: 'workspaces', defaultLimit: 100, maxLimit: 500 };

function workspaceView(w: WorkspaceRecord) {
  return {
    id: w.id,
    name: w.name,
    path: w.path,
    source_type: w.sourceType,
    repo_id: w.repoId,
    locked_by_task_id: w.lockedByTaskId,
    locked_by_agent_id: w.lockedByAgentId,
    locked_at: w.lockedAt ? w.lockedAt.toISOString() : null,
  };
}

async function requireWorkspace(ctx: CommandContext, id: string): Promise<WorkspaceRecord> {
  const w = await ctx.db.workspaces.get(id);
  if (!w) throw new CommandError(`Workspace '${id}' not found. List them with /aq list_workspaces.`);
  return w;
}

async function projectWorkspaces(
  ctx: CommandContext,
  projectId: string | undefined,
): Promise<{ projectId: string; workspaces: WorkspaceRecord[]; defaultBranch: string }> {
  const id = projectIdOrActive(ctx, projectId);
  await requireProject(ctx, id);
  const workspaces = await ctx.db.workspaces.list(id);
  if (workspaces.length === 0) throw new CommandError(`Project '${id}' has no workspaces. Add one with /aq add_workspace.`);
  const [repo] = await ctx.db.repos.list(id);
  return { projectId: id, workspaces, defaultBranch: repo?.defaultBranch ?? 'main' };
}

async function defaultBranchOf(ctx: CommandContext, w: WorkspaceRecord, fallback: string): Promise<string> {
  const repo = w.repoId ? await ctx.db.repos.get(w.repoId) : null;
  return repo?.defaultBranch ?? fallback;
}

export const addWorkspace = defineCommand({
  name: 'add_workspace',
  group: 'workspaces',
  kind: 'change',
  description:
    'Give a project a workspace for agents: clone its repository into a new folder, or link an existing checkout (outside the workspace directory: admins only).',
  input: () =>
    z.object({
      project_id: requiredText('Project id'),
      source: optional(z.enum(['clone', 'link']).describe('clone (default) or link')),
      name: optional(requiredText('Workspace name (default: ws-<n>)')),
      repo_id: optional(requiredText('Repo to clone (default: the project’s first repo with a URL)')),
      url: optional(requiredText('URL to clone instead of a repo’s')),
      path: optional(requiredText('Existing git checkout (for link)')),
    }),
  async run(args, ctx) {
    const project = await requireProject(ctx, args.project_id);
    const source = args.source ?? (args.path ? 'link' : 'clone');
    const existing = await ctx.db.workspaces.list(project.id);
    const name = args.name ?? nextWorkspaceName(project.id, existing);
    const slug = idFromName(name, 'Workspace name', { folder: true });
    const id = `${project.id}-${slug}`;
    if (await ctx.db.workspaces.get(id)) throw new CommandError(`Workspace '${id}' already exists. Pick another name.`);
    const repos = await ctx.db.repos.list(project.id);
    const repo = args.repo_id ? await ctx.db.repos.get(args.repo_id) : defaultRepo(repos);
    if (args.repo_id && !repo) throw new CommandError(`Repo '${args.repo_id}' not found. List them with /aq list_repos.`);
    if (repo && repo.projectId !== project.id) {
      throw new CommandError(
        `Repo '${repo.id}' belongs to project '${repo.projectId}', not '${project.id}'. Pick one of this project's repos.`,
      );
    }

    let workspacePath: string;
    let warning: string | undefined;
    if (source === 'link') {
      if (!args.path) throw new CommandError('A path is required to link a workspace.');
      // Linking makes the folder readable by file commands: the one guard is linkTargetCheck.
      workspacePath = await linkTargetCheck(ctx.config, args.path, isAdminHere(ctx));
      await gitStep(() => ctx.git.assertRepo(workspacePath));
      const remote = await ctx.git.getRemoteUrl(workspacePath);
      // A clone the app made names its origin without the URL's credentials (git/remote-credentials.ts).
      if (repo?.url && remote && withoutCredentials(remote) !== withoutCredentials(repo.url)) {
        warning = `This checkout's origin is ${redactCredentials(remote)}, but project '${project.id}' uses ${redactCredentials(repo.url)}. Agents would commit to the wrong repository.`;
      }
    } else {
      const given = args.url ?? cloneSource(repo);
      if (!given) throw new CommandError(`Nothing to clone: add a repository with a URL (/aq add_repo) or pass url.`);
      // A given url is judged as add_repo judges one; a repo's own source was judged when it was added.
      const url = args.url ? await allowedCloneSource(ctx, args.url) : given;
      workspacePath = await validatePath(ctx, clonedWorkspacePath(project.workspace, slug));
      await gitStep(() => cloneWorkspaceFolder(ctx.git, url, workspacePath));
    }
    if ((await ctx.db.workspaces.list()).some((w) => w.path === workspacePath)) {
      throw new CommandError(`Another workspace already uses ${workspacePath}.`);
    }
    const created = await ctx.db.workspaces.create({
      id,
      projectId: project.id,
      name,
      path: workspacePath,
      sourceType: source,
      repoId: repo?.id ?? null,
    });
    return { created: created.id, name, path: workspacePath, source_type: source, repo_id: created.repoId, ...(warning && { warning }) };
  },
});

export const listWorkspaces = defineCommand({
  name: 'list_workspaces',
  group: 'workspaces',
  kind: 'read',
  description: `List workspaces with the task and agent holding each one, oldest first, ${WORKSPACE_LIST.defaultLimit} a page; total counts them all and next_offset asks for the next page.`,
  input: () =>
    z.object({
      project_id: optional(requiredText('Only this project (default: the active project, else all)')),
      ...pageFields(WORKSPACE_LIST),
    }),
  list: WORKSPACE_LIST,
  async run({ project_id, ...paging }, ctx) {
    const scope = project_id ?? ctx.session.activeProjectId ?? undefined;
    if (scope) await requireProject(ctx, scope);
    const page = pageOf(paging, WORKSPACE_LIST.defaultLimit);
    const [workspaces, total] = await settleAll([ctx.db.workspaces.list(scope, page), ctx.db.workspaces.count(scope)]);
    return {
      project_id: scope ?? null,
      workspaces: workspaces.map(workspaceView),
      total,
      next_offset: nextOffset(page, workspaces.length, total),
    };
  },
});

export const releaseWorkspace = defineCommand({
  name: 'release_workspace',
  group: 'workspaces',
  kind: 'change',
  description: 'Release a stuck workspace lock. Refused while its task is running unless force is true.',
  input: () => z.object({ workspace_id: requiredText('Workspace id'), force: optional(boolean('Release even if its task is running')) }),
  async run({ workspace_id, force }, ctx) {
    const w = await requireWorkspace(ctx, workspace_id);
    if (!w.lockedByTaskId) return { workspace_id, released: false, message: 'The workspace was not locked.' };
    const task = await ctx.db.tasks.get(w.lockedByTaskId);
    if (task?.status === 'IN_PROGRESS' && !force) {
      throw new CommandError(`Task '${task.id}' is running in this workspace. Stop it first, or pass force=true.`);
    }
    await ctx.db.workspaces.release(workspace_id);
    return { workspace_id, released: true, previous_task_id: w.lockedByTaskId };
  },
});

export const removeWorkspace = defineCommand({
  name: 'remove_workspace',
  group: 'workspaces',
  kind: 'admin',
  description: 'Remove a workspace (refused while locked); delete_files also deletes a cloned folder.',
  input: () => z.object({ workspace_id: requiredText('Workspace id'), delete_files: optional(boolean('Also delete the cloned folder')) }),
  async run({ workspace_id, delete_files }, ctx) {
    const w = await requireWorkspace(ctx, workspace_id);
    if (w.lockedByTaskId) throw new CommandError(`Workspace '${workspace_id}' is locked by task '${w.lockedByTaskId}'. Release it first.`);
    let filesDeleted = false;
    if (delete_files) {
      const project = await requireProject(ctx, w.projectId);
      // Judged by real paths: a symlinked folder on the way must not lead the deletion outside.
      if (w.sourceType !== 'clone' || !isWithin(await resolveReal(w.path), await resolveReal(project.workspace))) {
        throw new CommandError(
          'Only folders Agent Queue cloned inside the project workspace can be deleted; linked folders are left alone.',
        );
      }
      // The token its origin's helper read from AQ_HOME goes with it (git/remote-credentials.ts).
      await ctx.git.forgetOriginCredentials(w.path);
      await rm(w.path, { recursive: true, force: true });
      filesDeleted = true;
    }
    await ctx.db.workspaces.delete(workspace_id);
    return { removed: workspace_id, name: w.name, path: w.path, files_deleted: filesDeleted };
  },
});

export const findMergeConflictWorkspaces = defineCommand({
  name: 'find_merge_conflict_workspaces',
  group: 'workspaces',
  kind: 'read',
  description:
    "Scan a project's workspaces (read-only) for branches that would conflict with the default branch and for unresolved conflicts.",
  input: () => z.object({ project_id: optional(requiredText('Project id (default: the active project)')) }),
  async run({ project_id }, ctx) {
    const { projectId, workspaces, defaultBranch } = await projectWorkspaces(ctx, project_id);
    const conflicts = [];
    for (const w of workspaces) {
      const base = await defaultBranchOf(ctx, w, defaultBranch);
      try {
        await ctx.git.assertRepo(w.path);
        if (await ctx.git.getRemoteUrl(w.path)) await ctx.git.fetch(w.path, { prune: true });
        const [branch, treeConflicts, branchConflicts] = await settleAll([
          ctx.git.currentBranch(w.path),
          ctx.git.conflictedFiles(w.path),
          findBranchConflicts(ctx.git, w.path, base),
        ]);
        if (treeConflicts.length === 0 && branchConflicts.length === 0) continue;
        const described = [];
        for (const c of branchConflicts) {
          described.push({
            branch: c.branch,
            task_id: await ctx.db.tasks.idForBranch(projectId, c.branch),
            conflicting_files: c.conflictingFiles,
            commits_behind_main: c.commitsBehindMain,
          });
        }
        conflicts.push({
          workspace_id: w.id,
          workspace_name: w.name,
          workspace_path: w.path,
          current_branch: branch,
          locked_by_task_id: w.lockedByTaskId,
          locked_by_agent_id: w.lockedByAgentId,
          has_working_tree_conflict: treeConflicts.length > 0,
          branch_conflicts: described,
        });
      } catch (err) {
        conflicts.push({
          workspace_id: w.id,
          workspace_name: w.name,
          workspace_path: w.path,
          error: loggedErrorText(err, ctx.log, 'find_merge_conflict_workspaces'),
        });
      }
    }
    return {
      project_id: projectId,
      workspaces_scanned: workspaces.length,
      workspaces_with_conflicts: conflicts.filter((c) => !('error' in c)).length,
      conflicts,
    };
  },
});

export const syncWorkspaces = defineCommand({
  name: 'sync_workspaces',
  group: 'workspaces',
  kind: 'destructive',
  description:
    "Bring a project's workspaces up to date with origin: reset the default branch, push and rebase feature branches. Locked workspaces are skipped unless skip_locked is false.",
  input: () =>
    z.object({
      project_id: optional(requiredText('Project id (default: the active project)')),
      skip_locked: optional(boolean('Skip workspaces an agent holds (default true)')),
    }),
  async run({ project_id, skip_locked }, ctx) {
    const { projectId, workspaces, defaultBranch } = await projectWorkspaces(ctx, project_id);
    type Base = { workspace_id: string; workspace_name: string; workspace_path: string };
    const results: Array<Base & ({ status: 'error' | 'skipped'; message: string } | Awaited<ReturnType<typeof syncWorkspace>>)> = [];
    for (const w of workspaces) {
      const base = { workspace_id: w.id, workspace_name: w.name, workspace_path: w.path };
      if (!(await ctx.git.isRepo(w.path))) {
        results.push({ ...base, status: 'error', message: `Not a git repository: ${w.path}` });
        continue;
      }
      if (w.lockedByTaskId && skip_locked !== false) {
        results.push({ ...base, status: 'skipped', message: `Locked by task ${w.lockedByTaskId}` });
        continue;
      }
      try {
        const outcome = await syncWorkspace(ctx.git, w.path, await defaultBranchOf(ctx, w, defaultBranch));
        results.push({ ...base, ...outcome });
      } catch (err) {
        results.push({ ...base, status: 'error', message: loggedErrorText(err, ctx.log, 'sync_workspaces') });
      }
    }
    const count = (status: string) => results.filter((r) => r.status === status).length;
    return {
      project_id: projectId,
      default_branch: defaultBranch,
      total_workspaces: workspaces.length,
      synced: count('synced'),
      skipped: count('skipped'),
      errors: count('error'),
      conflicts: count('conflict'),
      workspaces: results,
    };
  },
});

export const workspaceCommands = [
  addWorkspace,
  listWorkspaces,
  releaseWorkspace,
  removeWorkspace,
  findMergeConflictWorkspaces,
  syncWorkspaces,
];
