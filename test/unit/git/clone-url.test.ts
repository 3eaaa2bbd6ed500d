import { readCloneSource, redactCredentials } from '../../../src/git/clone-url';

describe('reading a clone source', () => {
  it('takes https, ssh and scp-like remotes as remote', () => {
    for (const url of [
      'https://github.com/org/repo.git',
      'HTTPS://example.com/r',
      'ssh://git@example.com:2222/org/repo.git',
      'git+ssh://example.com/r',
      'git@github.com:org/repo.git',
      'example.com:org/repo.git',
    ]) {
      expect([url, readCloneSource(url).kind]).toEqual([url, 'remote']);
    }
  });

  it('takes paths and file:// URLs as folders of this host', () => {
    expect(readCloneSource('/srv/secret/repo')).toEqual({ kind: 'local', url: '/srv/secret/repo', path: '/srv/secret/repo' });
    expect(readCloneSource('./repo')).toMatchObject({ kind: 'local', path: './repo' });
    expect(readCloneSource('../up:here')).toMatchObject({ kind: 'local' });
    expect(readCloneSource('repo')).toMatchObject({ kind: 'local', path: 'repo' });
    expect(readCloneSource('file:///srv/secret/repo')).toMatchObject({ kind: 'local', path: '/srv/secret/repo' });
    expect(readCloneSource('FILE:///srv/x')).toMatchObject({ kind: 'local', path: '/srv/x' });
  });

  it('names other transports, and refuses what must never reach git', () => {
    expect(readCloneSource('http://example.com/r.git')).toMatchObject({ kind: 'other', scheme: 'http' });
    expect(readCloneSource('git://example.com/r.git')).toMatchObject({ kind: 'other', scheme: 'git' });
    expect(readCloneSource('ext::sh -c touch% /tmp/pwned')).toMatchObject({ kind: 'refused', reason: expect.stringContaining('ext::') });
    expect(readCloneSource('fd::17')).toMatchObject({ kind: 'refused' });
    expect(readCloneSource('--upload-pack=touch /tmp/x')).toMatchObject({ kind: 'refused', reason: expect.stringContaining('"-"') });
    expect(readCloneSource('  ')).toMatchObject({ kind: 'refused' });
    expect(readCloneSource('https://host/r\n--x')).toMatchObject({ kind: 'refused' });
  });
});

describe('redacting credentials in URLs', () => {
  it('hides user:password and tokens, keeps ssh user names and the rest of the text', () => {
    expect(redactCredentials('Could not clone https://alice:s3cret@github.com/org/r.git: not found')).toBe(
      'Could not clone https://***@github.com/org/r.git: not found',
    );
    expect(redactCredentials('https://ghp_abc123@github.com/o/r')).toBe('https://***@github.com/o/r');
    expect(redactCredentials('ssh://git@example.com/r and ssh://u:pw@example.com/r')).toBe(
      'ssh://git@example.com/r and ssh://***@example.com/r',
    );
    expect(redactCredentials('git@github.com:org/repo.git')).toBe('git@github.com:org/repo.git');
  });
});
