// @database-dependent: aq connects to the runtime database as its own process.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { ScriptedAdapter, waitFor } from '../orchestrator/harness';

const execFileAsync = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..', '..');
const AQ = path.join(ROOT, 'bin', 'aq.js');

/** Runs the real `aq` (built) as its own process on the runtime's database; resolves with its exit code and output. */
async function aq(rt: TestRuntime, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [AQ, ...args], {
      env: { ...process.env, AQ_HOME: rt.home, DATABASE_URL: rt.config.databaseUrl },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('aq and the daemon', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
  });
  afterEach(() => rt.cleanup());

  it('restart_daemon from aq asks the running daemon, answers in full, and the daemon restarts', async () => {
    await rt.startDaemon({ adapters: { claude: new ScriptedAdapter() }, git: new GitManagerTaskGit(new GitManager()), intervalMs: 50 });
    const run = await aq(rt, 'exec', 'restart_daemon', '{"reason": "from the CLI"}');
    expect(run).toEqual({
      code: 0,
      stdout: '{"status":"restarting","message":"Daemon restart initiated","reason":"from the CLI"}\n',
      stderr: '',
    });
    await waitFor(async () => rt.processController.signals.length > 0, 60_000, 'the daemon to take the request');
    expect(rt.processController.signals).toEqual(['SIGTERM']);
    expect(rt.restartRequested()).toBe(true);
  });

  it('restart_daemon and update_and_restart from aq say plainly when no daemon is running', async () => {
    for (const name of ['restart_daemon', 'update_and_restart']) {
      const run = await aq(rt, 'exec', name);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toEqual({ error: expect.stringMatching(/^No Agent Queue daemon is running on this database/) });
    }
    expect((await rt.db.events.recent(5)).map((e) => e.type)).not.toContain('daemon_restart');
  });
});

describe('aq cold start', () => {
  it('a command on a current database loads neither Slack, the model SDKs nor the migrations', async () => {
    const rt = await makeTestRuntime({ ANTHROPIC_API_KEY: 'sk-unused' });
    try {
      const postgres = rt.db.dialect.name === 'postgresql';
      // On PostgreSQL, counts the connections the command opens (pg's own Client, as loaded).
      const script = `
        let connections = 0;
        if (${postgres}) {
          const { Client } = require('pg');
          const connect = Client.prototype.connect;
          Client.prototype.connect = function (...args) { connections++; return connect.apply(this, args); };
        }
        require(${JSON.stringify(path.join(ROOT, 'dist', 'src', 'cli.js'))})
          .main(['exec', 'get_status'], { stdout() {}, stderr() {}, async *readLines() {} })
          .then((code) => {
            // Code only: MikroORM reads the package.json of every @mikro-orm package it knows.
            const files = Object.keys(require.cache).filter((k) => !k.endsWith('.json'));
            const loaded = files.map((k) => k.split(/node_modules[\\\\/]/)[1]).filter(Boolean);
            const packages = [...new Set(loaded.map((k) => k.split(/[\\\\/]/).slice(0, 2).join('/')))].sort();
            process.stdout.write(JSON.stringify({ code, packages, connections }));
          });`;
      const { stdout } = await execFileAsync(process.execPath, ['-e', script], {
        env: { ...process.env, AQ_HOME: rt.home, DATABASE_URL: rt.config.databaseUrl, ANTHROPIC_API_KEY: 'sk-unused' },
      });
      const { code, packages, connections } = JSON.parse(stdout) as { code: number; packages: string[]; connections: number };
      expect(code).toBe(0);
      expect(packages).toContain(postgres ? '@mikro-orm/postgresql' : '@mikro-orm/sqlite');
      if (postgres) {
        // get_status runs its queries side by side: on one connection, not one each.
        expect(connections).toBe(1);
      } else {
        expect(packages).not.toContain('pg');
        expect(packages).not.toContain('@mikro-orm/postgresql');
      }
      for (const heavy of [
        '@slack/bolt',
        '@slack/web-api',
        '@anthropic-ai/sdk',
        '@anthropic-ai/claude-agent-sdk',
        '@mikro-orm/migrations',
      ]) {
        expect(packages).not.toContain(heavy);
      }
    } finally {
      await rt.cleanup();
    }
  });
});
