import { createHmac, timingSafeEqual } from 'node:crypto';
import { fireAutomation, type FiringDeps } from './automation-firing';
import { pathValue } from './hook-template';

/** How far a signed timestamp may be from now, either way. */
export const REPLAY_WINDOW_MS = 5 * 60_000;

export interface WebhookDelivery {
  automationId: string;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  body: Buffer;
}

/** The HTTP answer: a status and a JSON body whose `error` is a sentence for the sender's logs. */
export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
}

const fail = (status: number, error: string): WebhookAnswer => ({ status, body: { error } });

function hmacHex(secret: string, data: string | Buffer): string {
  return createHmac('sha256', secret).update(data).digest('hex');
}

function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks the signature in one of three forms: ours (`X-AQ-Signature: sha256=HMAC(secret,
 * "<X-AQ-Timestamp>.<body>")`), GitHub's (`X-Hub-Signature-256: sha256=HMAC(secret, body)`) or
 * Sentry's (`Sentry-Hook-Signature: HMAC(secret, body)`, with `Sentry-Hook-Timestamp`). A
 * timestamp, when the form has one, must be within the replay window. Null when it holds.
 */
function signatureProblem(delivery: WebhookDelivery, secret: string, now: number): string | null {
  const h = delivery.headers;
  const inWindow = (seconds: string | undefined) => {
    const at = Number(seconds) * 1000;
    return Number.isFinite(at) && Math.abs(now - at) <= REPLAY_WINDOW_MS;
  };
  if (h['x-aq-signature'] !== undefined) {
    const timestamp = h['x-aq-timestamp'];
    if (!timestamp || !inWindow(timestamp)) {
      return 'X-AQ-Timestamp is missing or more than 5 minutes from now: send the current Unix time in seconds, and sign "<timestamp>.<body>".';
    }
    const expected = `sha256=${hmacHex(secret, Buffer.concat([Buffer.from(`${timestamp}.`), delivery.body]))}`;
    return sameText(h['x-aq-signature'], expected)
      ? null
      : 'The signature does not match: sign "<timestamp>.<body>" with HMAC-SHA256 and this endpoint\'s secret.';
  }
  if (h['x-hub-signature-256'] !== undefined) {
    return sameText(h['x-hub-signature-256'], `sha256=${hmacHex(secret, delivery.body)}`)
      ? null
      : "The X-Hub-Signature-256 signature does not match: set the webhook secret to this endpoint's secret.";
  }
  if (h['sentry-hook-signature'] !== undefined) {
    const timestamp = h['sentry-hook-timestamp'];
    if (timestamp !== undefined && !inWindow(timestamp)) return 'Sentry-Hook-Timestamp is more than 5 minutes from now.';
    return sameText(h['sentry-hook-signature'], hmacHex(secret, delivery.body))
      ? null
      : "The Sentry-Hook-Signature does not match: set the integration's client secret as this endpoint's secret.";
  }
  return 'The request is not signed: send X-AQ-Timestamp and X-AQ-Signature (see README, Automations).';
}

/** The key a retried delivery repeats: the configured body field, else the sender's delivery id header. */
function deliveryKey(delivery: WebhookDelivery, body: Record<string, unknown>, field: unknown): string | null {
  if (typeof field === 'string' && field) {
    const value = pathValue(body, field.split('.'));
    return value === undefined || value === null || value === '' ? null : String(value);
  }
  const h = delivery.headers;
  return h['idempotency-key'] ?? h['x-github-delivery'] ?? h['request-id'] ?? null;
}

/**
 * One inbound webhook delivery: the automation, size, signature, JSON body, match filter and
 * idempotency key are checked, in that order, before a task is created from the template.
 */
export async function receiveWebhook(deps: FiringDeps, delivery: WebhookDelivery): Promise<WebhookAnswer> {
  const a = await deps.db.automations.get(delivery.automationId);
  const missing = fail(404, 'There is no webhook automation at this address. Check the automation id in the URL.');
  if (!a) return missing;
  if (a.kind !== 'webhook') return missing;
  const maxBytes = Number(a.settings.max_body_bytes ?? 65536);
  if (delivery.body.length > maxBytes) return fail(413, `The body is larger than this endpoint's limit of ${maxBytes} bytes.`);
  const now = deps.now().getTime();
  const problem = signatureProblem(delivery, String(a.settings.secret ?? ''), now);
  if (problem) return fail(401, problem);
  let body: unknown;
  try {
    body = JSON.parse(delivery.body.toString('utf8'));
  } catch {
    return fail(400, 'The body is not JSON. Send a JSON object with Content-Type: application/json.');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return fail(400, 'The body must be a JSON object.');
  const fields = body as Record<string, unknown>;
  const match = (a.settings.match ?? {}) as Record<string, unknown>;
  for (const [path, wanted] of Object.entries(match)) {
    const value = pathValue(fields, path.split('.'));
    if (String(value) !== String(wanted)) return { status: 202, body: { ignored: `${path} is not ${String(wanted)}.` } };
  }
  if (a.state !== 'enabled') return fail(409, `Automation '${a.id}' is paused; the delivery was not used.`);
  const key = deliveryKey(delivery, fields, a.settings.idempotency_key);
  if (typeof a.settings.idempotency_key === 'string' && key === null) {
    return fail(400, `The body has no ${a.settings.idempotency_key}, which identifies a delivery for this endpoint.`);
  }
  const fired = await fireAutomation(deps, a, { firedBy: 'webhook', item: fields, dedupKey: key === null ? null : `delivery:${key}` });
  if (fired.outcome === 'created') return { status: 201, body: { task_id: fired.taskId } };
  if (fired.outcome === 'duplicate') return { status: 200, body: { duplicate: true, task_id: fired.taskId } };
  if (fired.outcome === 'skipped') return { status: 202, body: { skipped: fired.reason } };
  return fail(422, fired.reason);
}
