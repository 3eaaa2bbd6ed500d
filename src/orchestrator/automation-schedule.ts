import { Cron } from 'croner';

/** Whether `zone` is a time zone name the runtime knows (IANA, e.g. Europe/Berlin). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Why a cron expression cannot be used, as a sentence for people, or null when it can. Five
 * fields (minute hour day-of-month month day-of-week), or six with seconds first.
 */
export function cronProblem(expression: string, timeZone: string): string | null {
  if (!isTimeZone(timeZone)) {
    return `"${timeZone}" is not a time zone name. Use an IANA name such as UTC, Europe/Berlin or America/New_York.`;
  }
  try {
    const next = new Cron(expression, { timezone: timeZone, paused: true }).nextRun();
    if (!next) return `The cron expression "${expression}" never fires again. Check its fields.`;
    return null;
  } catch {
    return `"${expression}" is not a cron expression croner reads: use five fields (minute hour day-of-month month day-of-week), e.g. "0 3 * * 1-5" for 03:00 on weekdays.`;
  }
}

/** The first run strictly after `after` (ms since the epoch), or null when the expression never fires again. */
export function nextRunAfter(expression: string, timeZone: string, after: number): number | null {
  const next = new Cron(expression, { timezone: timeZone, paused: true }).nextRun(new Date(after));
  return next ? next.getTime() : null;
}
