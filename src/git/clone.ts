import { mkdir, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { assertValidBranchName } from './branch-names';
import { readCloneSource, redactCredentials } from './clone-url';
import { GitError, toGitError } from './git-errors';
import type { GitManager } from './git-manager';
import { credentialFile, credentialHelperSettings, splitCredentials } from './remote-credentials';

/*
 * Clones, and the credentials of their origin: with a credentials folder (the app's:
 * `$AQ_HOME/git-credentials`), an http(s) URL's user name and password are kept out of the clone's
 * settings (remote-credentials.ts); without one a clone keeps them in its URL.
 */

export async function cloneRepository(
  git: GitManager,
  url: string,
  dest: string,
  options: { branch?: string; credentialsDir?: string },
): Promise<void> {
  // Whoever calls, some sources never reach git (ext::, a leading "-"); who may clone what is the commands' rule.
  const source = readCloneSource(url);
  if (source.kind === 'refused') throw new GitError(source.reason);
  if (options.branch) assertValidBranchName(options.branch);
  const target = resolve(dest);
  await mkdir(dirname(target), { recursive: true });
  const credentials = options.credentialsDir ? splitCredentials(url) : null;
  const settings = credentials ? await credentialHelperSettings(credentials, options.credentialsDir!, target) : [];
  // `clone -c` writes each setting into the new repository before it fetches, and uses it for the fetch.
  const kept = settings.flatMap(([key, value]) => ['-c', `${key}=${value}`]);
  const args = ['clone', ...kept, ...(options.branch ? ['--branch', options.branch] : []), '--', credentials?.url ?? url, target];
  try {
    await git.run(dirname(target), args);
  } catch (err) {
    throw toGitError(err, `Could not clone ${redactCredentials(url)}`);
  }
}

/**
 * Moves the credentials of origin's URL (`url`, as `getRemoteUrl` read it) out of the settings of
 * a clone made before clones kept them apart, or linked from elsewhere: the same helper a new
 * clone gets, then origin without them. Nothing to do (and no git process) otherwise.
 */
export async function keepOriginCredentialsApart(git: GitManager, path: string, url: string, credentialsDir?: string): Promise<void> {
  const credentials = credentialsDir ? splitCredentials(url) : null;
  if (!credentials) return;
  for (const [key, value] of await credentialHelperSettings(credentials, credentialsDir!, path)) {
    await git.run(path, ['config', '--add', key, value]);
  }
  await git.run(path, ['remote', 'set-url', 'origin', credentials.url]);
}

/** Deletes the credential file the clone at `path` reads origin's credentials from, if any (before its folder goes). */
export async function forgetOriginCredentials(git: GitManager, path: string, credentialsDir?: string): Promise<void> {
  const url = credentialsDir ? await git.getRemoteUrl(path).catch(() => null) : null;
  if (url) await rm(credentialFile(credentialsDir!, path, url), { force: true });
}
