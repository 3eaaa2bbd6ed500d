import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '@slack/bolt';
import { sandboxStatus } from './agents/confinement';
import { ConfigError, loadConfig, loadDotEnv, type AppConfig } from './config';
import { createRuntime, type Runtime, type RuntimeOptions } from './runtime';
import { createSlackApp, type SlackAppOptions } from './slack-app';
import { SlackNotifier } from './slack/notifier';
import { followProjectChannels } from './slack/channels';
import { DatabaseUnreachableError } from './db/connection-errors';
import { type AppSocket, openAppSocket } from './app-socket';
import { errorMessage } from './util/error-message';

const MISSING_TOKENS = (
  missing: string[],
) => `Agent Queue cannot start: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set.

To run it:
  1. Create the Slack app from manifest.yml (https://api.slack.com/apps → Create New App → From an app manifest).
  2. Copy .env.sample to .env and set SLACK_BOT_TOKEN (xoxb-…) and SLACK_APP_TOKEN (xapp-…, Socket Mode),
     or SLACK_SIGNING_SECRET and PORT to receive events over HTTP instead.
  3. Run npm start again.

See README.md, "Create the Slack app". The aq command works without Slack: npx aq help`;

/** Which Slack settings are missing for the chosen mode (none when the app can start). */
export function missingSlackSettings(config: AppConfig): string[] {
  const missing: string[] = [];
  if (!config.slack.botToken) missing.push('SLACK_BOT_TOKEN');
  if (!config.slack.appToken && !config.slack.signingSecret) missing.push('SLACK_APP_TOKEN (or SLACK_SIGNING_SECRET)');
  return missing;
}

export interface StartedApp {
  app: App;
  runtime: Runtime;
  notifier: SlackNotifier;
  /** Where the HTTP receiver listens (HTTP mode only), e.g. http://127.0.0.1:3000. */
  httpUrl?: string;
  /** Where `aq exec` on the same AQ_HOME is answered (null where there is no fast path). */
  appSocket: AppSocket | null;
  stop(): Promise<void>;
}

/** Starts the runtime and the Slack app; `stop` shuts both down. */
export async function startApp(
  config: AppConfig,
  options: SlackAppOptions & { port?: number; host?: string; daemon?: boolean; commands?: RuntimeOptions['commands'] } = {},
): Promise<StartedApp> {
  const log = options.log ?? ((message: string) => console.error(message));
  const runtime = await createRuntime(config, { log, ...(options.commands && { commands: options.commands }) });
  try {
    const { app, stopListeners } = createSlackApp(runtime, options);
    await app.init();
    const notifier = new SlackNotifier(runtime, app.client, log);
    const stopNotifier = notifier.start();
    const stopChannels = followProjectChannels(runtime, app.client, log);
    let httpUrl: string | undefined;
    if (config.slack.appToken) await app.start();
    else {
      const port = options.port ?? config.slack.port;
      const server = (await app.start(options.host ? { port, host: options.host } : port)) as Server;
      httpUrl = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
    }
    const stopRelay = runtime.events.followExternal();
    if (options.daemon !== false) await runtime.startDaemon();
    const appSocket = await openAppSocket(runtime, log);
    return {
      app,
      runtime,
      notifier,
      httpUrl,
      appSocket,
      async stop() {
        await appSocket?.close();
        stopRelay();
        stopNotifier();
        stopChannels();
        await stopListeners();
        await app.stop().catch(() => undefined);
        await runtime.stopDaemon();
        await notifier.idle();
        await runtime.close();
      },
    };
  } catch (err) {
    await runtime.close();
    throw err;
  }
}

/** Re-runs this process (same arguments) once it has shut down, as restart_daemon promises. */
function relaunch(): void {
  const child = spawn(process.execPath, process.argv.slice(1), { detached: true, stdio: 'inherit', env: process.env });
  child.unref();
}

/** `npm start`: the app until SIGTERM or SIGINT; resolves to the process exit code. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (env === process.env) loadDotEnv();
  let config: AppConfig;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      return 1;
    }
    throw err;
  }
  const missing = missingSlackSettings(config);
  if (missing.length > 0) {
    console.error(MISSING_TOKENS(missing));
    return 1;
  }
  if (config.admins.length === 0) {
    console.warn('Warning: AQ_ADMINS is empty, so every Slack user may run admin commands (run_command, delete_project, …).');
  }
  const sandbox = sandboxStatus(config.agents.allowUnsandboxed);
  if (!sandbox.available) {
    console.warn(
      sandbox.tasks_may_run
        ? `Warning: ${sandbox.missing.join(' and ')} missing, so agents run shell commands WITHOUT the sandbox (AQ_ALLOW_UNSANDBOXED=true). Install them with scripts/install-system-packages.sh.`
        : `Warning: ${sandbox.missing.join(' and ')} missing, so tasks cannot run: agents run shell commands only in the sandbox. Install them with scripts/install-system-packages.sh, or set AQ_ALLOW_UNSANDBOXED=true.`,
    );
  }
  if (!sandbox.missing.includes('bwrap') && !sandbox.unix_sockets_refused) {
    console.warn(
      `Warning: no Unix-socket filter for this machine's architecture (${process.arch}), so whole ACP agents and landing checks can connect to the machine's Unix sockets (x64 and arm64 have one).`,
    );
  }
  let started: StartedApp;
  try {
    started = await startApp(config);
  } catch (err) {
    if (err instanceof DatabaseUnreachableError) {
      console.error(`Agent Queue could not open its database: ${err.message}`);
      return 1;
    }
    const reason = errorMessage(err);
    console.error(`Agent Queue could not connect to Slack: ${reason}\nCheck SLACK_BOT_TOKEN and SLACK_APP_TOKEN in .env.`);
    return 1;
  }
  const mode = config.slack.appToken ? 'Socket Mode' : `HTTP on port ${config.slack.port}`;
  console.log(`Agent Queue is running (${mode}). Data: ${config.home}. Stop with Ctrl-C.`);
  await new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      console.log(`${signal} received: shutting down…`);
      resolve();
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
  const restart = started.runtime.restartRequested();
  await started.stop();
  if (restart) {
    console.log('Restarting…');
    relaunch();
  }
  return 0;
}

if (require.main === module) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error(`Agent Queue stopped on an unexpected error: ${errorMessage(err)}`);
      process.exitCode = 1;
    },
  );
}
