import { z } from 'zod';
import { createPullRequest } from '../git/pull-requests';
import { defineCommand } from './catalog';
import { currentBranchOrFail, gitStep, resolveRepoPath } from './repo-path';
import { integer, optional, requiredText } from './schema';
import { limitField, offsetField, pageOf, sliceOf } from './paging';
import { settleAll } from '../util/settle-all';

/** Branches and changed files a page: a repository's history can hold thousands. */
const GIT_LIST_PAGE = 200;
const GIT_LIST_MAX_PAGE = 1000;

const repoId = requiredText('Repo id');
const projectId = requiredText('Project id');
const optionalRepo = optional(requiredText('Repo id (default: the project’s first repo)'));

export const gitCommit = defineCommand({
  name: 'git_commit',
  group: 'git',
  kind: 'change',
  description: 'Commit every change in a repository.',
  input: () => z.object({ repo_id: repoId, message: requiredText('Commit message'), project_id: optional(projectId) }),
  async run(args, ctx) {
    const { path } = await resolveRepoPath(ctx, { repoId: args.repo_id, projectId: args.project_id });
    const { committed } = await gitStep(() => ctx.git.commitAll(path, args.message));
    return committed
      ? { repo_id: args.repo_id, committed: true, commit_message: args.message }
      : { repo_id: args.repo_id, committed: false, message: 'Nothing to commit — working tree clean' };
  },
});

export const gitPush = defineCommand({
  name: 'git_push',
  group: 'git',
  kind: 'change',
  description: 'Push a branch (default: the current one) of a repository to origin.',
  input: () => z.object({ repo_id: repoId, branch: optional(requiredText('Branch')), project_id: optional(projectId) }),
  async run(args, ctx) {
    const { path } = await resolveRepoPath(ctx, { repoId: args.repo_id, projectId: args.project_id });
    const branch = args.branch ?? (await currentBranchOrFail(ctx, path));
    await gitStep(() => ctx.git.push(path, branch));
    return { repo_id: args.repo_id, pushed: branch };
  },
});

export const gitCreateBranch = defineCommand({
  name: 'git_create_branch',
  group: 'git',
  kind: 'change',
  description: 'Create a branch in a repository and switch to it.',
  input: () => z.object({ repo_id: repoId, branch_name: requiredText('Branch name'), project_id: optional(projectId) }),
  async run(args, ctx) {
    const { path } = await resolveRepoPath(ctx, { repoId: args.repo_id, projectId: args.project_id });
    await gitStep(() => ctx.git.createBranch(path, args.branch_name));
    return { repo_id: args.repo_id, created_branch: args.branch_name };
  },
});

export const gitMerge = defineCommand({
  name: 'git_merge',
  group: 'git',
  kind: 'change',
  description: 'Merge a branch into the default branch of a repository; a conflict is aborted and reported.',
  input: () =>
    z.object({
      repo_id: repoId,
      branch_name: requiredText('Branch to merge'),
      default_branch: optional(requiredText('Branch to merge into (default: the repo’s default)')),
      project_id: optional(projectId),
    }),
  async run(args, ctx) {
    const { path, repo } = await resolveRepoPath(ctx, { repoId: args.repo_id, projectId: args.project_id });
    const into = args.default_branch ?? (repo.defaultBranch || 'main');
    const outcome = await gitStep(() => ctx.git.merge(path, args.branch_name, into));
    return outcome.status === 'merged'
      ? { repo_id: args.repo_id, merged: true, branch: args.branch_name, into }
      : {
          repo_id: args.repo_id,
          merged: false,
          into,
          message: `Merging '${args.branch_name}' into '${into}' conflicts; the merge was aborted.`,
          conflicting_files: outcome.files,
        };
  },
});

export const gitCreatePr = defineCommand({
  name: 'git_create_pr',
  group: 'git',
  kind: 'change',
  description: 'Open a pull request with the GitHub CLI (gh).',
  input: () =>
    z.object({
      repo_id: repoId,
      title: requiredText('Pull request title'),
      body: optional(z.string().describe('Pull request description')),
      branch: optional(requiredText('Branch (default: the current one)')),
      base: optional(requiredText('Base branch (default: the repo’s default)')),
      project_id: optional(projectId),
    }),
  async run(args, ctx) {
    const { path, repo } = await resolveRepoPath(ctx, { repoId: args.repo_id, projectId: args.project_id });
    const branch = args.branch ?? (await currentBranchOrFail(ctx, path));
    const base = args.base ?? (repo.defaultBranch || 'main');
    const url = await gitStep(() => createPullRequest(ctx.git.ghPath, path, { title: args.title, body: args.body ?? '', branch, base }));
    return { repo_id: args.repo_id, pr_url: url, branch, base };
  },
});

