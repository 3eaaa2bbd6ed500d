import os from 'node:os';
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import dotenv from 'dotenv';
import { z } from 'zod';
import { AgentProfilesError, loadAgentProfiles, type AgentProfile } from './agents/profiles';
import { agentProfilesPath, configDigest } from './config-digest';
import { isWithin } from './util/path-within';
import { synchronousCommitOf } from './db/postgres-commit';

/** The model used for chat, the LLM plan parser and hooks unless AQ_CHAT_MODEL says otherwise. */
export const DEFAULT_CHAT_MODEL = 'claude-sonnet-4-6';

export interface SlackConfig {
  botToken?: string;
  appToken?: string;
  signingSecret?: string;
  port: number;
  /** Socket Mode only: the port inbound automation webhooks are served on (none when unset). */
  webhookPort?: number;
  /** Web API base URL ending in `/api/`; tests point it at a loopback fake. */
  apiUrl?: string;
  /** Channel for daemon notices and for projects without a channel of their own. */
  notifyChannel?: string;
  /** Where people reach the app (`AQ_PUBLIC_URL`, no trailing slash): task links are `<it>/tasks/<id>` and unfurl. */
  publicUrl?: string;
}

export interface AnthropicConfig {
  apiKey?: string;
  baseUrl?: string;
  model: string;
}

export interface AppConfig {
  /** Data folder (`AQ_HOME`). */
  home: string;
  /** The digest of the variables this config was built from (src/config-digest.ts): `aq`'s fast path compares it. */
  envDigest: string;
  /** `config.workspace_dir` of the spec: project workspaces live below it. */
  workspaceDir: string;
  databaseUrl: string;
  /** Where the data lives: the embedded SQLite file (default) or PostgreSQL (DATABASE_URL=postgres://…). */
  database: { dialect: 'sqlite'; path: string } | { dialect: 'postgresql'; url: string };
  /**
   * Absolute path of the SQLite file. On PostgreSQL, the file SQLite would use: nothing is
   * stored there, and it stays hidden from agents like the real one.
   */
  databasePath: string;
  slack: SlackConfig;
  anthropic: AnthropicConfig;
  chat: { perProjectChannels: { autoCreate: boolean } };
  autoTask: {
    enabled: boolean;
    useLlmParser: boolean;
    maxStepsPerPlan: number;
    maxPlanDepth: number;
    planFilePatterns?: string[];
  };
  /** Slack user ids allowed to run admin commands; empty means everyone. */
  admins: string[];
  /** Where coding agents may go besides their workspace (see src/agents/confinement.ts). */
  agents: {
    allowUnsandboxed: boolean;
    /** Hosts sandboxed shell commands may reach; empty means the built-in registry and forge list. */
    allowedDomains: string[];
    extraDirs: string[];
    /** Agents the daemon keeps in its default pool (`AQ_AGENTS`); 0 leaves agents to create_agent. */
    poolSize: number;
    /** Questions and permission requests of agents (src/orchestrator/agent-requests.ts). */
    ask: AskConfig;
    /** Whether the app runs agents itself (`AQ_LOCAL_AGENTS`, default true); false leaves them to `aq worker`s. */
    local: boolean;
    /** ACP agents create_agent may name (`AQ_AGENT_PROFILES`, default `<AQ_HOME>/agent-profiles.json` when it exists). */
    profiles: AgentProfile[];
    /** Where they are read from, whether or not the file exists (it is hidden from agents). */
    profilesFile: string;
  };
  /** Root of this app's own checkout, used by update_and_restart. */
  appRoot: string;
  /** The `.env` files this process may have read (loadDotEnv): the one found from where it started, and its checkout's. */
  dotEnvFiles: string[];
}

export interface AskConfig {
  /**
   * Whether agents may ask people (`AQ_ASK_PEOPLE`; default: when Slack is configured). When
   * true, AskUserQuestion is offered and tool calls outside the project's policy wait for an
   * answer; when false, questions are not offered and such calls are denied at once.
   */
  people: boolean;
  /** How long a question or permission request waits for an answer (`AQ_ASK_TIMEOUT_SECONDS`). */
  timeoutMs: number;
  /** What an unanswered request does (`AQ_ASK_TIMEOUT_ACTION`): the agent goes on without it, or the task is blocked. */
  onTimeout: 'skip' | 'block';
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const booleanText = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => ['', '1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'].includes(v), {
    message: 'must be true or false',
  })
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

const portText = z
  .string()
  .trim()
  .regex(/^\d+$/, { message: 'must be a whole number between 1 and 65535' })
  .transform(Number)
  .refine((n) => n >= 1 && n <= 65535, { message: 'must be a whole number between 1 and 65535' });

