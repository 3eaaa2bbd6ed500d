/**
 * Rate limits and usage-limit resets: recognise them in an agent's error text, and work out when
 * the task may run again — the reset time the message names, else a bounded backoff.
 */

const RATE_LIMIT_PATTERN =
  /(?<![\p{L}\p{N}])(?:hit your (?:session |usage |weekly |daily )?limit|usage limit|session limit|rate[ _-]?limit(?:ed)?|too many requests|overloaded|429|529)(?![\p{L}\p{N}])/iu;

/** Whether an error message says the run was refused for rate or usage limits. */
export function isRateLimitMessage(text: string | null | undefined): boolean {
  return !!text && RATE_LIMIT_PATTERN.test(text);
}

/** The default wait when a limit names no reset time (429 without a hint). */
export const DEFAULT_RATE_LIMIT_BACKOFF_MS = 60_000;
/** Never park a task longer than this on one message, whatever it says. */
export const MAX_RATE_LIMIT_WAIT_MS = 7 * 24 * 3600_000;

/** Offset of `timeZone` from UTC at `at`, in minutes (east positive); null for an unknown zone. */
function zoneOffsetMinutes(timeZone: string, at: Date): number | null {
  try {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(at);
    const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
    const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
    return Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
  } catch {
    return null;
  }
}

/** The next moment after `now` when the wall clock in `timeZone` (or locally) shows h:m. */
function nextWallClock(now: Date, hour: number, minute: number, timeZone: string | null): Date {
  const offset = timeZone ? zoneOffsetMinutes(timeZone, now) : null;
  if (offset === null) {
    const local = new Date(now);
    local.setHours(hour, minute, 0, 0);
    if (local.getTime() <= now.getTime()) local.setDate(local.getDate() + 1);
    return local;
  }
  const zoned = new Date(now.getTime() + offset * 60_000); // its UTC fields are the zone's wall clock
  let candidate = Date.UTC(zoned.getUTCFullYear(), zoned.getUTCMonth(), zoned.getUTCDate(), hour, minute) - offset * 60_000;
  if (candidate <= now.getTime()) candidate += 24 * 3600_000;
  return new Date(candidate);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * The reset time in a usage-limit message, e.g. "You've hit your limit · resets 3pm",
 * "resets 2:30pm (Europe/Berlin)", "resets at 15:00", "resets Jan 5, 9am (UTC)",
 * "resets in 2h 30m". Null when the text names none.
 */
export function parseResetTime(text: string, now: Date = new Date()): Date | null {
  const relative = /resets?\s+in\s+(?:(\d+)\s*h(?:ours?)?)?\s*(?:(\d+)\s*m(?:in(?:utes?)?)?)?/i.exec(text);
  if (relative && (relative[1] || relative[2])) {
    const ms = (Number(relative[1] ?? 0) * 60 + Number(relative[2] ?? 0)) * 60_000;
    return new Date(now.getTime() + Math.min(ms, MAX_RATE_LIMIT_WAIT_MS));
  }
  const match =
    /resets?\s+(?:at\s+)?(?:(?<month>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?<day>\d{1,2}),?\s+(?:at\s+)?)?(?<hour>\d{1,2})(?::(?<minute>\d{2}))?\s*(?<ampm>am|pm)?(?:\s*\((?<zone>[A-Za-z_]+(?:\/[A-Za-z_+-]+)*)\))?/i.exec(
      text,
    );
  if (!match?.groups) return null;
  const g = match.groups;
  let hour = Number(g.hour);
  const minute = g.minute ? Number(g.minute) : 0;
  if (!g.ampm && !g.minute) return null; // "resets 3" alone is too vague to trust
  if (g.ampm) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (g.ampm.toLowerCase() === 'pm' ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return null;
  const zone = g.zone ?? null;
  let reset = nextWallClock(now, hour, minute, zone);
  if (g.month && g.day) {
    // A named day: step whole days forward until the date matches (at most a year).
    const month = MONTHS.indexOf(g.month.slice(0, 3).toLowerCase());
    const day = Number(g.day);
    const offset = (zone ? zoneOffsetMinutes(zone, now) : null) ?? -now.getTimezoneOffset();
    for (let i = 0; i < 366; i++) {
      const wall = new Date(reset.getTime() + offset * 60_000);
      if (wall.getUTCMonth() === month && wall.getUTCDate() === day) break;
      reset = new Date(reset.getTime() + 24 * 3600_000);
    }
  }
  if (reset.getTime() - now.getTime() > MAX_RATE_LIMIT_WAIT_MS) return new Date(now.getTime() + MAX_RATE_LIMIT_WAIT_MS);
  return reset;
}

/**
 * When a rate-limited task may run again: the explicit reset (from the message, or a
 * `rate_limit_event`'s resetsAt), else a backoff that doubles with each pause, capped.
 */
export function resumeTime(
  input: { message?: string | null; resetsAt?: Date | null; consecutivePauses?: number },
  now: Date = new Date(),
  baseBackoffMs = DEFAULT_RATE_LIMIT_BACKOFF_MS,
  maxBackoffMs = 30 * 60_000,
): Date {
  if (input.resetsAt && input.resetsAt.getTime() > now.getTime()) {
    return new Date(Math.min(input.resetsAt.getTime(), now.getTime() + MAX_RATE_LIMIT_WAIT_MS));
  }
  const parsed = input.message ? parseResetTime(input.message, now) : null;
  if (parsed) return parsed;
  const n = Math.max(0, input.consecutivePauses ?? 0);
  return new Date(now.getTime() + Math.min(baseBackoffMs * 2 ** Math.min(n, 16), maxBackoffMs));
}