export const gitChangedFiles = defineCommand({
  name: 'git_changed_files',
  group: 'git',
  kind: 'read',
  description: `Files changed in a repository compared with a base branch, ${GIT_LIST_PAGE} a page; count counts them all and next_offset asks for the next page.`,
  input: () =>
    z.object({
      repo_id: repoId,
      base_branch: optional(requiredText('Base branch (default: the repo’s default)')),
      project_id: optional(projectId),
      limit: limitField(GIT_LIST_PAGE, GIT_LIST_MAX_PAGE),
      offset: offsetField(),
    }),
  async run(args, ctx) {
    const { path, repo } = await resolveRepoPath(ctx, { repoId: args.repo_id, projectId: args.project_id });
    const base = args.base_branch ?? (repo.defaultBranch || 'main');
    const page = sliceOf(await gitStep(() => ctx.git.changedFiles(path, base)), pageOf(args, GIT_LIST_PAGE));
    return { repo_id: args.repo_id, base_branch: base, files: page.items, count: page.total, next_offset: page.next_offset };
  },
});

export const gitLog = defineCommand({
  name: 'git_log',
  group: 'git',
  kind: 'read',
  description: "Recent commits of a project's repository.",
  input: () =>
    z.object({
      project_id: projectId,
      count: optional(integer('How many commits (default 10)', { min: 1, max: 500 })),
      repo_id: optionalRepo,
    }),
  async run(args, ctx) {
    const { path, repo } = await resolveRepoPath(ctx, { projectId: args.project_id, repoId: args.repo_id });
    const [branch, lines] = await gitStep(() => settleAll([ctx.git.currentBranch(path), ctx.git.log(path, args.count ?? 10)]));
    return {
      project_id: args.project_id,
      repo_id: repo.id,
      branch: branch ?? '(detached HEAD)',
      log: lines.length ? lines.join('\n') : '(no commits)',
    };
  },
});

export const gitBranch = defineCommand({
  name: 'git_branch',
  group: 'git',
  kind: 'change',
  description: `List the branches of a project's repository (${GIT_LIST_PAGE} a page; total counts them all, next_offset asks for the next page), or create one (with name) and switch to it.`,
  input: () =>
    z.object({
      project_id: projectId,
      name: optional(requiredText('New branch name')),
      repo_id: optionalRepo,
      limit: limitField(GIT_LIST_PAGE, GIT_LIST_MAX_PAGE),
      offset: offsetField(),
    }),
  async run(args, ctx) {
    const { path } = await resolveRepoPath(ctx, { projectId: args.project_id, repoId: args.repo_id });
    if (args.name) {
      await gitStep(() => ctx.git.createBranch(path, args.name!));
      return { project_id: args.project_id, created: args.name, message: `Created branch '${args.name}' and switched to it.` };
    }
    const { current, branches } = await gitStep(() => ctx.git.listBranches(path));
    const page = sliceOf(branches, pageOf(args, GIT_LIST_PAGE));
    return { project_id: args.project_id, current_branch: current, branches: page.items, total: page.total, next_offset: page.next_offset };
  },
});

export const gitCheckout = defineCommand({
  name: 'git_checkout',
  group: 'git',
  kind: 'change',
  description: "Switch a project's repository to another branch.",
  input: () => z.object({ project_id: projectId, branch: requiredText('Branch'), repo_id: optionalRepo }),
  async run(args, ctx) {
    const { path } = await resolveRepoPath(ctx, { projectId: args.project_id, repoId: args.repo_id });
    const old = (await gitStep(() => ctx.git.currentBranch(path))) ?? '(detached HEAD)';
    await gitStep(() => ctx.git.checkout(path, args.branch));
    return {
      project_id: args.project_id,
      old_branch: old,
      new_branch: args.branch,
      message: `Switched from '${old}' to '${args.branch}'.`,
    };
  },
});

export const gitDiff = defineCommand({
  name: 'git_diff',
  group: 'git',
  kind: 'read',
  description: "Unstaged changes of a project's repository, or its difference from a base branch.",
  input: () => z.object({ project_id: projectId, base_branch: optional(requiredText('Base branch')), repo_id: optionalRepo }),
  async run(args, ctx) {
    const { path, repo } = await resolveRepoPath(ctx, { projectId: args.project_id, repoId: args.repo_id });
    const diff = await gitStep(() => ctx.git.diff(path, args.base_branch));
    return {
      project_id: args.project_id,
      repo_id: repo.id,
      base_branch: args.base_branch ?? '(working tree)',
      diff: diff.text.trim() ? diff.text : '(no changes)',
      ...(diff.cut && { diff_cut: true }),
    };
  },
});

export const gitLowLevelCommands = [
  gitCommit,
  gitPush,
  gitCreateBranch,
  gitMerge,
  gitCreatePr,
  gitChangedFiles,
  gitLog,
  gitBranch,
  gitCheckout,
  gitDiff,
];
