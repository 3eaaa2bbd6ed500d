import type { AppConfig } from '../config';
import type { AcpOptions } from './acp';
import { appPrivatePaths } from './confinement';
import { agentTempDir } from '../util/app-home-files';

/** The ACP adapter's settings from the app's configuration (the same confinement as Claude Code's). */
export function acpOptions(config: AppConfig, log: (message: string) => void): AcpOptions {
  return {
    profiles: config.agents.profiles,
    log,
    confinement: {
      allowUnsandboxed: config.agents.allowUnsandboxed,
      extraDirs: config.agents.extraDirs,
      workspacesRoot: config.workspaceDir,
    },
    hiddenPaths: appPrivatePaths(config),
    tempRoot: agentTempDir(config.home),
  };
}
