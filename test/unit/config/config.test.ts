import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { appPrivatePaths } from '../../../src/agents/confinement';
import { ConfigError, DEFAULT_CHAT_MODEL, loadConfig, loadDotEnv } from '../../../src/config';
import { makeTempDir } from '../../support/tmp';

describe('loadConfig', () => {
  it('uses the documented defaults with an empty environment', () => {
    const config = loadConfig({});
    const home = path.join(os.homedir(), '.agent-queue');
    expect(config.home).toBe(home);
    expect(config.workspaceDir).toBe(path.join(home, 'workspaces'));
    expect(config.databaseUrl).toBe(`sqlite:${path.join(home, 'agent-queue.db')}`);
    expect(config.databasePath).toBe(path.join(home, 'agent-queue.db'));
    expect(config.slack).toEqual({
      botToken: undefined,
      appToken: undefined,
      signingSecret: undefined,
      port: 3000,
      apiUrl: undefined,
      notifyChannel: undefined,
    });
    expect(config.anthropic.model).toBe(DEFAULT_CHAT_MODEL);
    expect(config.chat.perProjectChannels.autoCreate).toBe(false);
    expect(config.autoTask.useLlmParser).toBe(false);
    expect(config.admins).toEqual([]);
  });

  it('derives paths from AQ_HOME and reads every variable', () => {
    const config = loadConfig({
      AQ_HOME: '/data/aq',
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_APP_TOKEN: 'xapp-1',
      PORT: '8080',
      SLACK_API_URL: 'http://127.0.0.1:9/api',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:8',
      AQ_CHAT_MODEL: 'my-model',
      AQ_AUTO_CREATE_CHANNELS: 'yes',
      AQ_USE_LLM_PARSER: 'TRUE',
      AQ_ADMINS: 'U01, W02',
    });
    expect(config.workspaceDir).toBe('/data/aq/workspaces');
    expect(config.databasePath).toBe('/data/aq/agent-queue.db');
    expect(config.slack).toMatchObject({ botToken: 'xoxb-1', appToken: 'xapp-1', port: 8080, apiUrl: 'http://127.0.0.1:9/api/' });
    expect(config.anthropic).toMatchObject({ baseUrl: 'http://127.0.0.1:8', model: 'my-model' });
    expect(config.chat.perProjectChannels.autoCreate).toBe(true);
    expect(config.autoTask.useLlmParser).toBe(true);
    expect(config.admins).toEqual(['U01', 'W02']);
    expect(loadConfig({ AQ_HOME: '/x', AQ_WORKSPACE_DIR: 'ws', DATABASE_URL: 'sqlite:db/aq.db' })).toMatchObject({
      workspaceDir: '/x/ws',
      databasePath: '/x/db/aq.db',
      database: { dialect: 'sqlite', path: '/x/db/aq.db' },
    });
  });

  it('refuses AQ_AGENT_EXTRA_DIRS that hold the app folder or the workspaces, and takes others', () => {
    const home = { AQ_HOME: '/data/aq' };
    for (const dirs of ['/data', '/data/aq', '/srv/shared, /', '/data/aq/workspaces']) {
      expect(() => loadConfig({ ...home, AQ_AGENT_EXTRA_DIRS: dirs })).toThrow(
        /^AQ_AGENT_EXTRA_DIRS names \S+, which holds the app's folder \/data\/aq \(AQ_HOME\)|which holds the workspace folder/,
      );
    }
    expect(() => loadConfig({ ...home, AQ_WORKSPACE_DIR: '/srv/ws', AQ_AGENT_EXTRA_DIRS: '/srv' })).toThrow(
      "AQ_AGENT_EXTRA_DIRS names /srv, which holds the workspace folder /srv/ws: every agent could reach the others' work there. Name a folder outside it.",
    );
    expect(loadConfig({ ...home, AQ_AGENT_EXTRA_DIRS: '/srv/cache, /data/aq-other, /data/aq/shared' }).agents.extraDirs).toEqual([
      '/srv/cache',
      '/data/aq-other',
      '/data/aq/shared',
    ]);
  });

  it('runs on PostgreSQL when DATABASE_URL is a postgres:// URL', () => {
    const url = 'postgres://aq:secret@db.internal:5432/agent_queue';
    const config = loadConfig({ AQ_HOME: '/x', DATABASE_URL: url });
    expect(config.database).toEqual({ dialect: 'postgresql', url });
    expect(loadConfig({ AQ_HOME: '/x', DATABASE_URL: 'postgresql://db/aq' }).database).toEqual({
      dialect: 'postgresql',
      url: 'postgresql://db/aq',
    });
    const durable = 'postgres://db/aq?synchronous_commit=on';
    expect(loadConfig({ AQ_HOME: '/x', DATABASE_URL: durable }).database).toEqual({ dialect: 'postgresql', url: durable });
    // Nothing is stored in the SQLite file then; it stays hidden from agents all the same.
    expect(config.databasePath).toBe('/x/agent-queue.db');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT must be a whole number between 1 and 65535 (got "eighty").'],
    [{ PORT: '70000' }, 'PORT must be a whole number between 1 and 65535 (got "70000").'],
    [{ AQ_USE_LLM_PARSER: 'maybe' }, 'AQ_USE_LLM_PARSER must be true or false (got "maybe").'],
    [{ SLACK_API_URL: 'slack.com' }, 'SLACK_API_URL must be an http:// or https:// URL (got "slack.com").'],
    [{ AQ_ADMINS: 'alice' }, 'AQ_ADMINS must list Slack user ids such as U012ABCDEF, separated by commas (got "alice").'],
    [{ DATABASE_URL: 'postgres://db' }, 'DATABASE_URL must name a host and a database, like postgres://user:password@host:5432/database.'],
    [{ DATABASE_URL: 'mysql://x' }, expect.stringContaining('DATABASE_URL must look like sqlite:')],
    [
      { DATABASE_URL: 'postgres://db/aq?synchronous_commit=on;drop' },
      `DATABASE_URL's synchronous_commit must be one of off, local, remote_write, on, remote_apply (got "on;drop").`,
    ],
  ])('rejects %j with a clear sentence', (env, message) => {
    expect(() => loadConfig(env as NodeJS.ProcessEnv)).toThrow(ConfigError);
    try {
      loadConfig(env as NodeJS.ProcessEnv);
    } catch (err) {
      expect((err as Error).message).toEqual(message);
    }
  });

  it("hides from agents the .env the process read from where it started, and its checkout's", async () => {
    const started = await makeTempDir('aq-started-');
    const before = process.cwd();
    try {
      await writeFile(path.join(started.dir, '.env'), 'AQ_CONFIG_TEST_ONLY=1\n');
      process.chdir(started.dir);
      expect(loadDotEnv()).toBe(path.join(started.dir, '.env'));
      const hidden = appPrivatePaths(loadConfig({ AQ_HOME: '/data/aq' }));
      expect(hidden).toContain(path.join(started.dir, '.env'));
      expect(hidden).toContain(path.join(path.resolve(__dirname, '..', '..', '..'), '.env'));
    } finally {
      process.chdir(before);
      delete process.env.AQ_CONFIG_TEST_ONLY;
      await started.cleanup();
    }
  });
});
