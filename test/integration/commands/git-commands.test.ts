import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cloneWorkspace, commitFile, createOriginRepo, gitOut, pushBranch } from '../../support/git-fixtures';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { putTask } from '../../support/task-fixtures';

describe('repo, git and workspace commands on real repositories', () => {
  let rt: TestRuntime;
  let origin: string;
  let checkout: string;

  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
    origin = await createOriginRepo(rt.home, { files: { 'app.txt': 'one\ntwo\n' } });
    checkout = await cloneWorkspace(origin, path.join(rt.home, 'checkout'));
  });
  afterEach(() => rt.cleanup());

  const link = () => rt.exec('add_repo', { project_id: 'alpha', source: 'link', path: checkout });

  it('adds repos by link, clone and init, and lists them', async () => {
    expect(await link()).toEqual({
      created: 'checkout',
      name: 'checkout',
      source_type: 'link',
      checkout_base_path: path.join(rt.config.workspaceDir, 'alpha'),
    });
    const cloned = await rt.exec('add_repo', { project_id: 'alpha', source: 'clone', url: origin, name: 'Service' });
    expect(cloned).toEqual({
      created: 'service',
      name: 'Service',
      source_type: 'clone',
      checkout_base_path: path.join(rt.config.workspaceDir, 'alpha', 'service'),
    });
    expect(await readFile(path.join(cloned.checkout_base_path as string, 'app.txt'), 'utf8')).toBe('one\ntwo\n');
    const init = await rt.exec('add_repo', { project_id: 'alpha', source: 'init', name: 'fresh' });
    expect(await gitOut(init.checkout_base_path as string, 'log', '--format=%s')).toBe('Initial commit');
    expect(((await rt.exec('list_repos', { project_id: 'alpha' })).repos as unknown[]).length).toBe(3);
    expect((await rt.exec('list_repos')).repos).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 'checkout', source_path: checkout, default_branch: 'main' })]),
    );
  });

  it('reports add_repo input errors', async () => {
    expect(await rt.exec('add_repo', { project_id: 'ghost', source: 'init' })).toEqual({ error: "Project 'ghost' not found." });
    expect(await rt.exec('add_repo', { project_id: 'alpha', source: 'clone' })).toEqual({
      error: 'A url is required to clone a repository.',
    });
    expect(await rt.exec('add_repo', { project_id: 'alpha', source: 'link' })).toEqual({
      error: 'A path is required to link a repository.',
    });
    expect(await rt.exec('add_repo', { project_id: 'alpha', source: 'link', path: '/no/such/dir' })).toEqual({
      error: 'Path not found: /no/such/dir',
    });
    expect(await rt.exec('add_repo', { project_id: 'alpha', source: 'svn' })).toEqual({
      error: expect.stringMatching(/^Field 'source' must be one of clone, link, init/),
    });
    expect(await rt.exec('add_repo', { project_id: 'alpha', source: 'clone', url: path.join(rt.home, 'nope.git') })).toEqual({
      error: expect.stringMatching(/^Could not clone/),
    });
  });

  it('runs the high-level git commands with warnings while tasks run', async () => {
    expect(await rt.exec('create_branch', { project_id: 'alpha', branch_name: 'x' })).toEqual({
      error: expect.stringContaining('/aq add_workspace'),
    });
    await link();
    expect(await rt.exec('create_branch', { project_id: 'alpha', branch_name: 'feature' })).toEqual({
      project_id: 'alpha',
      repo_id: 'checkout',
      branch: 'feature',
      status: 'created',
    });
    expect(await rt.exec('create_branch', { project_id: 'alpha', branch_name: 'feature' })).toEqual({
      error: "Branch 'feature' already exists.",
    });
    expect(await rt.exec('commit_changes', { project_id: 'alpha', message: 'm' })).toEqual({
      project_id: 'alpha',
      repo_id: 'checkout',
      status: 'nothing_to_commit',
      message: 'No changes to commit',
    });
    await writeFile(path.join(checkout, 'f.txt'), 'f\n');
    const t = (await rt.exec('create_task', { project_id: 'alpha', title: 't', description: 'd' })).created as string;
    await putTask(rt.db, t, 'IN_PROGRESS');
    expect(await rt.exec('commit_changes', { project_id: 'alpha', message: 'add f' })).toEqual({
      project_id: 'alpha',
      repo_id: 'checkout',
      commit_message: 'add f',
      status: 'committed',
      warning: '⚠️ 1 task(s) currently IN_PROGRESS for this project — this operation may disrupt running agent(s).',
    });
    expect(await rt.exec('push_branch', { project_id: 'alpha' })).toEqual({
      project_id: 'alpha',
      repo_id: 'checkout',
      branch: 'feature',
      status: 'pushed',
    });
    expect(await gitOut(origin, 'log', '--format=%s', 'feature')).toContain('add f');
    const merged = await rt.exec('merge_branch', { project_id: 'alpha', branch_name: 'feature' });
    expect(merged).toMatchObject({
      project_id: 'alpha',
      repo_id: 'checkout',
      branch: 'feature',
      target: 'main',
      status: 'merged',
      warning: expect.stringContaining('IN_PROGRESS'),
    });
    expect(await rt.exec('checkout_branch', { project_id: 'alpha', branch_name: 'nope' })).toEqual({ error: "Branch 'nope' not found." });
    expect(await rt.exec('commit_changes', { project_id: 'alpha' })).toEqual({ error: "Missing required field 'message'." });
  });

  it('aborts a conflicting merge_branch and reports it as a status', async () => {
    await link();
    await gitOut(checkout, 'checkout', '-b', 'left');
    await commitFile(checkout, 'app.txt', 'one\nLEFT\n');
    await gitOut(checkout, 'checkout', 'main');
    await commitFile(checkout, 'app.txt', 'one\nMAIN\n');
    const head = await gitOut(checkout, 'rev-parse', 'HEAD');
    expect(await rt.exec('merge_branch', { project_id: 'alpha', branch_name: 'left' })).toEqual({
      project_id: 'alpha',
      repo_id: 'checkout',
      branch: 'left',
      target: 'main',
      status: 'conflict',
      message: 'Merge conflict — merge was aborted',
      conflicting_files: ['app.txt'],
    });
    expect(await gitOut(checkout, 'rev-parse', 'HEAD')).toBe(head);
    expect(await gitOut(checkout, 'status', '--porcelain')).toBe('');
    expect(await rt.exec('git_merge', { repo_id: 'checkout', branch_name: 'left' })).toMatchObject({
      repo_id: 'checkout',
      merged: false,
      into: 'main',
    });
  });

  it('runs the low-level git commands', async () => {
    await link();
    expect(await rt.exec('git_create_branch', { repo_id: 'checkout', branch_name: 'low' })).toEqual({
      repo_id: 'checkout',
      created_branch: 'low',
    });
    await writeFile(path.join(checkout, 'low.txt'), 'low\n');
    expect(await rt.exec('git_changed_files', { repo_id: 'checkout' })).toEqual({
      repo_id: 'checkout',
      base_branch: 'main',
      files: ['low.txt'],
      count: 1,
      next_offset: null,
    });
    expect(await rt.exec('git_diff', { project_id: 'alpha' })).toEqual({
      project_id: 'alpha',
      repo_id: 'checkout',
      base_branch: '(working tree)',
      diff: '(no changes)',
    });
    expect(await rt.exec('git_commit', { repo_id: 'checkout', message: 'low' })).toEqual({
      repo_id: 'checkout',
      committed: true,
      commit_message: 'low',
    });
    expect(await rt.exec('git_commit', { repo_id: 'checkout', message: 'again' })).toEqual({
      repo_id: 'checkout',
      committed: false,
      message: 'Nothing to commit — working tree clean',
    });
    expect((await rt.exec('git_diff', { project_id: 'alpha', base_branch: 'main' })).diff).toContain('+low');
    expect(await rt.exec('git_push', { repo_id: 'checkout' })).toEqual({ repo_id: 'checkout', pushed: 'low' });
    expect(await rt.exec('git_log', { project_id: 'alpha', count: 1 })).toEqual({
      project_id: 'alpha',
      repo_id: 'checkout',
      branch: 'low',
      log: expect.stringMatching(/^[0-9a-f]+ low$/),
    });
    expect(await rt.exec('git_branch', { project_id: 'alpha' })).toEqual({
      project_id: 'alpha',
      current_branch: 'low',
      branches: ['low', 'main'],
      total: 2,
      next_offset: null,
    });
    expect(await rt.exec('git_branch', { project_id: 'alpha', limit: 1, offset: 1 })).toMatchObject({
      branches: ['main'],
      total: 2,
      next_offset: null,
    });
    expect(await rt.exec('git_branch', { project_id: 'alpha', name: 'next' })).toEqual({
      project_id: 'alpha',
      created: 'next',
      message: "Created branch 'next' and switched to it.",
    });
    expect(await rt.exec('git_checkout', { project_id: 'alpha', branch: 'main' })).toEqual({
      project_id: 'alpha',
      old_branch: 'next',
      new_branch: 'main',
      message: "Switched from 'next' to 'main'.",
    });
    expect(await rt.exec('git_merge', { repo_id: 'checkout', branch_name: 'low' })).toEqual({
      repo_id: 'checkout',
      merged: true,
      branch: 'low',
      into: 'main',
    });
    expect(await rt.exec('git_create_pr', { repo_id: 'checkout', title: 'x' })).toEqual({
      error: expect.stringContaining('GitHub CLI (gh) is not installed'),
    });
    expect(await rt.exec('git_commit', { repo_id: 'ghost', message: 'x' })).toEqual({ error: "Repo 'ghost' not found." });
    expect(await rt.exec('git_create_branch', { repo_id: 'checkout', branch_name: '--upload-pack=x' })).toEqual({
      error: expect.stringMatching(/^Invalid branch name/),
    });
  });

  it('reports git status per repo with failures embedded, and task diffs', async () => {
    expect(await rt.exec('get_git_status', { project_id: 'alpha' })).toEqual({ error: expect.stringContaining('Not a git repository') });
    await link();
    await rt.db.repos.create({
      id: 'gone',
      projectId: 'alpha',
      name: 'gone',
      sourceType: 'link',
      url: null,
      sourcePath: path.join(rt.home, 'gone'),
      defaultBranch: 'main',
      checkoutBasePath: null,
    });
    await writeFile(path.join(checkout, 'dirty.txt'), 'x');
    expect(await rt.exec('get_git_status', { project_id: 'alpha' })).toEqual({
      project_id: 'alpha',
      project_name: 'alpha',
      repos: [
        {
          repo_id: 'checkout',
          path: checkout,
          branch: 'main',
          status: '?? dirty.txt',
          recent_commits: [expect.stringMatching(/Initial commit$/)],
        },
        { repo_id: 'gone', error: `Directory not found: ${path.join(rt.home, 'gone')}` },
      ],
    });
    const t = (await rt.exec('create_task', { project_id: 'alpha', title: 't', description: 'd', repo_id: 'checkout' })).created as string;
    expect(await rt.exec('get_task_diff', { task_id: t })).toEqual({ error: expect.stringContaining('has no branch') });
    await gitOut(checkout, 'checkout', '-b', `${t}/work`);
    await commitFile(checkout, 'work.txt', 'work\n');
    await rt.db.tasks.update(t, { branchName: `${t}/work` });
    const diff = await rt.exec('get_task_diff', { task_id: t });
    expect(diff).toEqual({ diff: expect.stringContaining('+work'), branch: `${t}/work`, base: 'main' });
    // Byte for byte what git prints for the branch against its base.
    expect(diff.diff).toBe(`${await gitOut(checkout, 'diff', '--no-ext-diff', `main...${t}/work`, '--')}\n`);
    // The summary's numbers are git's own (--numstat).
    const numstat = (await gitOut(checkout, 'diff', '--numstat', `main...${t}/work`, '--')).split('\n').map((l) => l.split('\t'));
    expect(await rt.exec('get_task_diff', { task_id: t, summary: true })).toEqual({
      branch: `${t}/work`,
      base: 'main',
      files_changed: numstat.length,
      insertions: numstat.reduce((n, [added]) => n + Number(added), 0),
      deletions: numstat.reduce((n, [, removed]) => n + Number(removed), 0),
      files: numstat.map(([added, removed, file]) => ({ path: file, added: Number(added), removed: Number(removed) })),
    });
    expect(numstat.map(([, , file]) => file)).toContain('work.txt');
    const plain = (await rt.exec('create_task', { project_id: 'alpha', title: 'p', description: 'd' })).created;
    expect(await rt.exec('get_task_diff', { task_id: plain })).toEqual({ error: expect.stringContaining('no associated repository') });
  });

  it('adds, lists, releases and removes workspaces', async () => {
    await rt.exec('add_repo', { project_id: 'alpha', source: 'clone', url: origin, name: 'svc' });
    const added = await rt.exec('add_workspace', { project_id: 'alpha' });
    expect(added).toEqual({
      created: 'alpha-ws-1',
      name: 'ws-1',
      path: path.join(rt.config.workspaceDir, 'alpha', 'workspaces', 'ws-1'),
      source_type: 'clone',
      repo_id: 'svc',
    });
    const linked = await rt.exec('add_workspace', { project_id: 'alpha', name: 'mine', path: checkout });
    expect(linked).toMatchObject({ created: 'alpha-mine', source_type: 'link', path: checkout });
    expect(await rt.exec('add_workspace', { project_id: 'alpha', name: 'mine', path: checkout })).toEqual({
      error: expect.stringContaining('already exists'),
    });
    await mkdir(path.join(rt.home, 'stranger'));
    const stranger = await createOriginRepo(path.join(rt.home, 'stranger'));
    const other = await cloneWorkspace(stranger, path.join(rt.home, 'other-checkout'));
    expect((await rt.exec('add_workspace', { project_id: 'alpha', name: 'odd', path: other })).warning).toContain('wrong repository');
    await rt.db.workspaces.acquire('alpha-ws-1', 'task-1', 'agent-1');
    expect((await rt.exec('list_workspaces', { project_id: 'alpha' })).workspaces).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 'alpha-ws-1', locked_by_task_id: 'task-1', locked_by_agent_id: 'agent-1' })]),
    );
    expect(await rt.exec('remove_workspace', { workspace_id: 'alpha-ws-1' })).toEqual({ error: expect.stringContaining('locked by task') });
    expect(await rt.exec('release_workspace', { workspace_id: 'alpha-ws-1' })).toEqual({
      workspace_id: 'alpha-ws-1',
      released: true,
      previous_task_id: 'task-1',
    });
    expect(await rt.exec('remove_workspace', { workspace_id: 'alpha-mine', delete_files: true })).toEqual({
      error: expect.stringContaining('linked folders are left alone'),
    });
    expect(await rt.exec('remove_workspace', { workspace_id: 'alpha-ws-1', delete_files: true })).toEqual({
      removed: 'alpha-ws-1',
      name: 'ws-1',
      path: added.path,
      files_deleted: true,
    });
    expect(await rt.exec('release_workspace', { workspace_id: 'ghost' })).toEqual({
      error: expect.stringContaining("Workspace 'ghost' not found"),
    });
  });

  it('finds conflicting branches across workspaces and syncs them, skipping locked ones', async () => {
    rt.handler.activeProjectId = 'alpha';
    expect(await rt.exec('find_merge_conflict_workspaces')).toEqual({ error: expect.stringContaining('no workspaces') });
    await rt.exec('add_workspace', { project_id: 'alpha', name: 'mine', path: checkout });
    const second = await cloneWorkspace(origin, path.join(rt.home, 'second'));
    await rt.exec('add_workspace', { project_id: 'alpha', name: 'second', path: second });
    await pushBranch(origin, path.join(rt.home, 'scratch'), 'feature/clash', 'app.txt', 'one\nCLASH\n');
    const other = await cloneWorkspace(origin, path.join(rt.home, 'other'));
    await commitFile(other, 'app.txt', 'one\nMAIN\n');
    await gitOut(other, 'push', 'origin', 'main');

    const scan = (await rt.exec('find_merge_conflict_workspaces')) as Record<string, unknown> & {
      conflicts: Array<Record<string, unknown>>;
    };
    expect(scan).toMatchObject({ project_id: 'alpha', workspaces_scanned: 2, workspaces_with_conflicts: 2 });
    expect(scan.conflicts[0]).toEqual({
      workspace_id: 'alpha-mine',
      workspace_name: 'mine',
      workspace_path: checkout,
      current_branch: 'main',
      locked_by_task_id: null,
      locked_by_agent_id: null,
      has_working_tree_conflict: false,
      branch_conflicts: [{ branch: 'feature/clash', task_id: null, conflicting_files: ['app.txt'], commits_behind_main: '1' }],
    });

    await rt.db.workspaces.acquire('alpha-second', 'task-9', null);
    await mkdir(path.join(checkout, 'sub'));
    await writeFile(path.join(checkout, 'sub', 'local.txt'), 'local');
    const sync = (await rt.exec('sync_workspaces')) as Record<string, unknown> & { workspaces: Array<Record<string, unknown>> };
    expect(sync).toMatchObject({ project_id: 'alpha', default_branch: 'main', total_workspaces: 2, synced: 1, skipped: 1, errors: 0 });
    expect(sync.workspaces.map((w) => w.status)).toEqual(['synced', 'skipped']);
    expect(await readFile(path.join(checkout, 'app.txt'), 'utf8')).toBe('one\nMAIN\n');
    const all = (await rt.exec('sync_workspaces', { skip_locked: false })) as { synced: number };
    expect(all.synced).toBe(2);
  });
});
