import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { launch } from '../../src/util/process-launcher';
import { RUN_DIR_VARIABLE } from './run-dir';

/**
 * Test helpers over real git (local paths only, no network). Every repository made
 * here gets a local user.name/user.email, since CI runs as root with no git config at all.
 */

/** Runs git in `cwd` and returns stdout (trimmed). Test repos set their own identity. */
export async function gitOut(cwd: string, ...args: string[]): Promise<string> {
  const run = await launch('git', args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
  if (run.code !== 0) {
    throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${run.startError?.message ?? run.stderr.toString().trim()}`);
  }
  return run.stdout.toString().trim();
}

const IDENTITY = { name: 'Test User', email: 'test@example.com' };

export async function commitFile(repo: string, file: string, content: string, message = `edit ${file}`): Promise<string> {
  await mkdir(path.dirname(path.join(repo, file)), { recursive: true });
  await writeFile(path.join(repo, file), content);
  await gitOut(repo, 'add', '-A');
  await gitOut(repo, 'commit', '-m', message);
  return gitOut(repo, 'rev-parse', 'HEAD');
}

/** Makes the bare repository `origin` with one commit on `branch` holding `files`, committed straight into it. */
async function buildOrigin(origin: string, branch: string, files: Record<string, string>): Promise<void> {
  const parent = path.dirname(origin);
  await gitOut(parent, 'init', '--bare', '-b', branch, origin);
  const tree = await mkdtemp(path.join(parent, 'seed-'));
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(tree, file)), { recursive: true });
    await writeFile(path.join(tree, file), content);
  }
  const git = ['--git-dir', origin, '--work-tree', tree];
  await gitOut(parent, ...git, 'add', '-A');
  await gitOut(parent, '-c', `user.name=${IDENTITY.name}`, '-c', `user.email=${IDENTITY.email}`, ...git, 'commit', '-m', 'Initial commit');
  await rm(path.join(origin, 'index'), { force: true });
  await rm(tree, { recursive: true, force: true });
}

/**
 * A bare `origin` with one commit on `defaultBranch` holding `files`. Each distinct origin is
 * built once per Jest run, in the run's folder (RUN_DIR_VARIABLE), and copied from there: tests
 * make hundreds of these, and copying a few files costs far less than the git processes.
 */
export async function createOriginRepo(
  dir: string,
  options: { defaultBranch?: string; files?: Record<string, string> } = {},
): Promise<string> {
  const branch = options.defaultBranch ?? 'main';
  const files = options.files ?? { 'README.md': '# Project\n' };
  const origin = path.join(dir, 'origin.git');
  const runDir = process.env[RUN_DIR_VARIABLE];
  if (!runDir) {
    await buildOrigin(origin, branch, files);
    return origin;
  }
  const key = createHash('sha256')
    .update(JSON.stringify([branch, files]))
    .digest('hex')
    .slice(0, 16);
  const template = path.join(runDir, 'origins', key);
  if (!existsSync(template)) {
    await mkdir(path.dirname(template), { recursive: true });
    const building = await mkdtemp(path.join(runDir, 'origin-'));
    await buildOrigin(path.join(building, 'origin.git'), branch, files);
    // Another worker may have built the same one meanwhile: then its copy stays, and this one goes.
    await rename(path.join(building, 'origin.git'), template).catch(() => undefined);
    await rm(building, { recursive: true, force: true });
  }
  await cp(template, origin, { recursive: true });
  return origin;
}

/** A clone of `origin` at `dest` with a local identity, like a workspace. */
export async function cloneWorkspace(origin: string, dest: string): Promise<string> {
  await gitOut(path.dirname(dest), 'clone', '-c', `user.name=${IDENTITY.name}`, '-c', `user.email=${IDENTITY.email}`, origin, dest);
  return dest;
}

/** Pushes a branch with one commit changing `file`, made in a scratch clone. */
export async function pushBranch(origin: string, scratch: string, branch: string, file: string, content: string): Promise<void> {
  const clone = await cloneWorkspace(origin, scratch);
  await gitOut(clone, 'checkout', '-b', branch);
  await commitFile(clone, file, content, `${branch}: ${file}`);
  await gitOut(clone, 'push', '-u', 'origin', branch);
}

/** What a checkout looks like: branch, HEAD, short status and every tracked file's content. */
export interface RepoSnapshot {
  branch: string;
  head: string;
  status: string;
  files: Record<string, string>;
}

export async function snapshot(repo: string): Promise<RepoSnapshot> {
  const files: Record<string, string> = {};
  for (const file of (await gitOut(repo, 'ls-files')).split('\n').filter(Boolean)) {
    files[file] = await readFile(path.join(repo, file), 'utf8').catch(() => '<missing>');
  }
  return {
    branch: await gitOut(repo, 'rev-parse', '--abbrev-ref', 'HEAD'),
    head: await gitOut(repo, 'rev-parse', 'HEAD'),
    status: await gitOut(repo, 'status', '--short', '--untracked-files=all'),
    files,
  };
}

/** An environment in which git sees no global or system config (no identity, like CI as root). */
export function bareGitEnv(home: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
}
