import path from 'node:path';

/**
 * Names of the files the app and `aq` keep in AQ_HOME for themselves, read by the layers that
 * write them (src/cli) and by confinement, which hides them from agents (src/agents/confinement.ts).
 * Only Node's own modules here: the fast `aq` client loads this file.
 */

/** The socket through which `aq` asks the running app (src/cli/app-socket-protocol.ts). */
export const APP_SOCKET_NAME = 'aq.sock';

/** The folder of aq's log (src/cli/log-file.ts). */
export function logsDir(home: string): string {
  return path.join(home, 'logs');
}

/**
 * The folder of the agents' temporary folders, one a run (src/agents/acp.ts, claude-code.ts):
 * among the app's own files, so no agent, shell or check reads another agent's.
 */
export function agentTempDir(home: string): string {
  return path.join(home, 'agent-tmp');
}

/** The folder of the credentials taken out of clone URLs, one file each (src/git/remote-credentials.ts). */
export function gitCredentialsDir(home: string): string {
  return path.join(home, 'git-credentials');
}
