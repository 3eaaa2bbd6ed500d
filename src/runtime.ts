import type { AppConfig } from './config';
import { Database } from './db/database';
import { CommandHandler, type CommandHandlerDeps } from './commands/handler';
import { ALL_COMMANDS } from './commands';
import type { AnyCommand } from './commands/catalog';
import { EventLog } from './orchestrator/events';
import { GitManager } from './git/git-manager';
import { AnthropicChatProvider } from './chat/anthropic';
import { createChatService } from './chat/service';
import type { ChatProvider } from './model/provider';
import type { ChatService } from './chat/service';
import type { OrchestratorPort, ProcessController } from './orchestrator/port';
import { realProcessController } from './orchestrator/process-controller';
import { TaskControl } from './orchestrator/task-control';
import { Orchestrator, SwitchableOrchestrator, type OrchestratorOptions } from './orchestrator/orchestrator';
import { ClaudeCodeAdapter } from './agents/claude-code';
import { claudeCodeOptions } from './agents/claude-options';
import { GitManagerTaskGit } from './orchestrator/task-git';

export interface Runtime {
  config: AppConfig;
  db: Database;
  events: EventLog;
  git: GitManager;
  /** The chat model, when ANTHROPIC_API_KEY is set. */
  chatProvider: ChatProvider | null;
  /** The chat agent, when a chat model is configured. */
  chat: ChatService | null;
  orchestrator: OrchestratorPort;
  /** The process-wide handler (CLI, orchestrator, hooks). */
  handler: CommandHandler;
  /** A new handler with its own session (active project), e.g. one per Slack channel. */
  createHandler(): CommandHandler;
  /** Starts the daemon's orchestrator loop; it becomes `orchestrator` for every handler. */
  startDaemon(options?: Partial<OrchestratorOptions>): Promise<void>;
  /** Stops the loop (live runs go back to READY) and falls back to the DB-only TaskControl. */
  stopDaemon(): Promise<void>;
  /** The running daemon orchestrator, or null in `aq` processes. */
  daemon(): Orchestrator | null;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  process?: ProcessController;
  commands?: readonly AnyCommand[];
  git?: GitManager;
  /** A chat model to use instead of the one ANTHROPIC_API_KEY selects. */
  chatProvider?: ChatProvider | null;
  log?: (message: string) => void;
}

/** Wires storage, events, the orchestrator port and the command handler for one process. */
export async function createRuntime(config: AppConfig, options: RuntimeOptions = {}): Promise<Runtime> {
  const log = options.log ?? ((m: string) => console.error(m));
  const db = await Database.open(config.databasePath);
  const events = new EventLog(db, log);
  const git = options.git ?? new GitManager();
  const taskControl = new TaskControl(db, events);
  const orchestrator = new SwitchableOrchestrator(taskControl);
  let daemon: Orchestrator | null = null;
  const handlerDeps: CommandHandlerDeps = {
    db,
    config,
    orchestrator,
    events,
    process: options.process ?? realProcessController,
    git,
    commands: options.commands ?? ALL_COMMANDS,
    log,
  };
  const handler = new CommandHandler(handlerDeps);
  const chatProvider =
    options.chatProvider !== undefined
      ? options.chatProvider
      : config.anthropic.apiKey
        ? new AnthropicChatProvider({ apiKey: config.anthropic.apiKey, baseUrl: config.anthropic.baseUrl, model: config.anthropic.model })
        : null;
  const chat = chatProvider
    ? createChatService({ db, config, provider: chatProvider, createHandler: () => new CommandHandler(handlerDeps), log })
    : null;
  return {
    config,
    db,
    events,
    git,
    chatProvider,
    chat,
    orchestrator,
    handler,
    createHandler: () => new CommandHandler(handlerDeps),
    async startDaemon(daemonOptions = {}) {
      if (daemon) return;
      daemon = new Orchestrator(db, events, config, {
        adapters: { claude: new ClaudeCodeAdapter(claudeCodeOptions(config, log)) },
        git: new GitManagerTaskGit(git),
        hookEngine: taskControl.hookEngine,
        log,
        ...daemonOptions,
      });
      daemon.restartRequested = taskControl.restartRequested;
      orchestrator.current = daemon;
      await daemon.start();
    },
    async stopDaemon() {
      if (!daemon) return;
      const stopping = daemon;
      daemon = null;
      await stopping.stop();
      taskControl.hookEngine = stopping.hookEngine;
      taskControl.restartRequested = stopping.restartRequested;
      orchestrator.current = taskControl;
    },
    daemon: () => daemon,
    async close() {
      if (daemon) {
        const stopping = daemon;
        daemon = null;
        await stopping.stop();
      }
      await db.close();
    },
  };
}
