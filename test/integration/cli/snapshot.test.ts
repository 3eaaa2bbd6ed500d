import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { copyFile, mkdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { MIGRATIONS } from '../../../src/db/migrations';
import { shippedMigrationNames } from '../../../src/db/orm';
import { cleanupsAfterEach } from '../../support/tmp';
import { AQ_SESSION, AQ_SESSION_ANSWERS, appliedMigrations, comparableAnswers } from '../../support/aq-session';
import { databaseBefore } from '../../support/older-database';
import { runAqInProcess } from '../../support/aq-in-process';
import { AQ, type AqRun, runAq, snapshotOf } from '../../support/aq-process';

const execFileAsync = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..', '..');
const BLOB = path.join(ROOT, 'dist', 'aq.blob');

type Run = AqRun;

/** The real `aq` as its own process, through bin/aq; `fallback` makes it run bin/aq.js unbundled. */
const aq = (dir: string, args: string[], options: { fallback?: boolean; stdin?: string; cwd?: string } = {}) =>
  runAq(dir, args, { ...options, cwd: options.cwd ?? ROOT });

const fromSnapshot = (run: Run) => snapshotOf(run) !== null;

describe('aq started from its startup snapshot', () => {
  const cleanups = cleanupsAfterEach();
  const tempDir = () => cleanups.tempDir('aq-snapshot-');

  it('is how the installed aq starts after a build, and falls back to bin/aq.js when asked', async () => {
    expect(existsSync(BLOB)).toBe(true);
    const dir = await tempDir();
    expect(fromSnapshot(await aq(dir, ['exec', 'get_status']))).toBe(true);
    expect(fromSnapshot(await aq(dir, ['exec', 'get_status'], { fallback: true }))).toBe(false);
  });

  it('gives the same answers as its TypeScript sources, on a new database and on the same one again', async () => {
    const homes = [await tempDir(), await tempDir()];
    const [sameA, sameB] = homes.map(comparableAnswers);
    for (const round of ['first run: creates and migrates the database', 'second run: finds it current']) {
      const [snapshot, sources] = await Promise.all([
        aq(homes[0], ['exec', '-'], { stdin: AQ_SESSION }),
        runAqInProcess(homes[1], ['exec', '-'], { stdin: AQ_SESSION }),
      ]);
      expect(fromSnapshot(snapshot)).toBe(true);
      expect({ round, ...sameA(snapshot) }).toEqual({ round, ...sameB(sources) });
      expect(snapshot.code).toBe(1);
      expect(snapshot.stdout.trim().split('\n')).toHaveLength(AQ_SESSION_ANSWERS);
    }
    const oneCommand = async (args: string[]) => {
      const [snapshot, sources] = await Promise.all([aq(homes[0], args), runAqInProcess(homes[1], args)]);
      expect(fromSnapshot(snapshot)).toBe(true);
      expect(sameA(snapshot)).toEqual(sameB(sources));
      return snapshot;
    };
    expect((await oneCommand(['exec', 'get_status'])).code).toBe(0);
    expect((await oneCommand(['exec', 'list_tasks', '{"status": "READY"}'])).code).toBe(0);
    expect((await oneCommand(['exec', 'get_task', '{"task_id": "nope"}'])).code).toBe(1);
    expect((await oneCommand(['exec', 'list_tasks', '{bad json'])).code).toBe(2);
    expect((await oneCommand(['help'])).stdout).toContain('get_status');
    expect((await oneCommand(['help', 'create_task'])).stdout).toContain('title');
    // Node's own options must not take these: bin/aq passes them after `--`.
    expect((await oneCommand(['--help'])).stdout).toContain('AQ_HOME');
    expect((await oneCommand(['--version'])).code).toBe(1);
    expect((await oneCommand(['help', 'no_such_command'])).code).toBe(1);
    expect((await oneCommand(['nonsense'])).code).toBe(1);
  }, 120_000);

  it('migrates a database whose schema is behind before it runs the command', async () => {
    const dir = await tempDir();
    const databasePath = path.join(dir, 'agent-queue.db');
    await databaseBefore(databasePath, MIGRATIONS[1].name, async () => undefined);

    const run = await aq(dir, ['exec', 'create_project', '{"name": "After upgrade"}'], { cwd: await tempDir() });
    expect(fromSnapshot(run)).toBe(true);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toMatchObject({ created: 'after-upgrade' });

    expect(await appliedMigrations(databasePath)).toEqual(await shippedMigrationNames());
  });

  it('bin/aq uses a snapshot only when this Node built it, here, after the last build and install', async () => {
    const root = realpathSync(await tempDir());
    await mkdir(path.join(root, 'bin'));
    await mkdir(path.join(root, 'dist'));
    await mkdir(path.join(root, 'node_modules', '.bin'), { recursive: true });
    await copyFile(AQ, path.join(root, 'bin', 'aq'));
    await writeFile(path.join(root, 'bin', 'aq.js'), "process.stdout.write('fallback ' + process.argv.slice(2).join(' '));");
    // A real snapshot, of a stub that answers with its arguments.
    const entry = path.join(root, 'entry.js');
    await writeFile(
      entry,
      "require('v8').startupSnapshot.setDeserializeMainFunction(() => process.stdout.write('snapshot ' + process.argv.slice(1).join(' ')));",
    );
    await execFileAsync(process.execPath, ['--snapshot-blob', path.join(root, 'dist', 'aq.blob'), '--build-snapshot', entry], {
      cwd: root,
    });
    await symlink(path.join('..', '..', 'bin', 'aq'), path.join(root, 'node_modules', '.bin', 'aq')); // relative, as npm makes it
    for (const file of ['dist/.build-stamp', 'dist/aq-cli.js', 'node_modules/.package-lock.json'])
      await writeFile(path.join(root, file), '');
    const stamp = (node: string, builtIn: string) => writeFile(path.join(root, 'dist', 'aq.blob.stamp'), `${node}\n${builtIn}\n`);
    const at = (file: string, secondsAgo: number) => {
      const time = new Date(Date.now() - secondsAgo * 1000);
      return utimes(path.join(root, file), time, time);
    };
    const fresh = async () => {
      await stamp(process.execPath, root);
      for (const file of ['dist/.build-stamp', 'dist/aq-cli.js', 'node_modules/.package-lock.json']) await at(file, 30);
      await at('dist/aq.blob.stamp', 10);
    };
    // Through the symlink npm makes, with arguments Node would otherwise take as its own.
    const ran = async (env: NodeJS.ProcessEnv = {}) =>
      (
        await execFileAsync(path.join(root, 'node_modules', '.bin', 'aq'), ['--help', 'x y'], {
          env: { PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, ...env },
        })
      ).stdout;

    await fresh();
    expect(await ran()).toBe('snapshot --help x y');
    expect(await ran({ AQ_NO_SNAPSHOT: '1' })).toBe('fallback --help x y');
    expect(await ran({ AQ_NO_BUNDLE: '1' })).toBe('fallback --help x y');
    // A V8 option would make Node refuse the snapshot (exit 14); a preload does not.
    await writeFile(path.join(root, 'preload.js'), '');
    expect(await ran({ NODE_OPTIONS: `--require ${path.join(root, 'preload.js')}` })).toBe('snapshot --help x y');
    expect(await ran({ NODE_OPTIONS: '--max-old-space-size=300' })).toBe('fallback --help x y');
    for (const newer of ['dist/.build-stamp', 'dist/aq-cli.js', 'node_modules/.package-lock.json']) {
      await fresh();
      await at(newer, 1); // rebuilt, bundled or installed since the snapshot
      expect({ newer, ran: await ran() }).toEqual({ newer, ran: 'fallback --help x y' });
    }
    await fresh();
    await stamp('/usr/local/lib/another/node', root);
    await at('dist/aq.blob.stamp', 10);
    expect(await ran()).toBe('fallback --help x y');
    await fresh();
    await stamp(process.execPath, '/another/checkout');
    await at('dist/aq.blob.stamp', 10);
    expect(await ran()).toBe('fallback --help x y');
    await fresh();
    await rm(path.join(root, 'dist', 'aq.blob.stamp'));
    expect(await ran()).toBe('fallback --help x y');
  }, 60_000);
});
