import { resetFromHeaders } from '../../../src/agents/limit-headers';

describe('reset times from a refused response’s headers', () => {
  const now = new Date('2026-03-10T10:00:00Z');

  it('prefers retry-after, in seconds or as an HTTP date', () => {
    expect(resetFromHeaders({ 'retry-after': '90', 'anthropic-ratelimit-tokens-reset': '2026-03-10T12:00:00Z' }, now)).toEqual(
      new Date('2026-03-10T10:01:30Z'),
    );
    expect(resetFromHeaders({ 'retry-after': 'Tue, 10 Mar 2026 10:05:00 GMT' }, now)).toEqual(new Date('2026-03-10T10:05:00Z'));
  });

  it('else takes the latest of the anthropic-ratelimit-*-reset times (RFC 3339 or epoch seconds)', () => {
    expect(
      resetFromHeaders(
        {
          'anthropic-ratelimit-requests-reset': '2026-03-10T10:00:30Z',
          'anthropic-ratelimit-tokens-reset': '2026-03-10T10:20:00Z',
          'anthropic-ratelimit-unified-overage-reset': String(Date.parse('2026-03-20T00:00:00Z') / 1000),
        },
        now,
      ),
    ).toEqual(new Date('2026-03-10T10:20:00Z'));
    expect(resetFromHeaders({ 'anthropic-ratelimit-unified-reset': String(Date.parse('2026-03-10T15:00:00Z') / 1000) }, now)).toEqual(
      new Date('2026-03-10T15:00:00Z'),
    );
  });

  it('names nothing when the headers give no future time', () => {
    expect(resetFromHeaders({}, now)).toBeNull();
    expect(resetFromHeaders({ 'retry-after': '0' }, now)).toBeNull();
    expect(resetFromHeaders({ 'anthropic-ratelimit-requests-reset': '2026-03-10T09:00:00Z' }, now)).toBeNull();
    expect(resetFromHeaders({ 'retry-after': 'soon' }, now)).toBeNull();
  });
});
