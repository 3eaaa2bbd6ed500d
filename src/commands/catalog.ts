import type { z } from 'zod';
import type { AppConfig } from '../config';
import type { Database } from '../db/database';
import type { GitManager } from '../git/git-manager';
import type { EventLog } from '../orchestrator/events';
import type { OrchestratorPort, ProcessController } from '../orchestrator/port';
import type { ListPaging } from './paging';

export type CommandResult = Record<string, unknown>;

export const COMMAND_GROUPS = [
  'status',
  'projects',
  'channels',
  'tasks',
  'agents',
  'repos',
  'git',
  'workspaces',
  'hooks',
  'automations',
  'notes',
  'files',
  'system',
] as const;
export type CommandGroup = (typeof COMMAND_GROUPS)[number];

/**
 * What a command does, declared by every command (README "Command classes"):
 * - `read` only reads; the chat agent may run several at once.
 * - `change` changes state that can be changed back.
 * - `destructive` deletes, overwrites or halts work in a way that is hard to undo.
 * - `admin` is refused to Slack and chat users not listed in AQ_ADMINS.
 * The chat model's calls of `destructive` and `admin` commands wait for a person's Confirm click.
 */
export const COMMAND_KINDS = ['read', 'change', 'destructive', 'admin'] as const;
export type CommandKind = (typeof COMMAND_KINDS)[number];

/**
 * How the chat model may use a command: `allowed` runs it directly, `confirm` needs a person to
 * press a button first, `excluded` is never offered to the model.
 */
export type ModelAccess = 'allowed' | 'confirm' | 'excluded';

/** Who asked for a command. Slack users are checked against AQ_ADMINS for admin commands. */
export interface Actor {
  source: 'slack' | 'cli' | 'chat' | 'hook' | 'system';
  userId?: string;
  channelId?: string;
  /** A link to the Slack thread the request was made in; tasks created for it record it. */
  sourceUrl?: string;
}

/** Conversation state the spec keeps on the handler. */
export interface CommandSession {
  activeProjectId: string | null;
  /** Registered by an outer layer (Slack) and called after a project is deleted. */
  onProjectDeleted?: (projectId: string) => void | Promise<void>;
}

export interface CommandContext {
  db: Database;
  config: AppConfig;
  orchestrator: OrchestratorPort;
  events: EventLog;
  session: CommandSession;
  actor: Actor;
  process: ProcessController;
  git: GitManager;
  /** Writes details people do not read (an unexpected error's stack) to the app's log. */
  log(message: string): void;
  /** Runs another command through the same handler (same session and actor). */
  execute(name: string, args: Record<string, unknown>): Promise<CommandResult>;
}

/**
 * A command's contract. `R` is the success shape its `run` returns, inferred by `defineCommand`,
 * so callers can read typed fields (see `ResultOf`); the wire format is that same snake_case object.
 */
export interface CommandDefinition<
  S extends z.ZodObject = z.ZodObject,
  R extends CommandResult = CommandResult,
  N extends string = string,
> {
  name: N;
  group: CommandGroup;
  description: string;
  input: S;
  /** Required: what the command does, which decides who may run it and what the model may run unasked. */
  kind: CommandKind;
  /**
   * Tightens the model's access beyond what `kind` gives: `excluded` hides the command from the
   * model, `confirm` holds a `read` or `change` command for a click too (see `modelAccessOf`).
   */
  modelAccess?: Exclude<ModelAccess, 'allowed'>;
  /** A reply that is one page of a list that can grow: which key holds it and its limits. */
  list?: ListPaging;
  run(args: z.output<S>, ctx: CommandContext): Promise<R>;
}

/**
 * A command's contract, defined once; execute, the model's tools, help, Slack and the CLI derive from it.
 * `input` may be given as a function that builds the schema: it is then built on first use. Most
 * processes run one command or a few (`aq`, a test file), and a zod schema is dozens of objects
 * and closures that every process would otherwise build at start (and `aq`'s startup snapshot
 * would hold) for all of them.
 */
export function defineCommand<S extends z.ZodObject, R extends CommandResult, const N extends string>(
  definition: Omit<CommandDefinition<S, R, N>, 'input'> & { input: S | (() => S) },
): CommandDefinition<S, R, N> {
  if (!/^_?[a-z][a-z0-9_]*$/.test(definition.name)) {
    throw new Error(`Command name ${JSON.stringify(definition.name)} must be snake_case.`);
  }
  // Also for callers that escape the type (plain JavaScript, `as` casts): no command without a class.
  if (!(COMMAND_KINDS as readonly string[]).includes(definition.kind)) {
    throw new Error(`Command ${definition.name} needs a kind: one of ${COMMAND_KINDS.join(', ')}.`);
  }
  const { input, ...rest } = definition;
  if (typeof input !== 'function') return { ...rest, input };
  let built: S | undefined;
  return Object.defineProperty(rest, 'input', {
    get: () => (built ??= input()),
    enumerable: true,
  }) as CommandDefinition<S, R, N>;
}

/** Admin commands are refused for Slack and chat users not listed in AQ_ADMINS. */
export function isAdminCommand(command: Pick<AnyCommand, 'kind'>): boolean {
  return command.kind === 'admin';
}

/** Commands that only read; the chat agent may run several of them at once. */
export function isReadCommand(command: Pick<AnyCommand, 'kind'>): boolean {
  return command.kind === 'read';
}

/** What the chat model may do with a command: destructive and admin calls always wait for a click. */
export function modelAccessOf(command: Pick<AnyCommand, 'kind' | 'modelAccess'>): ModelAccess {
  if (command.modelAccess === 'excluded') return 'excluded';
  if (command.modelAccess === 'confirm' || command.kind === 'destructive' || command.kind === 'admin') return 'confirm';
  return 'allowed';
}

/** An expected failure whose message is for people: returned as `{"error": message}`. */
export class CommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandError';
  }
}

/** Any command, whatever its input schema and result (for registries and lists). */
export type AnyCommand = CommandDefinition<z.ZodObject, CommandResult>;

/**
 * The success result of a command, e.g. `ResultOf<typeof getTask>`: the snake_case object its
 * `run` returns. `execute` answers either this or `{ error }` (see `CommandOutcome`).
 */
export type ResultOf<C> = C extends CommandDefinition<z.ZodObject, infer R, string> ? R : never;

/** The input a command accepts after validation, e.g. `InputOf<typeof getTask>`. */
export type InputOf<C> = C extends CommandDefinition<infer S, CommandResult, string> ? z.output<S> : never;

/** The arguments a caller may send a command, before validation, e.g. `ArgsOf<typeof getTask>`. */
export type ArgsOf<C> = C extends CommandDefinition<infer S, CommandResult, string> ? z.input<S> : never;

/** What `execute` answers for a command: its success result, or an error sentence alone. */
export type CommandOutcome<C> = ResultOf<C> | { error: string };

/** True when `execute` answered with an error (the result then has only `error`). */
export function isCommandError(result: CommandResult): result is { error: string } {
  return typeof result.error === 'string';
}
