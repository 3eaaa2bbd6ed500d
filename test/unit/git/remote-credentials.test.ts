import { splitCredentials, withoutCredentials } from '../../../src/git/remote-credentials';

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
