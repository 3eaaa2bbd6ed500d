import type { AppConfig } from './config';
import { Database } from './db/database';
import { CommandHandler, type CommandHandlerDeps } from './commands/handler';
import { ALL_COMMANDS } from './commands';
import type { AnyCommand } from './commands/catalog';
import { EventLog } from './orchestrator/events';
import { GitManager } from './git/git-manager';
import type { OrchestratorPort, ProcessController } from './orchestrator/port';
import { realProcessController } from './orchestrator/process-controller';
import { TaskControl } from './orchestrator/task-control';

export interface Runtime {
  config: AppConfig;
  db: Database;
  events: EventLog;
  git: GitManager;
  orchestrator: OrchestratorPort;
  /** The process-wide handler (CLI, orchestrator, hooks). */
  handler: CommandHandler;
  /** A new handler with its own session (active project), e.g. one per Slack channel. */
  createHandler(): CommandHandler;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  process?: ProcessController;
  commands?: readonly AnyCommand[];
  git?: GitManager;
  log?: (message: string) => void;
}

/** Wires storage, events, the orchestrator port and the command handler for one process. */
export async function createRuntime(config: AppConfig, options: RuntimeOptions = {}): Promise<Runtime> {
  const log = options.log ?? ((m: string) => console.error(m));
  const db = await Database.open(config.databasePath);
  const events = new EventLog(db, log);
  const git = options.git ?? new GitManager();
  const orchestrator = new TaskControl(db, events);
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
  return {
    config,
    db,
    events,
    git,
    orchestrator,
    handler,
    createHandler: () => new CommandHandler(handlerDeps),
    async close() {
      await db.close();
    },
  };
}