const agentCountText = z
  .string()
  .trim()
  .regex(/^\d+$/, { message: 'must be a whole number between 0 and 100' })
  .transform(Number)
  .refine((n) => n <= 100, { message: 'must be a whole number between 0 and 100' });

const secondsText = z
  .string()
  .trim()
  .regex(/^\d+$/, { message: 'must be a whole number of seconds between 1 and 604800 (a week)' })
  .transform(Number)
  .refine((n) => n >= 1 && n <= 604_800, { message: 'must be a whole number of seconds between 1 and 604800 (a week)' });

const timeoutActionText = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => v === 'skip' || v === 'block', { message: 'must be skip or block' })
  .transform((v) => v as 'skip' | 'block');

const urlText = z
  .string()
  .trim()
  .refine((v) => /^https?:\/\/[^\s]+$/i.test(v), { message: 'must be an http:// or https:// URL' });

/** Where `.env` is looked for: the current directory, then the app's own checkout. */
function dotEnvFile(cwd: string): string | null {
  for (const dir of [cwd, appRootDir()]) {
    const file = path.join(dir, '.env');
    if (existsSync(file)) return file;
  }
  return null;
}

/** Loads the `.env` found from `cwd` into process.env, never overriding a variable already set. */
export function loadDotEnv(cwd = process.cwd()): string | null {
  const file = dotEnvFile(cwd);
  if (file) dotenv.config({ path: file, quiet: true });
  return file;
}

/** `env` with what loadDotEnv would add to it from the `.env` found from `cwd`, without touching process.env. */
export function withDotEnv(env: Record<string, string>, cwd: string): Record<string, string> {
  const file = dotEnvFile(cwd);
  return file ? { ...dotenv.parse(readFileSync(file)), ...env } : env;
}

export function appRootDir(): string {
  // src/config.ts and dist/src/config.js both sit one or two folders below the root.
  let dir = __dirname;
  for (let i = 0; i < 4; i++) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  return process.cwd();
}

function expandHome(p: string): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/')) return path.join(os.homedir(), p.slice(2));
  return p;
}

function read(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function parseVar<T>(env: NodeJS.ProcessEnv, name: string, schema: z.ZodType<T>, fallback: T): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const why = parsed.error.issues[0]?.message ?? 'is not valid';
    throw new ConfigError(`${name} ${why} (got ${JSON.stringify(raw)}).`);
  }
  return parsed.data;
}

