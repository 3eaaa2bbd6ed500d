import type { AppConfig } from '../config';
import { redactValues, secretValuesOf } from '../util/safe-env';

/** Text in, the same text with the app's own secret values replaced by `[redacted]`. */
export type Redact = (text: string) => string;

const redactors = new WeakMap<AppConfig, Redact>();

/**
 * The redactor for the app's own secrets: the values of its configuration's tokens, keys and
 * credentialed URLs, of any variable of its environment named or shaped like a secret
 * (src/util/safe-env.ts), and of such variables in the agent profiles' `env` (an ACP agent holds
 * its own key, and prints it if told to), collected once per configuration.
 */
export function secretRedactor(config: AppConfig, env: NodeJS.ProcessEnv = process.env): Redact {
  const known = redactors.get(config);
  if (known) return known;
  const secrets = [
    ...new Set([
      ...secretValuesOf(env),
      ...secretValuesOf({
        SLACK_BOT_TOKEN: config.slack.botToken,
        SLACK_APP_TOKEN: config.slack.appToken,
        SLACK_SIGNING_SECRET: config.slack.signingSecret,
        ANTHROPIC_API_KEY: config.anthropic.apiKey,
        DATABASE_URL: config.databaseUrl,
      }),
      ...config.agents.profiles.flatMap((profile) => secretValuesOf(profile.env)),
    ]),
  ];
  const redact: Redact = secrets.length === 0 ? (text) => text : (text) => redactValues(text, secrets);
  redactors.set(config, redact);
  return redact;
}

/** Every string inside a JSON-like value, redacted (tool inputs shown to people). */
export function redactDeep<T>(value: T, redact: Redact): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, redact)])) as T;
  }
  return value;
}
