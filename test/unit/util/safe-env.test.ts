import { runShell } from '../../../src/util/run-shell';
import { isSecretVariable, redactValues, secretValuesOf, commandEnvironment } from '../../../src/util/safe-env';

describe('secrets never reach commands', () => {
  it('recognises tokens, keys, passwords and credentials by the words in their names', () => {
    for (const name of [
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
      'ANTHROPIC_API_KEY',
      'GITHUB_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_ACCESS_KEY_ID',
      'DB_PASSWORD',
      'DEPLOY_PASSWD',
      'DATABASE_URL',
      'NPM_TOKEN',
      'AQ_SOMETHING_TOKEN',
      'AQ_MIRROR_APIKEY',
      'PAYMENTS_KEY',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'SENTRY_DSN',
      'GIT_CONFIG_KEY_0',
    ]) {
      expect([name, isSecretVariable(name)]).toEqual([name, true]);
    }
    for (const name of ['PATH', 'HOME', 'LANG', 'AQ_HOME', 'NODE_ENV', 'TERM', 'XKB_DEFAULT_KEYMAP', 'KEYBOARD_LAYOUT']) {
      expect([name, isSecretVariable(name, 'plain')]).toEqual([name, false]);
    }
    expect(commandEnvironment({ PATH: '/bin', SLACK_BOT_TOKEN: 'xoxb-1' })).toEqual({ PATH: '/bin' });
  });

  it("keeps how the app's own process was started (its Node options and mode, the npm script that ran it) from commands", () => {
    const started = {
      PATH: '/bin',
      NODE_ENV: 'production',
      NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt',
      npm_config_cafile: '/etc/ssl/certs/ca-certificates.crt',
      NODE_OPTIONS: '--require /srv/aq/tracing.js',
      INIT_CWD: '/srv/aq',
      npm_command: 'start',
      npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
      npm_node_execpath: '/usr/bin/node',
      npm_config_local_prefix: '/srv/aq',
      npm_lifecycle_event: 'start',
      npm_lifecycle_script: 'node dist/src/app.js',
      npm_package_json: '/srv/aq/package.json',
      npm_package_name: 'agent-queue-slack',
    };
    expect(commandEnvironment(started)).toEqual({
      PATH: '/bin',
      NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt',
      npm_config_cafile: '/etc/ssl/certs/ca-certificates.crt',
    });
  });

  it('recognises secrets by their value: credentialed URLs and well-known token formats', () => {
    expect(isSecretVariable('AQ_MIRROR', 'https://bot:pw-123@git.example.com/x.git')).toBe(true);
    expect(isSecretVariable('AQ_DB', 'postgres://aq:pw@db/aq')).toBe(true);
    expect(isSecretVariable('AQ_NOTIFY', 'xoxb-1234-abcdefgh')).toBe(true);
    expect(isSecretVariable('AQ_FORGE', 'ghp_abcdefghijklmnop')).toBe(true);
    expect(isSecretVariable('AQ_MIRROR', 'https://git.example.com/x.git')).toBe(false);
    expect(isSecretVariable('AQ_MIRROR', 'git@github.com:acme/x.git')).toBe(false);
  });

  it('collects the secret values to redact, and redacts them in text', () => {
    const values = secretValuesOf({
      DATABASE_URL: 'postgres://aq:pg-pass-1@db:5432/aq',
      AQ_SOMETHING_TOKEN: 'aq-token-123',
      SLACK_API_URL: 'http://127.0.0.1:9/api/',
      AQ_HOME: '/srv/aq',
      ANTHROPIC_BASE_URL: 'https://api.example.com',
      SHORT_TOKEN: 'abc',
    });
    expect(values.sort()).toEqual(['aq-token-123', 'pg-pass-1', 'postgres://aq:pg-pass-1@db:5432/aq'].sort());
    // A SQLite database URL holds no credential: its path stays readable.
    expect(secretValuesOf({ DATABASE_URL: 'sqlite:/srv/aq/agent-queue.db' })).toEqual([]);
    expect(redactValues('url postgres://aq:pg-pass-1@db:5432/aq and pg-pass-1, aq-token-123.', values)).toBe(
      'url [redacted] and [redacted], [redacted].',
    );
  });

  it('runs shell commands without them', async () => {
    process.env.SLACK_BOT_TOKEN = 'xoxb-must-not-leak';
    process.env.ANTHROPIC_API_KEY = 'sk-must-not-leak';
    process.env.AQ_MIRROR = 'https://bot:url-must-not-leak@git.example.com/x.git';
    try {
      const run = await runShell('env', { cwd: '/', timeoutMs: 5000, maxStdout: 100_000, maxStderr: 1000 });
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toContain('PATH=');
      expect(run.stdout).not.toContain('must-not-leak');
    } finally {
      delete process.env.SLACK_BOT_TOKEN;
      delete process.env.ANTHROPIC_API_KEY;
      delete process.env.AQ_MIRROR;
    }
  });
});
