import { runShell } from '../../../src/util/run-shell';
import { isSecretVariable, withoutSecrets } from '../../../src/util/safe-env';

describe('secrets never reach commands', () => {
  it('recognises tokens, keys, passwords and the Slack/Anthropic settings', () => {
    for (const name of [
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
      'ANTHROPIC_API_KEY',
      'GITHUB_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'DB_PASSWORD',
      'DATABASE_URL',
      'NPM_TOKEN',
    ]) {
      expect(isSecretVariable(name)).toBe(true);
    }
    for (const name of ['PATH', 'HOME', 'LANG', 'AQ_HOME', 'NODE_ENV', 'TERM']) expect(isSecretVariable(name)).toBe(false);
    expect(withoutSecrets({ PATH: '/bin', SLACK_BOT_TOKEN: 'xoxb-1' })).toEqual({ PATH: '/bin' });
  });

  it('runs shell commands without them', async () => {
    process.env.SLACK_BOT_TOKEN = 'xoxb-must-not-leak';
    process.env.ANTHROPIC_API_KEY = 'sk-must-not-leak';
    try {
      const run = await runShell('env', { cwd: '/', timeoutMs: 5000, maxStdout: 100_000, maxStderr: 1000 });
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toContain('PATH=');
      expect(run.stdout).not.toContain('must-not-leak');
    } finally {
      delete process.env.SLACK_BOT_TOKEN;
      delete process.env.ANTHROPIC_API_KEY;
    }
  });
});
