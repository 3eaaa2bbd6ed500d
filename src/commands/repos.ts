import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { RepoRecord } from '../db/repositories/repos';
import { isAdminHere } from './admin-check';
import { CommandError, defineCommand } from './catalog';
import { repoIdFromName } from './derived-ids';
import { linkTargetCheck, validatePath } from './path-validation';
import { allowedCloneSource } from './clone-source';
import { redactCredentials } from '../git/clone-url';
import { requireProject } from './projects';
import { gitStep } from './repo-path';
import { nextOffset, pageFields, pageOf, type ListPaging } from './paging';
import { optional, requiredText } from './schema';
import { settleAll } from '../util/settle-all';

const REPO_LIST: ListPaging = { key: 'repos', defaultLimit: 100, maxLimit: 500 };

function repoView(r: RepoRecord) {
  return {
    id: r.id,
    project_id: r.projectId,
    source_type: r.sourceType,
    url: r.url === null ? null : redactCredentials(r.url),
    source_path: r.sourcePath,
    default_branch: r.defaultBranch,
    checkout_base_path: r.checkoutBasePath,
  };
}

function nameFrom(url: string | undefined, sourcePath: string | undefined): string {
  if (url)
    return url
      .replace(/\/+$/, '')
      .split(/[/:]/)
      .pop()!
      .replace(/\.git$/, '');
  if (sourcePath) return path.basename(path.resolve(sourcePath));
  return '';
}

export const addRepo = defineCommand({
  name: 'add_repo',
  group: 'repos',
  kind: 'change',
  description:
    'Add a repository to a project: clone it from a URL, link an existing folder, or init a new one. Linking a folder outside the workspace directory is for admins.',
  input: () =>
    z.object({
      project_id: requiredText('Project id'),
      source: z.enum(['clone', 'link', 'init']).describe('clone (from url), link (an existing folder) or init (a new repository)'),
      url: optional(requiredText('Repository URL (for clone)')),
      path: optional(requiredText('Existing folder (for link)')),
      default_branch: optional(requiredText('Default branch (default main)')),
      name: optional(requiredText('Repo name; derived from the URL or folder when absent')),
    }),
  async run(args, ctx) {
    const project = await requireProject(ctx, args.project_id);
    if (args.source === 'clone' && !args.url) throw new CommandError('A url is required to clone a repository.');
    if (args.source === 'link' && !args.path) throw new CommandError('A path is required to link a repository.');
    let sourcePath: string | null = null;
    // Checked first: nothing (not even the name) is read from a URL nobody may clone.
    const url = args.source === 'clone' && args.url ? await allowedCloneSource(ctx, args.url) : undefined;
    if (args.source === 'link') {
      // Linking makes the folder readable by file commands: the one guard is linkTargetCheck.
      sourcePath = await linkTargetCheck(ctx.config, args.path!, isAdminHere(ctx));
      const info = await stat(sourcePath).catch(() => null);
      if (!info) throw new CommandError(`Path not found: ${args.path}`);
      if (!info.isDirectory()) throw new CommandError(`Not a directory: ${args.path}`);
    }
    const name = args.name ?? (nameFrom(url ?? args.url, args.path) || (args.source === 'init' ? project.id : ''));
    const id = repoIdFromName(name);
    if (await ctx.db.repos.get(id)) throw new CommandError(`Repo '${id}' already exists. Pass another name.`);
    const defaultBranch = args.default_branch ?? 'main';
    let checkoutBasePath = project.workspace;
    if (args.source === 'clone') {
      checkoutBasePath = await validatePath(ctx, path.join(project.workspace, id));
      await gitStep(() => ctx.git.clone(url!, checkoutBasePath));
    } else if (args.source === 'init') {
      checkoutBasePath = await validatePath(ctx, path.join(project.workspace, id));
      await mkdir(checkoutBasePath, { recursive: true });
      await gitStep(() => ctx.git.init(checkoutBasePath, defaultBranch));
    }
    const repo = await ctx.db.repos.create({
      id,
      projectId: project.id,
      name,
      sourceType: args.source,
      url: url ?? args.url ?? null,
      sourcePath,
      defaultBranch,
      checkoutBasePath,
    });
    return { created: repo.id, name: repo.name, source_type: repo.sourceType, checkout_base_path: repo.checkoutBasePath };
  },
});

export const listRepos = defineCommand({
  name: 'list_repos',
  group: 'repos',
  kind: 'read',
  description: `List repositories, optionally of one project, oldest first, ${REPO_LIST.defaultLimit} a page; total counts them all and next_offset asks for the next page.`,
  input: () => z.object({ project_id: optional(requiredText('Only this project')), ...pageFields(REPO_LIST) }),
  list: REPO_LIST,
  async run({ project_id, ...paging }, ctx) {
    if (project_id) await requireProject(ctx, project_id);
    const page = pageOf(paging, REPO_LIST.defaultLimit);
    const [repos, total] = await settleAll([ctx.db.repos.list(project_id, page), ctx.db.repos.count(project_id)]);
    return { repos: repos.map(repoView), total, next_offset: nextOffset(page, repos.length, total) };
  },
});

export const repoCommands = [addRepo, listRepos];
