import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { credentialHelperSettings, credentialScope, splitCredentials, withoutCredentials } from '../../../src/git/remote-credentials';
import { makeTempDir } from '../../support/tmp';

describe("a clone URL's credentials apart from it", () => {
  it('takes the user name and password (decoded) out of http and https URLs', () => {
    expect(splitCredentials('https://bot:s3cret@github.com/org/app.git')).toEqual({
      url: 'https://github.com/org/app.git',
      username: 'bot',
      password: 's3cret',
    });
    expect(splitCredentials('http://x-access-token:a%2Fb%40c@127.0.0.1:8080/r.git')).toEqual({
      url: 'http://127.0.0.1:8080/r.git',
      username: 'x-access-token',
      password: 'a/b@c',
    });
    expect(splitCredentials('https://ghp_token@github.com/org/app.git')).toEqual({
      url: 'https://github.com/org/app.git',
      username: 'ghp_token',
      password: '',
    });
  });

  it('leaves URLs without credentials, other transports and paths alone', () => {
    for (const url of [
      'https://github.com/org/app.git',
      'ssh://git@github.com/org/app.git',
      'git@github.com:org/app.git',
      '/srv/git/app',
      'not a url',
    ]) {
      expect(splitCredentials(url)).toBeNull();
      expect(withoutCredentials(url)).toBe(url);
    }
    expect(withoutCredentials('https://bot:s3cret@github.com/org/app.git')).toBe('https://github.com/org/app.git');
  });
});

describe("the URL a clone's credential settings are scoped to", () => {
  it("percent-encodes the path's reserved characters, as git matches them, and nothing else", () => {
    expect(credentialScope('https://github.com/org/app.git')).toBe('https://github.com/org/app.git');
    expect(credentialScope('http://127.0.0.1:8080/team=web+ops@2/a,b;c/r.git')).toBe(
      'http://127.0.0.1:8080/team%3Dweb%2Bops%402/a%2Cb%3Bc/r.git',
    );
    expect(credentialScope("https://h.example/!$&'()*:~-._/r.git")).toBe('https://h.example/%21%24%26%27%28%29%2A%3A~-._/r.git');
  });
});

describe('the credential file of a clone', () => {
  it('is one per clone, and refuses a user name or password that would add lines to what it answers', async () => {
    const tmp = await makeTempDir('aq-cred-');
    try {
      const credentials = splitCredentials('https://bot:s3cret@github.com/org/app.git')!;
      const helperFile = (settings: Array<[string, string]>) => /cat '([^']+)'/.exec(settings[1][1])![1];
      const a = helperFile(await credentialHelperSettings(credentials, tmp.dir, path.join(tmp.dir, 'a')));
      const b = helperFile(await credentialHelperSettings({ ...credentials, password: 'other' }, tmp.dir, path.join(tmp.dir, 'b')));
      expect(a).not.toBe(b);
      expect(await readFile(a, 'utf8')).toBe('username=bot\npassword=s3cret\n');
      expect(await readFile(b, 'utf8')).toBe('username=bot\npassword=other\n');
      const injected = splitCredentials('https://bot:x%0Aprotocol%3Dfile@github.com/org/app.git')!;
      await expect(credentialHelperSettings(injected, tmp.dir, path.join(tmp.dir, 'c'))).rejects.toThrow(/cannot hold a line break/);
    } finally {
      await tmp.cleanup();
    }
  });
});
