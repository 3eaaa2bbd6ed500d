import { z } from 'zod';
import { CommandError, defineCommand } from './catalog';
import { loggedErrorText } from './error-text';
import { requireProject } from './projects';
import { assertGitRepo, currentBranchOrFail, gitStep, inProgressWarning, repoCheckoutPath, resolveRepoPath } from './repo-path';
import { boolean, optional, requiredText } from './schema';
import { requireTask, taskId } from './task-common';
import { settleAll } from '../util/settle-all';

const projectId = requiredText('Project id');
const repoId = optional(requiredText('Repo id (default: the project’s first repo)'));
const branchName = requiredText('Branch name');

function withWarning<R extends Record<string, unknown>>(result: R, warning: string | null): R & { warning?: string } {
  return warning ? { ...result, warning } : result;
}

export const createBranch = defineCommand({
  name: 'create_branch',
  group: 'git',
  kind: 'change',
  description: "Create a branch in a project's repository and switch to it.",
  input: () => z.object({ project_id: projectId, branch_name: branchName, repo_id: repoId }),
  async run(args, ctx) {
    const { path, repo } = await resolveRepoPath(ctx, { projectId: args.project_id, repoId: args.repo_id });
    await gitStep(() => ctx.git.createBranch(path, args.branch_name));
    return { project_id: args.project_id, repo_id: repo.id, branch: args.branch_name, status: 'created' };
  },
});

export const checkoutBranch = defineCommand({
  name: 'checkout_branch',
  group: 'git',
  kind: 'change',
  description: "Switch a project's repository to a branch.",
  input: () => z.object({ project_id: projectId, branch_name: branchName, repo_id: repoId }),
  async run(args, ctx) {
    const { path, repo } = await resolveRepoPath(ctx, { projectId: args.project_id, repoId: args.repo_id });
    await gitStep(() => ctx.git.checkout(path, args.branch_name));
    const result = { project_id: args.project_id, repo_id: repo.id, branch: args.branch_name, status: 'checked_out' };
    return withWarning(result, await inProgressWarning(ctx, args.project_id));
  },
});

export const commitChanges = defineCommand({
  name: 'commit_changes',
  group: 'git',
  kind: 'change',
  description: "Commit every change in a project's repository.",
  input: () => z.object({ project_id: projectId, message: requiredText('Commit message'), repo_id: repoId }),
  async run(args, ctx) {
    const { path, repo } = await resolveRepoPath(ctx, { projectId: args.project_id, repoId: args.repo_id });
    const { committed } = await gitStep(() => ctx.git.commitAll(path, args.message));
    if (!committed) return { project_id: args.project_id, repo_id: repo.id, status: 'nothing_to_commit', message: 'No changes to commit' };
    const result = { project_id: args.project_id, repo_id: repo.id, commit_message: args.message, status: 'committed' };
    return withWarning(result, await inProgressWarning(ctx, args.project_id));
  },
});

export const pushBranch = defineCommand({
  name: 'push_branch',
  group: 'git',
  kind: 'change',
  description: "Push a branch (default: the current one) of a project's repository to origin.",
  input: () => z.object({ project_id: projectId, branch_name: optional(branchName), repo_id: repoId }),
  async run(args, ctx) {
    const { path, repo } = await resolveRepoPath(ctx, { projectId: args.project_id, repoId: args.repo_id });
    const branch = args.branch_name ?? (await currentBranchOrFail(ctx, path));
    await gitStep(() => ctx.git.push(path, branch));
    return { project_id: args.project_id, repo_id: repo.id, branch, status: 'pushed' };
  },
});

export const mergeBranch = defineCommand({
  name: 'merge_branch',
  group: 'git',
  kind: 'change',
  description: "Merge a branch into the repository's default branch; a conflict is aborted and reported.",
  input: () => z.object({ project_id: projectId, branch_name: branchName, repo_id: repoId }),
  async run(args, ctx) {
    const { path, repo } = await resolveRepoPath(ctx, { projectId: args.project_id, repoId: args.repo_id });
    const target = repo.defaultBranch || 'main';
    const outcome = await gitStep(() => ctx.git.merge(path, args.branch_name, target));
    const base = { project_id: args.project_id, repo_id: repo.id, branch: args.branch_name, target };
    const result =
      outcome.status === 'merged'
        ? { ...base, status: 'merged' }
        : { ...base, status: 'conflict', message: 'Merge conflict — merge was aborted', conflicting_files: outcome.files };
    return withWarning(result, await inProgressWarning(ctx, args.project_id));
  },
});

