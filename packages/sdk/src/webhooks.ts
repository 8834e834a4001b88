import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { WebhookEvent } from './types.js';

export { WebhookVerificationError };

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a webhook delivery with the endpoint's secret (`whsec_…`, Standard Webhooks: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`) and returns the event, typed by its `type`. Pass the raw body exactly as
 * received (before any JSON parsing: re-serialized JSON does not verify). Throws `WebhookVerificationError` when the
 * signature does not match any of the signatures sent, a header is missing or the timestamp is more than 5 minutes
 * away from this machine's clock. Deliveries are at-least-once: de-duplicate on `event.id` (= `webhook-id`).
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: HeaderBag, secret: string): WebhookEvent {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const flat: Record<string, string> = {};
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((value, name) => (flat[name.toLowerCase()] = value));
  } else {
    for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
      if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(' ') : value;
    }
  }
  return new Webhook(secret).verify(body, flat) as WebhookEvent;
}
