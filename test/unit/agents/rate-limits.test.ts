import { isRateLimitMessage, parseResetTime, resumeTime } from '../../../src/agents/rate-limits';

describe('rate-limit detection', () => {
  it('recognises usage limits, rate limits and 429s', () => {
    expect(isRateLimitMessage("You've hit your limit · resets 3pm")).toBe(true);
    expect(isRateLimitMessage('API Error: 429 {"type":"rate_limit_error"}')).toBe(true);
    expect(isRateLimitMessage('Claude AI usage limit reached')).toBe(true);
    expect(isRateLimitMessage('Overloaded')).toBe(true);
    expect(isRateLimitMessage('TypeError: x is undefined')).toBe(false);
    expect(isRateLimitMessage('line 4290 failed')).toBe(false);
  });
});

describe('parseResetTime', () => {
  const now = new Date('2026-03-10T10:00:00Z');

  it('reads "resets 3pm" in a named zone', () => {
    expect(parseResetTime("You've hit your limit · resets 3pm (UTC)", now)?.toISOString()).toBe('2026-03-10T15:00:00.000Z');
    expect(parseResetTime('hit your limit · resets 2:30pm (Europe/Berlin)', now)?.toISOString()).toBe('2026-03-10T13:30:00.000Z');
  });

  it('rolls over to tomorrow when the time already passed today', () => {
    expect(parseResetTime('resets 9am (UTC)', now)?.toISOString()).toBe('2026-03-11T09:00:00.000Z');
  });

  it('reads 24-hour times, relative times and named days', () => {
    expect(parseResetTime('limit resets at 15:45 (UTC)', now)?.toISOString()).toBe('2026-03-10T15:45:00.000Z');
    expect(parseResetTime('resets in 2h 30m', now)?.toISOString()).toBe('2026-03-10T12:30:00.000Z');
    expect(parseResetTime('weekly limit · resets Mar 12, 9am (UTC)', now)?.toISOString()).toBe('2026-03-12T09:00:00.000Z');
  });

  it('uses local time when no zone is named', () => {
    const local = new Date(now);
    local.setHours(15, 0, 0, 0);
    if (local <= now) local.setDate(local.getDate() + 1);
    expect(parseResetTime('resets 3pm', now)?.getTime()).toBe(local.getTime());
  });

  it('returns null when no time is named', () => {
    expect(parseResetTime('429 Too Many Requests', now)).toBeNull();
    expect(parseResetTime('resets 3', now)).toBeNull();
  });
});

describe('resumeTime', () => {
  const now = new Date('2026-03-10T10:00:00Z');
  it('prefers an explicit resetsAt, then the message, then a capped doubling backoff', () => {
    const at = new Date('2026-03-10T11:00:00Z');
    expect(resumeTime({ resetsAt: at, message: 'resets 3pm (UTC)' }, now)).toEqual(at);
    expect(resumeTime({ message: 'resets 3pm (UTC)' }, now).toISOString()).toBe('2026-03-10T15:00:00.000Z');
    expect(resumeTime({ message: '429' }, now, 60_000).getTime() - now.getTime()).toBe(60_000);
    expect(resumeTime({ message: '429', consecutivePauses: 2 }, now, 60_000).getTime() - now.getTime()).toBe(240_000);
    expect(resumeTime({ message: '429', consecutivePauses: 50 }, now, 60_000).getTime() - now.getTime()).toBe(30 * 60_000);
  });
});
