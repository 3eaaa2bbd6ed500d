import { mkdir, writeFile } from 'node:fs/promises';
import { unixService } from './answering-server';
import path from 'node:path';
import { cliLogPath } from '../../src/cli/log-file';
import type { AppConfig } from '../../src/config';
import { APP_SOCKET_NAME, agentTempDir, gitCredentialsDir } from '../../src/util/app-home-files';

/** What the ordinary file beside the app's own files holds. */
export const ORDINARY_TEXT = 'an ordinary file stays readable';

export interface AppFilesInHome {
  /** A file of AQ_HOME that is not the app's: confinement leaves it readable. */
  ordinary: string;
  /**
   * The app's own files (the agent profiles, aq's log, the database, a credential taken out of a
   * clone URL), each with the secret but the database.
   */
  hidden: string[];
  /** The app's socket, listening, answering the secret. */
  socket: string;
  close(): Promise<void>;
}

/**
 * The files a running app and `aq` keep in AQ_HOME, written with `secret` in them, and an
 * ordinary file beside them: what a test of confinement has an agent try to read.
 */
export async function writeAppFiles(config: AppConfig, secret: string): Promise<AppFilesInHome> {
  const log = cliLogPath(config.home);
  await writeFile(config.agents.profilesFile, JSON.stringify({ profiles: [{ env: { OPENAI_API_KEY: secret } }] }));
  await mkdir(path.dirname(log), { recursive: true });
  await writeFile(log, `a failure detail: ${secret}\n`);
  const credential = path.join(gitCredentialsDir(config.home), 'a-clone');
  await mkdir(path.dirname(credential), { recursive: true });
  await writeFile(credential, `username=bot\npassword=${secret}\n`);
  // What another (ACP) agent left in its temporary folder.
  const agentTemp = path.join(agentTempDir(config.home), 'aq-acp-other', 'draft.txt');
  await mkdir(path.dirname(agentTemp), { recursive: true });
  await writeFile(agentTemp, `another agent's draft: ${secret}\n`);
  const ordinary = path.join(config.home, 'notes.txt');
  await writeFile(ordinary, `${ORDINARY_TEXT}\n`);
  const socket = path.join(config.home, APP_SOCKET_NAME);
  const service = await unixService(socket, secret);
  return {
    ordinary,
    hidden: [config.agents.profilesFile, log, config.databasePath, credential, agentTemp],
    socket,
    close: service.close,
  };
}
