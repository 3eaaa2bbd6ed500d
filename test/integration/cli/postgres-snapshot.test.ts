// @database-dependent: aq starts from the PostgreSQL startup snapshot and connects to the server.
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTestDatabase } from '../../support/postgres-databases';
import { makeTempDir } from '../../support/tmp';

const ROOT = path.join(__dirname, '..', '..', '..');
/** `aq` as npm installs it: the shell script that picks a startup snapshot. */
const AQ = path.join(ROOT, 'bin', 'aq');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** Node's own options at exit: which snapshot the process started from, if any. */
  execArgv: string[];
}

describe('aq on PostgreSQL, started from its own snapshot', () => {
  let cleanups: Array<() => Promise<void>>;
  beforeEach(() => {
    cleanups = [];
  });
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  const database = async () => {
    const made = await createTestDatabase();
    cleanups.push(made.drop);
    return made.url;
  };

  const homeDir = async () => {
    const made = await makeTempDir('aq-pg-snapshot-');
    cleanups.push(made.cleanup);
    return made.dir;
  };

  /** The real `aq` as its own process with only `env` set (and PATH); `fallback` runs bin/aq.js unbundled. */
  async function aq(home: string, env: Record<string, string>, args: string[], fallback = false): Promise<Run> {
    const report = path.join(home, `exec-argv-${Math.random().toString(36).slice(2)}.json`);
    const reporter = path.join(home, 'report-exec-argv.js');
    const scrub = (text: string) => text.split(home).join('<AQ_HOME>');
    await writeFile(
      reporter,
      "process.on('exit', () => require('fs').writeFileSync(process.env.REPORT_FILE, JSON.stringify(process.execArgv)));",
    );
    return new Promise((resolve, reject) => {
      const child = spawn(AQ, args, {
        env: {
          PATH: process.env.PATH,
          AQ_HOME: home,
          NODE_OPTIONS: `--require ${reporter}`,
          REPORT_FILE: report,
          ...(fallback && { AQ_NO_BUNDLE: '1' }),
          ...env,
        },
        cwd: home,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', async (code) => {
        const execArgv = JSON.parse(await readFile(report, 'utf8')) as string[];
        resolve({ code: code ?? -1, stdout: scrub(stdout), stderr: scrub(stderr), execArgv });
      });
      child.stdin.end();
    });
  }

  const snapshotOf = (run: Run) => {
    const at = run.execArgv.indexOf('--snapshot-blob');
    return at < 0 ? null : path.basename(run.execArgv[at + 1]);
  };

  it('starts from aq-postgres.blob when DATABASE_URL names PostgreSQL, and answers as the unbundled build does', async () => {
    const [snapshotDb, unbundledDb] = [await database(), await database()];
    const [snapshotHome, unbundledHome] = [await homeDir(), await homeDir()];
    const commands = [
      ['exec', 'create_project', '{"name": "Demo"}'],
      ['exec', 'create_task', '{"project_id": "demo", "title": "First", "description": "Do it"}'],
      ['exec', 'get_status'],
      ['exec', 'list_projects'],
      ['exec', 'get_task', '{"task_id": "nope"}'],
    ];
    for (const args of commands) {
      const [fromSnapshot, unbundled] = await Promise.all([
        aq(snapshotHome, { DATABASE_URL: snapshotDb }, args),
        aq(unbundledHome, { DATABASE_URL: unbundledDb }, args, true),
      ]);
      expect(snapshotOf(fromSnapshot)).toBe('aq-postgres.blob');
      expect(snapshotOf(unbundled)).toBeNull();
      // Task ids are random words: named, not compared.
      const same = (run: Run) => ({ code: run.code, stdout: run.stdout.replace(/[a-z]+-[a-z]+-\d+/g, '<task>'), stderr: run.stderr });
      expect({ args, ...same(fromSnapshot) }).toEqual({ args, ...same(unbundled) });
    }
    // Without a PostgreSQL URL, the SQLite snapshot as before.
    const sqlite = await aq(await homeDir(), {}, ['exec', 'list_projects']);
    expect(snapshotOf(sqlite)).toBe('aq.blob');
    expect(sqlite.code).toBe(0);
  }, 120_000);

  it('connects as the login user of this process where the URL names none, not as the one who built the snapshot', async () => {
    const url = new URL(await database());
    const { username, password } = url;
    url.username = '';
    url.password = '';
    const run = await aq(
      await homeDir(),
      { DATABASE_URL: url.toString(), USER: decodeURIComponent(username), PGPASSWORD: decodeURIComponent(password) },
      ['exec', 'list_projects'],
    );
    expect(snapshotOf(run)).toBe('aq-postgres.blob');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ projects: [], total: 0, next_offset: null });
  }, 60_000);
});
