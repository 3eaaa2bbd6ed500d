import { createHmac } from 'node:crypto';

/** Slack's request signature: `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>`. */
export function slackSignature(secret: string, timestamp: number, rawBody: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}

export interface SigningOptions {
  signingSecret: string;
  /** Sign with a wrong secret (the receiver must answer 401). */
  badSignature?: boolean;
  /** Seconds added to "now" for the timestamp; -600 makes a stale request (401). */
  timestampOffset?: number;
}

/** The two headers Slack puts on every request it sends to an app. */
export function signedHeaders(rawBody: string, options: SigningOptions): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000) + (options.timestampOffset ?? 0);
  const secret = options.badSignature ? `${options.signingSecret}-wrong` : options.signingSecret;
  return {
    'x-slack-signature': slackSignature(secret, timestamp, rawBody),
    'x-slack-request-timestamp': String(timestamp),
  };
}
