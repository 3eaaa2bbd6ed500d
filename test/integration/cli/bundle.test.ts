import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { MIGRATIONS } from '../../../src/db/migrations';
import { shippedMigrationNames } from '../../../src/db/orm';
import { runAqInProcess } from '../../support/aq-in-process';
import type { AqAnswer } from '../../support/aq-process';
import { cleanupsAfterEach } from '../../support/tmp';
import { AQ_SESSION, AQ_SESSION_ANSWERS, appliedMigrations, comparableAnswers } from '../../support/aq-session';
import { databaseBefore } from '../../support/older-database';

const execFileAsync = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..', '..');
const AQ = path.join(ROOT, 'bin', 'aq.js');
const BUNDLE = path.join(ROOT, 'dist', 'aq-cli.js');

/** The real `aq` as its own process: the bundle, or with AQ_NO_BUNDLE the modules tsc built. */
function aq(home: string, args: string[], options: { bundled: boolean; stdin?: string; cwd?: string }): Promise<AqAnswer> {
  return new Promise((resolve, reject) => {
    const env = { PATH: process.env.PATH, AQ_HOME: home, ...(options.bundled ? {} : { AQ_NO_BUNDLE: '1' }) };
    const child = spawn(process.execPath, [AQ, ...args], { env, cwd: options.cwd ?? ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

/** Which files a bin run loaded, as the process itself reports at exit. */
async function loadedFiles(home: string, cwd: string): Promise<string[]> {
  const script = `process.argv = [process.argv[0], ${JSON.stringify(AQ)}, 'exec', 'get_status'];
    process.stdout.write = () => true;
    process.on('exit', () => process.stderr.write(JSON.stringify(Object.keys(require.cache))));
    require(${JSON.stringify(AQ)});`;
  const { stderr } = await execFileAsync(process.execPath, ['-e', script], { env: { PATH: process.env.PATH, AQ_HOME: home }, cwd });
  return JSON.parse(stderr) as string[];
}

describe('the aq bundle', () => {
  const cleanups = cleanupsAfterEach();
  const home = () => cleanups.tempDir('aq-bundle-');

  it('is what the bin runs after a build, and it loads no package code but the SQLite driver', async () => {
    expect(existsSync(BUNDLE)).toBe(true);
    const dir = await home();
    await aq(dir, ['exec', 'get_status'], { bundled: true });
    const files = await loadedFiles(dir, ROOT);
    expect(files).toContain(BUNDLE);
    expect(files).not.toContain(path.join(ROOT, 'dist', 'src', 'cli.js'));
    // Code only: MikroORM reads the package.json of every @mikro-orm package it knows.
    const code = files.filter((f) => !f.endsWith('.json'));
    const packages = new Set(code.flatMap((f) => f.split(/node_modules[\\/]/)[1]?.split(/[\\/]/)[0] ?? []));
    expect([...packages].sort()).toEqual(['bindings', 'file-uri-to-path', 'sqlite3']);
  });

  it('holds one copy of zod, though our modules require it and the ACP SDK imports it', async () => {
    const code = await readFile(BUNDLE, 'latin1');
    expect(code.match(/\$constructor\("\$ZodType",/g)).toHaveLength(1);
  });

  it('gives the same answers as its TypeScript sources, on a new database and on the same one again', async () => {
    const homes = [await home(), await home()];
    const [sameA, sameB] = homes.map(comparableAnswers);
    for (const round of ['first run: creates and migrates the database', 'second run: finds it current']) {
      const [bundled, sources] = await Promise.all([
        aq(homes[0], ['exec', '-'], { bundled: true, stdin: AQ_SESSION }),
        runAqInProcess(homes[1], ['exec', '-'], { stdin: AQ_SESSION }),
      ]);
      expect({ round, ...sameA(bundled) }).toEqual({ round, ...sameB(sources) });
      expect(bundled.code).toBe(1);
      expect(bundled.stdout.trim().split('\n')).toHaveLength(AQ_SESSION_ANSWERS);
    }
    const oneCommand = async (args: string[]) => {
      const [bundled, sources] = await Promise.all([aq(homes[0], args, { bundled: true }), runAqInProcess(homes[1], args)]);
      expect(sameA(bundled)).toEqual(sameB(sources));
      return bundled;
    };
    expect((await oneCommand(['exec', 'list_tasks', '{"status": "READY"}'])).code).toBe(0);
    expect((await oneCommand(['exec', 'get_task', '{"task_id": "nope"}'])).code).toBe(1);
    expect((await oneCommand(['exec', 'list_tasks', '{bad json'])).code).toBe(2);
    expect((await oneCommand(['help'])).stdout).toContain('get_status');
    expect((await oneCommand(['help', 'create_task'])).stdout).toContain('title');
    expect((await oneCommand(['--help'])).stdout).toContain('AQ_HOME');
    expect((await oneCommand(['help', 'no_such_command'])).code).toBe(1);
    expect((await oneCommand(['nonsense'])).code).toBe(1);
  }, 120_000);

  it('migrates a database whose schema is behind before it runs the command', async () => {
    const dir = await home();
    const databasePath = path.join(dir, 'agent-queue.db');
    // A database as an older release left it: only the first migration applied.
    await databaseBefore(databasePath, MIGRATIONS[1].name, async () => undefined);

    const run = await aq(dir, ['exec', 'create_project', '{"name": "After upgrade"}'], { bundled: true });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toMatchObject({ created: 'after-upgrade' });

    expect(await appliedMigrations(databasePath)).toEqual(await shippedMigrationNames());
  });

  it('the bin runs the bundle only while it is newer than the TypeScript build and the npm install', async () => {
    const root = await home();
    const stub = (which: string) => `exports.runAsProcess = () => { process.stdout.write(${JSON.stringify(which)}); };`;
    await mkdir(path.join(root, 'bin'));
    await mkdir(path.join(root, 'dist', 'src'), { recursive: true });
    await mkdir(path.join(root, 'node_modules'));
    await copyFile(AQ, path.join(root, 'bin', 'aq.js'));
    await writeFile(path.join(root, 'dist', 'src', 'cli.js'), stub('unbundled'));
    await writeFile(path.join(root, 'dist', 'aq-cli.js'), stub('bundled'));
    const at = (file: string, secondsAgo: number) => {
      const time = new Date(Date.now() - secondsAgo * 1000);
      return utimes(path.join(root, file), time, time);
    };
    const ran = async (env: NodeJS.ProcessEnv = {}) =>
      (await execFileAsync(process.execPath, [path.join(root, 'bin', 'aq.js')], { env: { PATH: process.env.PATH, ...env } })).stdout;

    await writeFile(path.join(root, 'dist', '.build-stamp'), '');
    await writeFile(path.join(root, 'node_modules', '.package-lock.json'), '');
    await at('dist/.build-stamp', 30);
    await at('node_modules/.package-lock.json', 30);
    await at('dist/aq-cli.js', 20);
    expect(await ran()).toBe('bundled');
    expect(await ran({ AQ_NO_BUNDLE: '1' })).toBe('unbundled');
    await at('dist/.build-stamp', 10); // built again; nothing bundled since
    expect(await ran()).toBe('unbundled');
    await at('dist/aq-cli.js', 5);
    expect(await ran()).toBe('bundled');
    await at('node_modules/.package-lock.json', 1); // npm changed node_modules
    expect(await ran()).toBe('unbundled');
    await rm(path.join(root, 'dist', 'aq-cli.js'));
    expect(await ran()).toBe('unbundled');
  });

  it('creates its database from any current directory, bundled or not', async () => {
    const elsewhere = await home();
    for (const bundled of [true, false]) {
      const dir = await home();
      const run = await aq(dir, ['exec', 'list_projects'], { bundled, cwd: elsewhere });
      expect({ bundled, ...run }).toEqual({ bundled, code: 0, stdout: '{"projects":[],"total":0,"next_offset":null}\n', stderr: '' });
    }
  });
});