export const getGitStatus = defineCommand({
  name: 'get_git_status',
  group: 'git',
  kind: 'read',
  description: 'Branch, status and recent commits of every repository of a project.',
  input: () => z.object({ project_id: projectId }),
  async run({ project_id }, ctx) {
    const project = await requireProject(ctx, project_id);
    const repos = await ctx.db.repos.list(project_id);
    const targets = repos.length
      ? repos.map((r) => ({ repoId: r.id, path: repoCheckoutPath(r) }))
      : [{ repoId: project_id, path: project.workspace }];
    if (repos.length === 0) await assertGitRepo(ctx, project.workspace);
    const statuses = [];
    for (const target of targets) {
      try {
        if (!target.path) throw new CommandError(`Repo '${target.repoId}' has no checkout path.`);
        await ctx.git.assertRepo(target.path);
        const [branch, status, commits] = await settleAll([
          ctx.git.currentBranch(target.path),
          ctx.git.statusText(target.path),
          ctx.git.log(target.path, 5),
        ]);
        statuses.push({
          repo_id: target.repoId,
          path: target.path,
          branch: branch ?? '(detached HEAD)',
          status: status || '(clean)',
          recent_commits: commits,
        });
      } catch (err) {
        statuses.push({ repo_id: target.repoId, error: loggedErrorText(err, ctx.log, 'get_git_status') });
      }
    }
    return { project_id, project_name: project.name, repos: statuses };
  },
});

export const getTaskDiff = defineCommand({
  name: 'get_task_diff',
  group: 'git',
  kind: 'read',
  description:
    "What a task's branch changed compared with the repository's default branch (`git diff default...branch`); summary=true gives the files changed with their added and removed lines instead of the diff.",
  input: () => z.object({ task_id: taskId, summary: optional(boolean('Only the files changed and the totals, not the diff')) }),
  async run({ task_id, summary }, ctx) {
    const task = await requireTask(ctx, task_id);
    if (!task.repoId) throw new CommandError(`Task '${task_id}' has no associated repository.`);
    const repo = await ctx.db.repos.get(task.repoId);
    if (!repo) throw new CommandError(`Repo '${task.repoId}' not found.`);
    if (!task.branchName) throw new CommandError(`Task '${task_id}' has no branch yet (it has not run).`);
    const agent = task.assignedAgent ? await ctx.db.agents.get(task.assignedAgent) : null;
    // The branch lives where the task ran: its agent's checkout while it runs, else one of the
    // project's workspaces of that repo (a run hands its workspace back when it ends).
    const workspaces = (await ctx.db.workspaces.list(task.projectId)).filter((w) => w.repoId === task.repoId).map((w) => w.path);
    const candidates = [agent?.checkoutPath, ...workspaces, repo.sourcePath, repo.checkoutBasePath].filter((p): p is string => Boolean(p));
    let checkout: string | undefined = candidates[0];
    for (const candidate of candidates) {
      if (await ctx.git.branchExists(candidate, task.branchName).catch(() => false)) {
        checkout = candidate;
        break;
      }
    }
    if (!checkout) throw new CommandError(`Cannot tell where task '${task_id}' is checked out.`);
    await assertGitRepo(ctx, checkout);
    const base = repo.defaultBranch || 'main';
    const branch = task.branchName;
    if (summary) {
      const stats = await gitStep(() => ctx.git.diffStatsAgainstDefault(checkout, branch, base));
      return {
        branch,
        base,
        files_changed: stats.files.length,
        insertions: stats.insertions,
        deletions: stats.deletions,
        files: stats.files,
      };
    }
    const diff = await gitStep(() => ctx.git.diffAgainstDefault(checkout, branch, base));
    return { diff: diff.text.trim() ? diff.text : '(no changes)', ...(diff.cut && { diff_cut: true }), branch, base };
  },
});

export const gitCommands = [createBranch, checkoutBranch, commitChanges, pushBranch, mergeBranch, getGitStatus, getTaskDiff];
