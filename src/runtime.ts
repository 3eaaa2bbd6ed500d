import type { AppConfig } from './config';
import { Database } from './db/database';
import { CommandHandler, type CommandHandlerDeps } from './commands/handler';
import { ALL_COMMANDS } from './commands';
import type { AnyCommand } from './commands/catalog';
import { orchestratorCommands } from './commands/orchestrator-commands';
import { EventLog } from './orchestrator/events';
import { GitManager } from './git/git-manager';
import type { AnthropicProviderOptions } from './chat/anthropic';
import { createChatService, type ChatService } from './chat/service';
import { createHookModelRunner } from './chat/hook-runner';
import type { ChatProvider } from './model/provider';
import type { OrchestratorPort, ProcessController } from './orchestrator/port';
import { realProcessController } from './orchestrator/process-controller';
import { ProcessOrchestrator } from './orchestrator/process-orchestrator';
import { TaskControl } from './orchestrator/task-control';
import { HookEngine } from './orchestrator/hooks';
import { Orchestrator, type OrchestratorOptions } from './orchestrator/orchestrator';
import { ClaudeCodeAdapter } from './agents/claude-code';
import { claudeCodeOptions } from './agents/claude-options';
import { AcpAdapter } from './agents/acp';
import { acpOptions } from './agents/acp-options';
import { GitManagerTaskGit } from './orchestrator/task-git';
import { PrFollower } from './orchestrator/pr-follower';
import { ForgeReadinessRecorder } from './orchestrator/forge-readiness';
import { FleetWorker, type WorkerOptions } from './orchestrator/worker';
import { AutomationEngine } from './orchestrator/automation-engine';
import { gitCredentialsDir } from './util/app-home-files';
import { settleAll } from './util/settle-all';

export interface Runtime {
  config: AppConfig;
  db: Database;
  events: EventLog;
  git: GitManager;
  /** The chat model, when ANTHROPIC_API_KEY is set. */
  chatProvider: ChatProvider | null;
  /** The chat agent, when a chat model is configured. */
  chat: ChatService | null;
  /** The hook engine; it runs (events, periodic checks, fire_hook) while the daemon runs here. */
  hooks: HookEngine;
  /** Fires due schedules and counts how automations' tasks ended, on the daemon's tick. */
  automations: AutomationEngine;
  orchestrator: OrchestratorPort;
  /** The process-wide handler (CLI, orchestrator, hooks). */
  handler: CommandHandler;
  /** A new handler with its own session (active project), e.g. one per Slack channel. */
  createHandler(): CommandHandler;
  /**
   * A new handler that acts as one in an `aq` process does, the daemon reached through the
   * database only, logging to `log`: for `aq exec` answered by the app (src/app-socket.ts).
   */
  createCliHandler(log: (message: string) => void): CommandHandler;
  /** Starts the daemon's orchestrator loop and the hook engine; every handler then reaches them. */
  startDaemon(options?: Partial<OrchestratorOptions>): Promise<void>;
  /** Stops the loop (live runs go back to READY) and the hooks; handlers fall back to the DB-only TaskControl. */
  stopDaemon(): Promise<void>;
  /** The running daemon orchestrator, or null in `aq` processes. */
  daemon(): Orchestrator | null;
  /** Whether restart_daemon (here or from another process) asked this process to restart. */
  restartRequested(): boolean;
  /** Starts this process as an `aq worker` (agents, no Slack, no hooks); `close` stops it. */
  startWorker(options: Pick<WorkerOptions, 'name' | 'host' | 'capacity' | 'labels' | 'dir'> & Partial<WorkerOptions>): Promise<FleetWorker>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  process?: ProcessController;
  commands?: readonly AnyCommand[];
  git?: GitManager;
  /** A chat model to use instead of the one ANTHROPIC_API_KEY selects. */
  chatProvider?: ChatProvider | null;
  /** The most PostgreSQL connections to hold (see OpenOptions in src/db/orm.ts). */
  maxDatabaseConnections?: number;
  log?: (message: string) => void;
  /** The clock automations fire by (tests move it instead of waiting). */
  now?: () => Date;
}

/**
 * The Anthropic provider, with its SDK loaded on the first model call: the SDK takes a large
 * part of a cold start, and most `aq` commands never talk to the model.
 */
function lazyAnthropicProvider(options: AnthropicProviderOptions): ChatProvider {
  let provider: Promise<ChatProvider> | null = null;
  return {
    model: options.model,
    async createMessage(request) {
      provider ??= import('./chat/anthropic').then(({ AnthropicChatProvider }) => new AnthropicChatProvider(options));
      return (await provider).createMessage(request);
    },
  };
}

