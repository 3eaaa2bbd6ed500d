import { LogLevel } from '@slack/bolt';
import { loadConfig } from '../../src/config';
import { startApp, type StartedApp } from '../../src/app';
import type { AnyCommand } from '../../src/commands/catalog';
import { FakeSlack } from './fake-slack';
import { makeTempDir } from './tmp';
import { createTestDatabase, onPostgres } from './postgres-databases';
import { copyMigratedSqlite } from './sqlite-template';
import { wakeWaits } from './wake';

export interface TestApp {
  slack: FakeSlack;
  started: StartedApp;
  /** The app's HTTP receiver. */
  url: string;
  signingSecret: string;
  home: string;
  /**
   * Stops the app (daemon, listeners, notifier) and starts a new one on the same database, home
   * and fake Slack, as a restarted process would; `started` and `url` then name the new one.
   */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The real app in HTTP mode on 127.0.0.1, talking to a fresh FakeSlack, in a temporary AQ_HOME;
 * under the `postgresql` Jest project on a fresh PostgreSQL database.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: { daemon?: boolean; commands?: readonly AnyCommand[]; log?: (message: string) => void } = {},
): Promise<TestApp> {
  const slack = await FakeSlack.start();
  const tmp = await makeTempDir('aq-app-');
  const database = onPostgres() && !env.DATABASE_URL ? await createTestDatabase() : null;
  const signingSecret = 'test-signing-secret';
  const config = loadConfig({
    AQ_HOME: tmp.dir,
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: slack.apiUrl,
    ...(database && { DATABASE_URL: database.url }),
    ...env,
  });
  // A copy of the run's migrated SQLite file, as makeTestRuntime starts from (sqlite-template.ts).
  if (config.database.dialect === 'sqlite') await copyMigratedSqlite(config.database.path);
  const start = async () => {
    const started = await startApp(config, {
      port: 0,
      host: '127.0.0.1',
      logLevel: LogLevel.ERROR,
      clientOptions: { retryConfig: { retries: 0 } },
      daemon: options.daemon ?? false,
      ...(options.commands && { commands: options.commands }),
      ...(options.log && { log: options.log }),
    });
    started.runtime.events.subscribe(() => wakeWaits());
    return started;
  };
  const started = await start();
  const app: TestApp = {
    slack,
    started,
    url: started.httpUrl!,
    signingSecret,
    home: tmp.dir,
    async restart() {
      await app.started.stop();
      app.started = await start();
      app.url = app.started.httpUrl!;
    },
    async stop() {
      try {
        await app.started.stop();
        await slack.close(); // fails the test when a payload broke a Slack rule (slack-validator.ts)
      } finally {
        await database?.drop();
        await tmp.cleanup();
      }
    },
  };
  return app;
}
