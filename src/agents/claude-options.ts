import type { AppConfig } from '../config';
import type { ClaudeCodeOptions } from './claude-code';
import { appPrivatePaths } from './confinement';
import { agentTempDir } from '../util/app-home-files';

/** The Claude Code adapter's settings from the app's configuration. */
export function claudeCodeOptions(config: AppConfig, log: (message: string) => void): ClaudeCodeOptions {
  return {
    apiKey: config.anthropic.apiKey,
    baseUrl: config.anthropic.baseUrl,
    log,
    confinement: {
      allowUnsandboxed: config.agents.allowUnsandboxed,
      extraDirs: config.agents.extraDirs,
      workspacesRoot: config.workspaceDir,
      ...(config.agents.allowedDomains.length > 0 && { allowedDomains: config.agents.allowedDomains }),
    },
    // The queue's own state and secrets stay out of reach of sandboxed commands.
    hiddenPaths: appPrivatePaths(config),
    tempRoot: agentTempDir(config.home),
  };
}
