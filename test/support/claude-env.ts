import { mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The environment for running the real Claude Code CLI (through the Agent SDK's `query()`)
 * offline against a FakeAnthropic. The SDK's `env` option REPLACES process.env, so this is the
 * whole environment: PATH for git/sh, HOME and CLAUDE_CONFIG_DIR inside `tmpDir` (sessions and
 * settings never touch the real ~/.claude), the fake's URL and a fake key, no telemetry, no
 * auto-update, no error reporting, no non-essential traffic (no title-generation call, no
 * HEAD /api/hello), and no retries (the default of 10 takes minutes on a persistent error).
 * IS_SANDBOX=1 lets bypassPermissions run as root (CI runs as root).
 */
export function makeClaudeEnv(fakeUrl: string, tmpDir: string, extra: Record<string, string> = {}): Record<string, string> {
  const home = path.join(tmpDir, 'claude-home');
  const configDir = path.join(tmpDir, 'claude-config');
  mkdirSync(home, { recursive: true });
  mkdirSync(configDir, { recursive: true });
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_BASE_URL: fakeUrl,
    ANTHROPIC_API_KEY: 'sk-ant-fake',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    IS_SANDBOX: '1',
    // git commits made by the agent need an identity; HOME is empty so give it one here.
    GIT_AUTHOR_NAME: 'Fake Agent',
    GIT_AUTHOR_EMAIL: 'agent@example.com',
    GIT_COMMITTER_NAME: 'Fake Agent',
    GIT_COMMITTER_EMAIL: 'agent@example.com',
    GIT_TERMINAL_PROMPT: '0',
    ...extra,
  };
}
