/** Variables that must never reach commands people or models run (their output goes to Slack). */
const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|PRIVATE_KEY|CREDENTIAL)/i;
const SECRET_PREFIXES = ['SLACK_', 'ANTHROPIC_', 'AQ_ADMINS'];
const SECRET_EXACT = new Set(['DATABASE_URL']);

export function isSecretVariable(name: string): boolean {
  return SECRET_NAME.test(name) || SECRET_EXACT.has(name) || SECRET_PREFIXES.some((p) => name.startsWith(p));
}

/** A copy of `env` without tokens, keys and passwords. */
export function withoutSecrets(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isSecretVariable(name)));
}
