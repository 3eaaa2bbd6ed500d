import { execFile } from 'node:child_process';
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const IDENTITY = ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com'];

/** Runs git in `cwd` and returns its output, trimmed. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await run('git', [...IDENTITY, ...args], { cwd })).stdout.trim();
}

/** A bare origin at `<dir>/origin.git` whose main holds `files`. */
export async function makeOrigin(dir: string, files: Record<string, string>): Promise<string> {
  const origin = path.join(dir, 'origin.git');
  const seed = path.join(dir, 'seed');
  await mkdir(seed, { recursive: true });
  await git(dir, 'init', '-q', '--bare', '-b', 'main', origin);
  await git(seed, 'init', '-q', '-b', 'main');
  for (const [file, text] of Object.entries(files)) await writeIn(seed, file, text);
  await git(seed, 'add', '-A');
  await git(seed, 'commit', '-q', '-m', 'seed');
  await git(seed, 'push', '-q', origin, 'main');
  return origin;
}

/** A workspace: a clone of `origin` on a new branch `branch` (with the identity commits use). */
export async function cloneOnBranch(origin: string, dest: string, branch: string): Promise<string> {
  await git(path.dirname(dest), 'clone', '-q', origin, dest);
  await git(dest, 'config', 'user.name', 'Bench');
  await git(dest, 'config', 'user.email', 'bench@example.com');
  await git(dest, 'checkout', '-q', '-b', branch);
  return dest;
}

export async function writeIn(repo: string, file: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(repo, file)), { recursive: true });
  await writeFile(path.join(repo, file), text);
}

/** Commits every change in `repo` with `message`. */
export async function commitAll(repo: string, message: string): Promise<void> {
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-q', '-m', message);
}
