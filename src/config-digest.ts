import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The environment variables src/config.ts builds the configuration from, plus HOME (a `~` in
 * a path and the default AQ_HOME expand to it). test/integration/cli/app-socket.test.ts fails
 * when loadConfig reads a variable missing here.
 */
export const CONFIG_VARIABLES = [
  'HOME',
  'AQ_HOME',
  'AQ_WORKSPACE_DIR',
  'DATABASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'AQ_ADMINS',
  'AQ_AGENTS',
  'AQ_AGENT_ALLOWED_DOMAINS',
  'AQ_AGENT_EXTRA_DIRS',
  'AQ_AGENT_PROFILES',
  'AQ_ALLOW_UNSANDBOXED',
  'AQ_ASK_PEOPLE',
  'AQ_ASK_TIMEOUT_ACTION',
  'AQ_ASK_TIMEOUT_SECONDS',
  'AQ_AUTO_CREATE_CHANNELS',
  'AQ_AUTO_TASK',
  'AQ_CHAT_MODEL',
  'AQ_LOCAL_AGENTS',
  'AQ_PUBLIC_URL',
  'AQ_USE_LLM_PARSER',
  'AQ_WEBHOOK_PORT',
  'PORT',
  'SLACK_API_URL',
  'SLACK_APP_TOKEN',
  'SLACK_BOT_TOKEN',
  'SLACK_NOTIFY_CHANNEL',
  'SLACK_SIGNING_SECRET',
] as const;

function expandHome(p: string): string {
  if (p === '~') return os.homedir();
  return p.startsWith('~/') ? path.join(os.homedir(), p.slice(2)) : p;
}

/** AQ_HOME as src/config.ts reads it from the environment. */
export function homeFrom(env: Readonly<Record<string, string | undefined>>): string {
  return path.resolve(expandHome(env.AQ_HOME?.trim() || path.join(os.homedir(), '.agent-queue')));
}

/** The agent profiles file the configuration loads: the one AQ_AGENT_PROFILES names, else the one in AQ_HOME. */
export function agentProfilesPath(env: Readonly<Record<string, string | undefined>>): string {
  const named = env.AQ_AGENT_PROFILES?.trim();
  return named ? path.resolve(expandHome(named)) : path.join(homeFrom(env), 'agent-profiles.json');
}

/** The agent profiles file's bytes, or none. */
function profilesFile(env: Readonly<Record<string, string | undefined>>): Buffer {
  try {
    return readFileSync(agentProfilesPath(env));
  } catch {
    return Buffer.alloc(0);
  }
}

/**
 * A one-way digest of what the configuration is built from: the variables as the config reads
 * them (trimmed; empty is unset) and the agent profiles file. Two processes with the same digest
 * configure themselves the same. `aq` sends it to the app instead of its environment, so its
 * secrets never leave the process. Only Node's own modules here: the fast `aq` client loads this file.
 */
export function configDigest(env: Readonly<Record<string, string | undefined>>): string {
  const hash = createHash('sha256');
  for (const name of CONFIG_VARIABLES) {
    const value = env[name]?.trim();
    // Length-prefixed, so no two different inputs hash the same bytes.
    if (value) hash.update(`${name}=${Buffer.byteLength(value)}:${value}\n`);
  }
  const profiles = profilesFile(env);
  hash.update(`profiles=${profiles.length}:`);
  hash.update(profiles);
  return hash.digest('hex');
}
