/**
 * Which environment variables hold secrets, by pattern rather than by a list of names: a new
 * `AQ_*_TOKEN` or a database URL with a password is caught without anyone remembering to list it.
 */

/** Words that make a variable's name a secret wherever they appear (GITHUB_TOKEN, DB_PASSWD). */
const SECRET_WORD = /TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|CREDS/i;
/** KEY ending a word (API_KEY, APIKEY, AWS_ACCESS_KEY_ID, PRIVATE_KEYS), not KEYBOARD or KEYMAP. */
const KEY_WORD = /KEYS?(?=$|[_0-9])/i;
/** Connection strings that carry credentials by custom (DATABASE_URL, SENTRY_DSN). */
const CONNECTION_NAME = /^DATABASE_URL$|(^|_)DSN$|WEBHOOK/i;
/** git settings given through the environment (may carry an auth header); kept or dropped together. */
const GIT_CONFIG_ENV = /^GIT_CONFIG_(COUNT|PARAMETERS|KEY_\d+|VALUE_\d+)$/;
/** The app's own settings families: never handed to commands people or models run. */
const APP_PREFIXES = ['SLACK_', 'ANTHROPIC_', 'AQ_ADMINS'];

/** A URL with a password in it: `postgres://user:pw@host/db`, `https://user:token@proxy`. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:([^\s/@]+)@/i;
/** Values shaped like well-known tokens, whatever the variable is called. */
const TOKEN_VALUE = /(?<![A-Za-z0-9])(?:xox[abposre]-|xapp-|sk-ant-|gh[pousr]_|github_pat_|glpat-)[A-Za-z0-9_-]{6,}/;

/** Whether a variable's name says it holds a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_WORD.test(name) || KEY_WORD.test(name) || CONNECTION_NAME.test(name) || GIT_CONFIG_ENV.test(name);
}

/** Whether a value is a secret by its shape: a URL with a password, or a known token format. */
export function isSecretValue(value: string | undefined): boolean {
  if (!value) return false;
  return URL_WITH_PASSWORD.test(value) || TOKEN_VALUE.test(value);
}

/** Whether a variable must never reach commands people or models run (their output goes to Slack). */
export function isSecretVariable(name: string, value?: string): boolean {
  return isSecretName(name) || APP_PREFIXES.some((p) => name.startsWith(p)) || isSecretValue(value);
}

/**
 * How the app's own Node process was started: its runtime options (a preload of the app's, a
 * debugger port), its mode (NODE_ENV=production, under which an agent's `npm install` would leave
 * out the project's devDependencies, its test tools among them) and the npm script that ran it
 * (`npm start` sets npm_lifecycle_*, npm_package_*, INIT_CWD). Handed on, every Node program a
 * command runs would start the same way, and fail outright where an agent's sandbox hides the
 * preloaded file.
 */
const APP_RUNTIME =
  /^(NODE_OPTIONS|NODE_ENV|INIT_CWD|npm_command|npm_execpath|npm_node_execpath|npm_config_local_prefix)$|^npm_(lifecycle|package)_/;

/** Whether a variable describes how the app's own process was started (APP_RUNTIME). */
function isAppRuntimeVariable(name: string): boolean {
  return APP_RUNTIME.test(name);
}

/**
 * The environment for commands people, hooks and models run (agents, hook steps, run_command,
 * the landing's checks):
 * `env` without tokens, keys, passwords and credentialed URLs, and without the app's own runtime
 * settings.
 */
export function commandEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => !isSecretVariable(name, value) && !isAppRuntimeVariable(name)));
}

/** Shorter values are too likely to be ordinary words ("true", "admin") to be hunted in text. */
const MIN_SECRET_LENGTH = 6;

/**
 * The secret values among `env` (by the same patterns), to be found and redacted in text:
 * whole values, and the password inside a credentialed URL (it may be shown on its own).
 */
export function secretValuesOf(env: Record<string, string | undefined>): string[] {
  const found = new Set<string>();
  for (const [name, raw] of Object.entries(env)) {
    const value = raw?.trim();
    // A database URL or git setting counts only when it carries a password (isSecretValue).
    const namedSecret = SECRET_WORD.test(name) || (KEY_WORD.test(name) && !GIT_CONFIG_ENV.test(name));
    if (!value || !(namedSecret || isSecretValue(value))) continue;
    found.add(value);
    for (const match of value.matchAll(new RegExp(URL_WITH_PASSWORD, 'gi'))) {
      found.add(match[1]);
      try {
        found.add(decodeURIComponent(match[1]));
      } catch {
        // A malformed escape: the raw form is already listed.
      }
    }
  }
  return [...found].filter((v) => v.length >= MIN_SECRET_LENGTH);
}

export const REDACTED = '[redacted]';

/** `text` with every occurrence of the given secret values replaced by `[redacted]`. */
export function redactValues(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so a URL goes whole before its password alone is looked for.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}
