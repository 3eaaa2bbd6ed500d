// @database-dependent: the restart request is a system_state row matched on a JSON member.
import { loadConfig } from '../../../src/config';
import { createRuntime, type Runtime } from '../../../src/runtime';
import { makeTestRuntime, RecordingProcessController, type TestRuntime } from '../../support/runtime';
import { ScriptedAdapter, waitFor } from './harness';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { GitManager } from '../../../src/git/git-manager';

const nextTurn = () => new Promise((r) => setImmediate(r));

/** A daemon on a fresh database: the scripted adapter (no tasks run here), a quick loop. */
async function startDaemon(rt: TestRuntime): Promise<void> {
  await rt.startDaemon({ adapters: { claude: new ScriptedAdapter() }, git: new GitManagerTaskGit(new GitManager()), intervalMs: 50 });
}

/** A second process on the same database that is not the daemon, as `aq` is. */
async function cliLike(rt: TestRuntime): Promise<{ runtime: Runtime; processController: RecordingProcessController }> {
  const processController = new RecordingProcessController();
  const runtime = await createRuntime(loadConfig({ AQ_HOME: rt.home, DATABASE_URL: rt.config.databaseUrl }), {
    process: processController,
    log: () => undefined,
  });
  return { runtime, processController };
}

describe('restart_daemon and update_and_restart', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
  });
  afterEach(() => rt.cleanup());

  describe('in the daemon process', () => {
    beforeEach(() => startDaemon(rt));

    it('restart_daemon stores the notification, flags the restart and sends SIGTERM only after replying', async () => {
      expect(await rt.exec('restart_daemon')).toEqual({
        status: 'restarting',
        message: 'Daemon restart initiated',
        reason: 'No reason provided',
      });
      expect(rt.processController.signals).toEqual([]);
      expect(rt.restartRequested()).toBe(true);
      await nextTurn();
      expect(rt.processController.signals).toEqual(['SIGTERM']);
      const [event] = await rt.db.events.recent(1);
      expect(event.type).toBe('daemon_restart');
      expect(event.payload).toEqual({ reason: 'No reason provided', message: '🔄 **Daemon restart initiated** — No reason provided' });

      expect(await rt.exec('restart_daemon', { reason: 'config change' })).toMatchObject({ reason: 'config change' });
      expect((await rt.db.events.recent(1))[0].payload.message).toBe('🔄 **Daemon restart initiated** — config change');
    });

    it('update_and_restart pulls fast-forward only, reinstalls, notifies and restarts', async () => {
      rt.processController.respond = (file) => ({
        code: 0,
        stdout: file === 'git' ? 'Updating 1..2\nFast-forward\n' : 'added 1 package',
        stderr: '',
      });
      expect(await rt.exec('update_and_restart', { reason: 'new version' })).toEqual({
        status: 'updating',
        message: 'Update pulled and daemon restart initiated',
        pull_output: 'Updating 1..2\nFast-forward',
        reason: 'new version',
      });
      expect(rt.processController.runs).toEqual([
        { file: 'git', args: ['pull', '--ff-only'], cwd: rt.config.appRoot },
        { file: 'npm', args: ['ci', '--no-audit', '--no-fund'], cwd: rt.config.appRoot },
      ]);
      expect(rt.restartRequested()).toBe(true);
      expect(rt.processController.signals).toEqual([]);
      await nextTurn();
      expect(rt.processController.signals).toEqual(['SIGTERM']);
      const [event] = await rt.db.events.recent(1);
      expect(event).toMatchObject({
        type: 'daemon_restart',
        payload: { reason: 'new version', message: expect.stringContaining('new version') },
      });
    });

    it('update_and_restart stops at a failed pull, with the tail of its output, and does not restart', async () => {
      rt.processController.respond = () => ({
        code: 128,
        stdout: 'x'.repeat(5000),
        stderr: 'fatal: Not possible to fast-forward, aborting.',
      });
      const result = await rt.exec('update_and_restart');
      expect(result).toEqual({
        error: expect.stringMatching(
          /^git pull exited non-zero \(code 128\); nothing was changed\. …x+\nfatal: Not possible to fast-forward, aborting\.$/,
        ),
      });
      expect((result.error as string).length).toBeLessThan(1700);
      expect(rt.processController.runs).toHaveLength(1);
      await nextTurn();
      expect(rt.processController.signals).toEqual([]);
      expect(rt.restartRequested()).toBe(false);
      expect((await rt.db.events.recent(5)).map((e) => e.type)).not.toContain('daemon_restart');
    });

    it('update_and_restart reports a failed install and does not restart', async () => {
      rt.processController.respond = (file) =>
        file === 'npm' ? { code: 1, stdout: '', stderr: 'npm ERR! network' } : { code: 0, stdout: 'ok', stderr: '' };
      expect(await rt.exec('update_and_restart')).toEqual({
        error: expect.stringMatching(/^The install \(npm ci\) exited non-zero \(code 1\);.*npm ERR! network$/),
      });
      await nextTurn();
      expect(rt.processController.signals).toEqual([]);
      expect(rt.restartRequested()).toBe(false);
    });
  });

  describe('from a process that is not the daemon', () => {
    it('asks the running daemon through the database; the daemon restarts, the asking process does not', async () => {
      await startDaemon(rt);
      const cli = await cliLike(rt);
      try {
        expect(await cli.runtime.handler.execute('restart_daemon', { reason: 'from aq' }, { source: 'cli' })).toEqual({
          status: 'restarting',
          message: 'Daemon restart initiated',
          reason: 'from aq',
        });
        await waitFor(async () => rt.processController.signals.length > 0, 60_000, 'the daemon to take the request');
        expect(rt.processController.signals).toEqual(['SIGTERM']);
        expect(rt.restartRequested()).toBe(true);
        expect(cli.processController.signals).toEqual([]);
        expect(cli.runtime.restartRequested()).toBe(false);
        expect((await rt.db.events.recent(1))[0]).toMatchObject({ type: 'daemon_restart', payload: { reason: 'from aq' } });
      } finally {
        await cli.runtime.close();
      }
    });

    it('update_and_restart pulls and installs here, then asks the daemon', async () => {
      await startDaemon(rt);
      const cli = await cliLike(rt);
      try {
        cli.processController.respond = () => ({ code: 0, stdout: 'Already up to date.', stderr: '' });
        expect(await cli.runtime.handler.execute('update_and_restart', {}, { source: 'cli' })).toMatchObject({
          status: 'updating',
          pull_output: 'Already up to date.',
        });
        expect(cli.processController.runs.map((r) => r.file)).toEqual(['git', 'npm']);
        await waitFor(async () => rt.processController.signals.length > 0, 60_000, 'the daemon to take the request');
        expect(cli.processController.signals).toEqual([]);
      } finally {
        await cli.runtime.close();
      }
    });

    it('says plainly that no daemon is running, and changes nothing', async () => {
      const cli = await cliLike(rt);
      try {
        for (const name of ['restart_daemon', 'update_and_restart']) {
          const result = await cli.runtime.handler.executeAny(name, {}, { source: 'cli' });
          expect(result).toEqual({
            error: expect.stringMatching(/^No Agent Queue daemon is running on this database .*Start the app with `npm start`\.$/),
          });
        }
        expect(cli.processController.runs).toEqual([]);
        expect(cli.processController.signals).toEqual([]);
        expect((await rt.db.events.recent(5)).map((e) => e.type)).not.toContain('daemon_restart');
      } finally {
        await cli.runtime.close();
      }
    });

    it('a daemon that stopped is not running: its released lease stops the request', async () => {
      await startDaemon(rt);
      await rt.stopDaemon();
      const cli = await cliLike(rt);
      try {
        expect(await cli.runtime.handler.execute('restart_daemon', {}, { source: 'cli' })).toEqual({
          error: expect.stringContaining('No Agent Queue daemon is running'),
        });
      } finally {
        await cli.runtime.close();
      }
    });
  });

  it('marks restart and update as admin commands the model never sees', () => {
    for (const name of ['restart_daemon', 'update_and_restart']) {
      expect(rt.handler.command(name)).toMatchObject({ kind: 'admin', modelAccess: 'excluded' });
    }
  });

  it('refuses restart and update to Slack users outside AQ_ADMINS and allows listed ones', async () => {
    const guarded = await makeTestRuntime({ AQ_ADMINS: 'U1' });
    try {
      await startDaemon(guarded);
      for (const name of ['restart_daemon', 'update_and_restart']) {
        for (const source of ['slack', 'chat'] as const) {
          expect(await guarded.handler.executeAny(name, {}, { source, userId: 'U2' })).toEqual({
            error: `Only workspace admins can run ${name}. Ask an admin, or have one add your Slack user id to AQ_ADMINS.`,
          });
        }
      }
      expect(guarded.processController.runs).toEqual([]);
      expect(await guarded.handler.execute('restart_daemon', {}, { source: 'slack', userId: 'U1' })).toMatchObject({
        status: 'restarting',
      });
      await nextTurn();
      expect(guarded.processController.signals).toEqual(['SIGTERM']);
    } finally {
      await guarded.cleanup();
    }
  });
});