/** postgres://user:password@host:port/database (or postgresql://…), checked for a database name. */
function isPostgresUrl(url: string): boolean {
  if (!/^postgres(ql)?:\/\//i.test(url)) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('DATABASE_URL must look like postgres://user:password@host:5432/database (it could not be read as a URL).');
  }
  if (!parsed.hostname || parsed.pathname.replace(/^\//, '') === '') {
    throw new ConfigError('DATABASE_URL must name a host and a database, like postgres://user:password@host:5432/database.');
  }
  try {
    synchronousCommitOf(url);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  return true;
}

function sqlitePathFromUrl(url: string, home: string): string {
  const match = /^sqlite:(?:\/\/)?(.+)$/i.exec(url);
  if (!match) {
    throw new ConfigError(`DATABASE_URL must look like sqlite:/path/to/file.db (got ${JSON.stringify(url)}).`);
  }
  const file = expandHome(match[1]);
  return path.isAbsolute(file) ? file : path.resolve(home, file);
}

/** Builds the application config from environment variables, with the documented defaults. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const home = path.resolve(expandHome(read(env, 'AQ_HOME') ?? path.join(os.homedir(), '.agent-queue')));
  const workspaceDir = path.resolve(home, expandHome(read(env, 'AQ_WORKSPACE_DIR') ?? path.join(home, 'workspaces')));
  const databaseUrl = read(env, 'DATABASE_URL') ?? `sqlite:${path.join(home, 'agent-queue.db')}`;
  const postgres = isPostgresUrl(databaseUrl);
  const databasePath = postgres ? path.join(home, 'agent-queue.db') : sqlitePathFromUrl(databaseUrl, home);
  const profilesFile = agentProfilesPath(env);
  const appRoot = appRootDir();
  const database: AppConfig['database'] = postgres
    ? { dialect: 'postgresql', url: databaseUrl }
    : { dialect: 'sqlite', path: databasePath };

  const apiUrl = parseVar<string | undefined>(env, 'SLACK_API_URL', urlText, undefined);
  const publicUrl = parseVar<string | undefined>(env, 'AQ_PUBLIC_URL', urlText, undefined)?.replace(/\/+$/, '');
  const baseUrl = parseVar<string | undefined>(env, 'ANTHROPIC_BASE_URL', urlText, undefined);

  const admins = listOf(read(env, 'AQ_ADMINS'));
  const badAdmin = admins.find((id) => !/^[UW][A-Z0-9]+$/.test(id));
  if (badAdmin) {
    throw new ConfigError(`AQ_ADMINS must list Slack user ids such as U012ABCDEF, separated by commas (got ${JSON.stringify(badAdmin)}).`);
  }

  return {
    home,
    envDigest: configDigest(env),
    workspaceDir,
    databaseUrl,
    database,
    databasePath,
    slack: {
      botToken: read(env, 'SLACK_BOT_TOKEN'),
      appToken: read(env, 'SLACK_APP_TOKEN'),
      signingSecret: read(env, 'SLACK_SIGNING_SECRET'),
      port: parseVar(env, 'PORT', portText, 3000),
      webhookPort: env.AQ_WEBHOOK_PORT ? parseVar(env, 'AQ_WEBHOOK_PORT', portText, 3000) : undefined,
      apiUrl: apiUrl === undefined ? undefined : apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`,
      notifyChannel: read(env, 'SLACK_NOTIFY_CHANNEL'),
      publicUrl,
    },
    anthropic: {
      apiKey: read(env, 'ANTHROPIC_API_KEY'),
      baseUrl,
      model: read(env, 'AQ_CHAT_MODEL') ?? DEFAULT_CHAT_MODEL,
    },
    chat: { perProjectChannels: { autoCreate: parseVar(env, 'AQ_AUTO_CREATE_CHANNELS', booleanText, false) } },
    autoTask: {
      enabled: parseVar(env, 'AQ_AUTO_TASK', booleanText, true),
      useLlmParser: parseVar(env, 'AQ_USE_LLM_PARSER', booleanText, false),
      maxStepsPerPlan: 20,
      maxPlanDepth: 1,
    },
    admins,
    agents: {
      allowUnsandboxed: parseVar(env, 'AQ_ALLOW_UNSANDBOXED', booleanText, false),
      allowedDomains: listOf(read(env, 'AQ_AGENT_ALLOWED_DOMAINS')),
      extraDirs: agentExtraDirs(env, home, workspaceDir),
      poolSize: parseVar(env, 'AQ_AGENTS', agentCountText, 2),
      ask: {
        people: parseVar(env, 'AQ_ASK_PEOPLE', booleanText, read(env, 'SLACK_BOT_TOKEN') !== undefined),
        timeoutMs: parseVar(env, 'AQ_ASK_TIMEOUT_SECONDS', secondsText, 3600) * 1000,
        onTimeout: parseVar(env, 'AQ_ASK_TIMEOUT_ACTION', timeoutActionText, 'skip'),
      },
      local: parseVar(env, 'AQ_LOCAL_AGENTS', booleanText, true),
      profiles: agentProfiles(profilesFile, read(env, 'AQ_AGENT_PROFILES') !== undefined),
      profilesFile,
    },
    appRoot,
    dotEnvFiles: [...new Set([dotEnvFile(process.cwd()), path.join(appRoot, '.env')].filter((file) => file !== null))],
  };
}

/** The profiles in `file`; none when it is the default one and absent (a file named by AQ_AGENT_PROFILES must exist). */
function agentProfiles(file: string, named: boolean): AgentProfile[] {
  if (!named && !existsSync(file)) return [];
  try {
    return loadAgentProfiles(file);
  } catch (err) {
    if (err instanceof AgentProfilesError) throw new ConfigError(err.message);
    throw err;
  }
}

/**
 * AQ_AGENT_EXTRA_DIRS: folders every agent may also write. One that holds the app's own folder or
 * the workspace folder would open to each agent the other agents' temporary folders and every
 * project's workspaces (the app's files in it stay hidden, but not those): refused.
 */
function agentExtraDirs(env: NodeJS.ProcessEnv, home: string, workspaceDir: string): string[] {
  const dirs = listOf(read(env, 'AQ_AGENT_EXTRA_DIRS')).map((dir) => path.resolve(expandHome(dir)));
  for (const dir of dirs) {
    const holds = isWithin(home, dir)
      ? `the app's folder ${home} (AQ_HOME)`
      : isWithin(workspaceDir, dir)
        ? `the workspace folder ${workspaceDir}`
        : null;
    if (holds) {
      throw new ConfigError(
        `AQ_AGENT_EXTRA_DIRS names ${dir}, which holds ${holds}: every agent could reach the others' work there. Name a folder outside it.`,
      );
    }
  }
  return dirs;
}

/** A comma- or space-separated list. */
function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);
}
