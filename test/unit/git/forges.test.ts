import { forgeKindOfChangeUrl, forgeKindOfRemote, mergeMethodFrom, remoteHost } from '../../../src/git/forges/choose';
import { mergeRequestTarget } from '../../../src/git/forges/gitlab';

describe('choosing the forge', () => {
  it.each([
    ['https://github.com/acme/widget.git', 'github'],
    ['git@github.com:acme/widget.git', 'github'],
    ['ssh://git@github.example.com:2222/acme/widget.git', 'github'],
    ['https://token@gitlab.com/acme/widget.git', 'gitlab'],
    ['git@gitlab.internal.example:group/sub/widget.git', 'gitlab'],
    ['https://git.example.com/acme/widget.git', null],
    ['https://notgithubby.example.com/x.git', null],
    ['/srv/git/widget.git', null],
    ['file:///srv/git/widget.git', null],
    ['../origin.git', null],
    ['C:/repos/widget.git', null],
  ])('%s → %s', (url, kind) => {
    expect(forgeKindOfRemote(url)).toBe(kind);
  });

  it('reads hosts and PR/MR URLs', () => {
    expect(remoteHost('git@GitHub.com:a/b.git')).toBe('github.com');
    expect(forgeKindOfChangeUrl('https://github.com/acme/widget/pull/7')).toBe('github');
    expect(forgeKindOfChangeUrl('https://gitlab.com/g/s/p/-/merge_requests/12')).toBe('gitlab');
    expect(forgeKindOfChangeUrl('https://example.com/whatever')).toBeNull();
    expect(mergeRequestTarget('https://gitlab.com/g/s/p/-/merge_requests/12')).toEqual(['12', '--repo=https://gitlab.com/g/s/p']);
  });

  it('takes the merge method from AQ_MERGE_METHOD and says what is wrong with a bad one', () => {
    expect(mergeMethodFrom({})).toBe('merge');
    expect(mergeMethodFrom({ AQ_MERGE_METHOD: ' Squash ' })).toBe('squash');
    expect(() => mergeMethodFrom({ AQ_MERGE_METHOD: 'octopus' })).toThrow(
      'AQ_MERGE_METHOD must be merge, squash or rebase (got "octopus").',
    );
  });
});
