import path from 'node:path';
import type { AppConfig } from '../config';
import type { AcpOptions } from './acp';

/** The ACP adapter's settings from the app's configuration (the same confinement as Claude Code's). */
export function acpOptions(config: AppConfig, log: (message: string) => void): AcpOptions {
  const database = config.databasePath;
  return {
    profiles: config.agents.profiles,
    log,
    confinement: { allowUnsandboxed: config.agents.allowUnsandboxed, extraDirs: config.agents.extraDirs },
    hiddenPaths: [database, `${database}-wal`, `${database}-shm`, path.join(config.appRoot, '.env')],
  };
}
