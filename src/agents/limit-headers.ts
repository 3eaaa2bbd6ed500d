import type { IncomingHttpHeaders } from 'node:http';
import { MAX_RATE_LIMIT_WAIT_MS } from './rate-limits';

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `retry-after`: a number of seconds, or an HTTP date. */
function retryAfter(value: string | undefined, now: Date): Date | null {
  if (!value?.trim()) return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return new Date(now.getTime() + Number(value) * 1000);
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A reset header: epoch seconds (the unified subscription limit) or an RFC 3339 time (the API's). */
function resetTime(value: string | undefined): Date | null {
  if (!value?.trim()) return null;
  const date = /^\d+$/.test(value.trim()) ? new Date(Number(value) * 1000) : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * When a refused request (429) may be tried again, from its response headers: `retry-after` when
 * the API gives it, else the latest of the `anthropic-ratelimit-*-reset` times (the limit that
 * refused the call is not named, and resuming before it resets only fails again). Null when the
 * headers name no future time.
 */
export function resetFromHeaders(headers: IncomingHttpHeaders, now: Date = new Date()): Date | null {
  const candidates = [retryAfter(header(headers, 'retry-after'), now)];
  if (!candidates[0]) {
    for (const name of Object.keys(headers)) {
      if (/^anthropic-ratelimit-[a-z-]+-reset$/.test(name) && !name.includes('overage')) {
        candidates.push(resetTime(header(headers, name)));
      }
    }
  }
  const future = candidates.filter((d): d is Date => d !== null && d.getTime() > now.getTime());
  if (future.length === 0) return null;
  const latest = Math.max(...future.map((d) => d.getTime()));
  return new Date(Math.min(latest, now.getTime() + MAX_RATE_LIMIT_WAIT_MS));
}
