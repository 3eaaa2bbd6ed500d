import { fileURLToPath } from 'node:url';

/**
 * The one reading of a clone source (add_repo, add_workspace, workspace provisioning and
 * GitManager.clone all use it), before git sees it:
 *
 * - `remote`: https://, ssh:// (also git+ssh://, ssh+git://) and scp-like `[user@]host:path`.
 * - `local`: a path of this host, or a file:// URL (`path` is then the folder it names). Cloning
 *   it copies a folder of the host, so it is judged like linking one (admins, and never system
 *   or credential folders).
 * - `other`: any other transport git knows (http://, git://, ftp://, …): admins only.
 * - `refused`: never handed to git, whoever asks: empty, leading `-` (read as an option), control
 *   characters, and `<helper>::<address>` remote-helper syntax (`ext::` runs a command).
 */
export type CloneSource =
  | { kind: 'remote'; url: string }
  | { kind: 'local'; url: string; path: string }
  | { kind: 'other'; url: string; scheme: string }
  | { kind: 'refused'; reason: string };

const REMOTE_SCHEMES = new Set(['https', 'ssh', 'git+ssh', 'ssh+git']);
const SCHEME_URL = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
const REMOTE_HELPER = /^[A-Za-z0-9][A-Za-z0-9+.-]*::/;
/** git's scp-like syntax: a host (with an optional user) and a colon before any slash. */
const SCP_LIKE = /^(?:[A-Za-z0-9._~-]+@)?(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(?!\/\/)/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const CONTROL = /[\x00-\x1f\x7f]/;

export function readCloneSource(given: string): CloneSource {
  const url = given.trim();
  if (!url) return { kind: 'refused', reason: 'A repository URL is empty.' };
  if (url.startsWith('-')) return { kind: 'refused', reason: 'A repository URL cannot start with "-" (git would read it as an option).' };
  if (CONTROL.test(url)) return { kind: 'refused', reason: 'A repository URL cannot contain control characters.' };
  if (REMOTE_HELPER.test(url)) {
    return { kind: 'refused', reason: `Remote-helper URLs (${url.split('::')[0]}::…) are not accepted; use an https or ssh URL.` };
  }
  const scheme = SCHEME_URL.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'file') {
    try {
      return { kind: 'local', url, path: fileURLToPath(url) };
    } catch {
      return { kind: 'refused', reason: `Not a usable file:// URL: ${redactCredentials(url)}.` };
    }
  }
  if (scheme) return REMOTE_SCHEMES.has(scheme) ? { kind: 'remote', url } : { kind: 'other', url, scheme };
  if (SCP_LIKE.test(url) && !url.startsWith('.') && !url.startsWith('/')) return { kind: 'remote', url };
  return { kind: 'local', url, path: url };
}

/**
 * Text with the credentials of any URL in it replaced by `***`: `https://user:token@host` and
 * `https://token@host` become `https://***@host`. A user name alone on other schemes (the `git`
 * of ssh://git@host) is no secret and stays.
 */
export function redactCredentials(text: string): string {
  return text.replace(/\b([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/\s@]+)@/g, (whole, scheme: string, userinfo: string) => {
    const web = /^https?:\/\//i.test(scheme);
    return web || userinfo.includes(':') ? `${scheme}***@` : whole;
  });
}
