import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GitError } from './git-errors';

/*
 * A clone URL's user name and password (`https://bot:token@host/repo.git`) kept out of the
 * repository's settings: git writes the URL it cloned into `.git/config`, where an agent working
 * in the clone could read the token. The clone gets the URL without them, and a credential
 * helper of its own (in those settings, which agents cannot change) that answers git's requests
 * for that URL from a file in AQ_HOME, hidden from agents like the app's other files.
 */

/** An http(s) URL without its user name and password, and what they were (decoded). */
export interface UrlCredentials {
  url: string;
  username: string;
  password: string;
}

/** The credentials in an http(s) URL, or null when it has none (or is no such URL). */
export function splitCredentials(given: string): UrlCredentials | null {
  let parsed: URL;
  try {
    parsed = new URL(given);
  } catch {
    return null;
  }
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || (!parsed.username && !parsed.password)) return null;
  const username = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.toString(), username, password };
}

/** `url` as a clone made from it names its origin: without an http(s) user name and password. */
export function withoutCredentials(url: string): string {
  return splitCredentials(url)?.url ?? url;
}

/** The file in `dir` that holds the credentials of the clone at `clonePath` for `url` (without them). */
export function credentialFile(dir: string, clonePath: string, url: string): string {
  const name = createHash('sha256')
    .update(`${path.resolve(clonePath)}\n${url}`)
    .digest('hex');
  return path.join(dir, name.slice(0, 24));
}

/**
 * `url` as git matches it against a `credential.<url>` setting: git compares the URL it fetches
 * with the path's reserved characters (`=`, `@`, `+`, `,` and the rest) percent-encoded, so a
 * setting naming them as they are would never apply. Encoded, the path holds no `=` either, where
 * `clone -c key=value` would cut the key.
 */
export function credentialScope(url: string): string {
  const parsed = new URL(url);
  const path = parsed.pathname.replace(/[!$&'()*+,;=:@]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${parsed.origin}${path}${parsed.search}${parsed.hash}`;
}

function shellQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Writes the credentials of the clone at `clonePath` to a file of its own in `dir` (readable by
 * this user only: two clones of one URL may hold different tokens) and returns the git settings
 * that make the clone ask that file for this URL alone: the helper list reset first, so the URL's
 * own credentials win over any helper of the user's, as they did when they were part of the URL.
 * The helper answers `get` only, so a refused push never erases the file.
 */
export async function credentialHelperSettings(
  credentials: UrlCredentials,
  dir: string,
  clonePath: string,
): Promise<Array<[string, string]>> {
  // A line break would add lines of its own to what the helper answers git.
  if (/[\r\n\0]/.test(credentials.username + credentials.password)) {
    throw new GitError("A clone URL's user name and password cannot hold a line break.");
  }
  const file = credentialFile(dir, clonePath, credentials.url);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(file, `username=${credentials.username}\npassword=${credentials.password}\n`, { mode: 0o600 });
  const scope = `credential.${credentialScope(credentials.url)}`;
  return [
    [`${scope}.helper`, ''],
    [`${scope}.helper`, `!f() { test "$1" = get && cat ${shellQuoted(file)}; }; f`],
    [`${scope}.useHttpPath`, 'true'],
  ];
}
