import type { AppConfig } from '../config';
import type { Database } from '../db/database';
import type { GitManager } from '../git/git-manager';
import type { EventLog } from '../orchestrator/events';
import type { OrchestratorPort, ProcessController } from '../orchestrator/port';
import {
  CommandError,
  isAdminCommand,
  isCommandError,
  type Actor,
  type AnyCommand,
  type ArgsOf,
  type CommandContext,
  type CommandOutcome,
  type CommandResult,
  type CommandSession,
} from './catalog';
import type { CommandName, CommandNamed } from './index';
import { errorDetails, errorText, isForPeople } from './error-text';
import { findUnsafeInput } from './input-guard';
import { actorIsAdmin } from './admin-check';
import { describeInputError } from './validation-errors';
import { onlyUnknownFields, unknownFields, withUnknownFieldsWarning } from './unknown-fields';
import { requireMayApprove, requireSteerTask } from './steer-check';

export interface CommandHandlerDeps {
  db: Database;
  config: AppConfig;
  orchestrator: OrchestratorPort;
  events: EventLog;
  process: ProcessController;
  git: GitManager;
  commands: readonly AnyCommand[];
  log?: (message: string) => void;
}

/**
 * The single execution layer: every slash command, button, chat tool call, hook and CLI call
 * goes through `execute(name, args)` and gets a plain result or `{error}` back.
 */
export class CommandHandler implements CommandSession {
  activeProjectId: string | null = null;
  onProjectDeleted?: (projectId: string) => void | Promise<void>;

  private readonly byName: Map<string, AnyCommand>;

  constructor(private readonly deps: CommandHandlerDeps) {
    this.byName = new Map(deps.commands.map((c) => [c.name, c]));
    if (this.byName.size !== deps.commands.length) {
      throw new Error('Two commands share a name.');
    }
  }

  get db(): Database {
    return this.deps.db;
  }

  get commands(): readonly AnyCommand[] {
    return this.deps.commands;
  }

  command(name: string): AnyCommand | undefined {
    return this.byName.get(name);
  }

  /**
   * Runs a command of the catalog by name: the arguments are checked against its input and the
   * answer is its result type (or `{ error }`), so a renamed result key fails the type check here.
   */
  async execute<N extends CommandName>(name: N, args?: ArgsOf<CommandNamed<N>>, actor?: Actor): Promise<CommandOutcome<CommandNamed<N>>> {
    return (await this.executeAny(name, args as Record<string, unknown> | undefined, actor)) as CommandOutcome<CommandNamed<N>>;
  }

  /**
   * `execute` for a name that arrives as text (a slash command, the chat model's tool call, a hook,
   * the CLI): unknown names and bad arguments are answered with `{ error }`.
   */
  async executeAny(name: string, args: Record<string, unknown> = {}, actor: Actor = { source: 'system' }): Promise<CommandResult> {
    const command = this.byName.get(name);
    if (!command) return { error: `Unknown command: ${name}` };

    if (isAdminCommand(command) && !this.isAdmin(actor)) {
      return {
        error: `Only workspace admins can run ${name}. Ask an admin, or have one add your Slack user id to AQ_ADMINS.`,
      };
    }

    try {
      const input = args && typeof args === 'object' && !Array.isArray(args) ? args : {};
      // One boundary for every command: text storage or a child process cannot take is refused here.
      const unsafe = findUnsafeInput(input);
      if (unsafe) return { error: unsafe };
      // A misspelt or newer field must not look applied: named in a warning, or refused when alone.
      const unknown = unknownFields(command, input);
      if (unknown.length > 0 && unknown.length === Object.keys(input).length) return { error: onlyUnknownFields(command, unknown) };
      const parsed = command.input.safeParse(input);
      if (!parsed.success) return { error: describeInputError(parsed.error, input) };
      // Again on what the schema made of it: a field given as JSON text is parsed by its schema.
      const unsafeParsed = findUnsafeInput(parsed.data);
      if (unsafeParsed) return { error: unsafeParsed };
      const result = await command.run(parsed.data, this.context(actor));
      return unknown.length > 0 && !isCommandError(result) ? withUnknownFieldsWarning(command, result, unknown) : result;
    } catch (err) {
      if (!isForPeople(err)) this.deps.log?.(`Command ${name} failed: ${errorDetails(err)}`);
      return { error: errorText(err, name) };
    }
  }

  /**
   * `execute` for callers that hold the definition: the arguments and the answer are typed from
   * it, e.g. `(await handler.executeCommand(getTask, { task_id })).title` after an error check.
   */
  async executeCommand<C extends AnyCommand>(command: C, args: ArgsOf<C>, actor?: Actor): Promise<CommandOutcome<C>> {
    return (await this.executeAny(command.name, args as Record<string, unknown>, actor)) as CommandOutcome<C>;
  }

  /**
   * Why `actor` may not `verb` this task (the sentence the command itself would answer), or null
   * when they may. Buttons ask it first, so a refused click changes nothing, not even the message.
   */
  async taskRefusal(taskId: string, verb: string, actor: Actor): Promise<string | null> {
    const ctx = this.context(actor);
    try {
      if (verb === 'approve') await requireMayApprove(ctx, taskId);
      else await requireSteerTask(ctx, taskId, verb);
      return null;
    } catch (err) {
      if (err instanceof CommandError) return err.message;
      throw err;
    }
  }

  /** Slack users must be listed in AQ_ADMINS (when it is set); local callers are trusted. */
  isAdmin(actor: Actor): boolean {
    return actorIsAdmin(actor, this.deps.config.admins);
  }

  private context(actor: Actor): CommandContext {
    return {
      db: this.deps.db,
      config: this.deps.config,
      orchestrator: this.deps.orchestrator,
      events: this.deps.events,
      process: this.deps.process,
      git: this.deps.git,
      session: this,
      actor,
      log: (message) => this.deps.log?.(message),
      execute: (name, args) => this.executeAny(name, args, actor),
    };
  }
}