function chatProviderFor(config: AppConfig, options: RuntimeOptions): ChatProvider | null {
  if (options.chatProvider !== undefined) return options.chatProvider;
  const { apiKey, baseUrl, model } = config.anthropic;
  return apiKey ? lazyAnthropicProvider({ apiKey, baseUrl, model }) : null;
}

/**
 * The one place a process is wired: storage, events, the chat model, hooks, the orchestrator
 * port and the command handlers, each built once with everything it needs.
 */
export async function createRuntime(config: AppConfig, options: RuntimeOptions = {}): Promise<Runtime> {
  const log = options.log ?? ((m: string) => console.error(m));
  const processController = options.process ?? realProcessController;
  const db = await Database.open(
    config.database,
    options.maxDatabaseConnections === undefined ? {} : { maxConnections: options.maxDatabaseConnections },
  );
  const events = new EventLog(db, log);
  const git = options.git ?? new GitManager({ credentialsDir: gitCredentialsDir(config.home) });
  const chatProvider = chatProviderFor(config, options);
  let daemon: Orchestrator | null = null;
  let worker: FleetWorker | null = null;
  let restartRequested = false;
  const restartThisProcess = () => {
    restartRequested = true;
    // Let the caller deliver its reply before the process starts shutting down.
    setImmediate(() => processController.signalSelf('SIGTERM'));
  };

  // Hooks run commands through the handler, which reaches the hooks through the port: the
  // handler is only called once a hook runs, after everything here is built.
  const hooks = new HookEngine({
    db,
    events,
    commands: orchestratorCommands((name, args) => handler.executeAny(name, args, { source: 'hook' })),
    runModel: chatProvider
      ? createHookModelRunner({ provider: chatProvider, createHandler: () => createHandler(), workspaceDir: config.workspaceDir })
      : null,
    log,
  });
  const taskControl = new TaskControl(db, events, log);
  const orchestrator = new ProcessOrchestrator({ db, taskControl, daemon: () => daemon, hooks, restartThisProcess });
  const handlerDeps: CommandHandlerDeps = {
    db,
    config,
    orchestrator,
    events,
    process: processController,
    git,
    commands: options.commands ?? ALL_COMMANDS,
    log,
  };
  const createHandler = () => new CommandHandler(handlerDeps);
  const noDaemonHere = new ProcessOrchestrator({ db, taskControl, daemon: () => null, hooks, restartThisProcess });
  const createCliHandler = (cliLog: (message: string) => void) =>
    new CommandHandler({ ...handlerDeps, orchestrator: noDaemonHere, log: cliLog });
  const handler = createHandler();
  const automations = new AutomationEngine({
    db,
    events,
    commands: orchestratorCommands((name, args, requestedFor) => handler.executeAny(name, args, { source: 'system', ...requestedFor })),
    now: options.now ?? (() => new Date()),
    log,
  });
  const chat = chatProvider ? createChatService({ db, config, provider: chatProvider, createHandler, log }) : null;

  const stopDaemon = async () => {
    if (!daemon) return;
    const stopping = daemon;
    daemon = null;
    hooks.stop();
    await stopping.stop();
    await hooks.idle();
  };

  return {
    config,
    db,
    events,
    git,
    chatProvider,
    chat,
    hooks,
    automations,
    orchestrator,
    handler,
    createHandler,
    createCliHandler,
    async startDaemon(daemonOptions = {}) {
      if (daemon) return;
      const prFollower = new PrFollower({ db, events, git, log });
      const forgeReadiness = new ForgeReadinessRecorder(git.forges, db, log);
      const started = new Orchestrator(db, events, config, {
        adapters: agentAdapters(config, log),
        git: new GitManagerTaskGit(git),
        chatProvider,
        onTick: async () => {
          forgeReadiness.tick();
          await settleAll([hooks.tick(), prFollower.tick(), automations.tick()]);
        },
        onRestartRequest: restartThisProcess,
        log,
        ...daemonOptions,
      });
      daemon = started;
      hooks.start();
      await started.start();
    },
    stopDaemon,
    daemon: () => daemon,
    restartRequested: () => restartRequested,
    async startWorker(workerOptions) {
      if (worker) return worker;
      worker = new FleetWorker(db, events, config, {
        adapters: agentAdapters(config, log),
        git: new GitManagerTaskGit(git),
        chatProvider,
        log,
        ...workerOptions,
      });
      await worker.start();
      return worker;
    },
    async close() {
      await worker?.stop();
      await stopDaemon();
      await db.close();
    },
  };
}

/** One adapter per backend: Claude Code, and the ACP agents of the configured profiles. */
function agentAdapters(config: AppConfig, log: (message: string) => void) {
  return { claude: new ClaudeCodeAdapter(claudeCodeOptions(config, log)), acp: new AcpAdapter(acpOptions(config, log)) };
}
