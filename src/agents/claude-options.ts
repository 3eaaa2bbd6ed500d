import path from 'node:path';
import type { AppConfig } from '../config';
import type { ClaudeCodeOptions } from './claude-code';

/** The Claude Code adapter's settings from the app's configuration. */
export function claudeCodeOptions(config: AppConfig, log: (message: string) => void): ClaudeCodeOptions {
  const database = config.databasePath;
  return {
    apiKey: config.anthropic.apiKey,
    baseUrl: config.anthropic.baseUrl,
    log,
    confinement: {
      allowUnsandboxed: config.agents.allowUnsandboxed,
      extraDirs: config.agents.extraDirs,
      ...(config.agents.allowedDomains.length > 0 && { allowedDomains: config.agents.allowedDomains }),
    },
    // The queue's own state and secrets stay out of reach of sandboxed commands.
    hiddenPaths: [database, `${database}-wal`, `${database}-shm`, path.join(config.appRoot, '.env')],
  };
}
