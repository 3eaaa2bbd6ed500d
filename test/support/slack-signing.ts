import { createHmac } from 'node:crypto';

/** Slack's request signature: `v0=` + HMAC-SHA256 of `v0:<timestamp>:<raw body>`. */
export function slackSignature(secret: string, timestamp: number, rawBody: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}
