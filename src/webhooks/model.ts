import { decryptSecret, encryptSecret } from '../platform/crypto';
import { randomBytes } from 'node:crypto';
import { DAY, HOUR } from '../platform/clock';
import { RETRY_SCHEDULE_MS, retryDelayMs } from '../jobs/queue';
import type { DeliveryStatus, StoredSecret } from './tables';
import { MESSAGES } from '../platform/messages';

/** Event types an endpoint can subscribe to. `webhook.test` needs no subscription: it goes to the one endpoint asked. */
export const SUBSCRIBABLE_EVENT_TYPES = ['order.paid', 'order.awaiting_deposit', 'order.expired', 'order.refunded', 'refund_request.created', 'refund_request.updated', 'subscription.updated', 'subscription.ended', 'reconciliation.completed', 'license.issue', 'cash_receipt.failed', 'tax_invoice.issued', 'tax_invoice.amended', 'tax_invoice.failed'] as const;
export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];
export const TEST_EVENT_TYPE = 'webhook.test';
/** Sent by the licenses module itself (it needs the seller's answer), never by the delivery worker. */
export const SELF_SENT_EVENT_TYPES = new Set(['license.issue']);

/** Attempts in all: the first, then one after each delay of the schedule (5 s … 10 h), then the delivery fails. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
/** How long a rotated-out secret keeps signing beside the new one. */
export const SECRET_ROTATION_GRACE_MS = 24 * HOUR;
/** An endpoint whose attempts all failed for this long is disabled. */
export const FAILING_DISABLE_AFTER_MS = 5 * DAY;
/** Events (and their delivery log) stay resendable at least this long. */
export const EVENT_RETENTION_MS = 30 * DAY;
/** First characters of a response kept in the attempt log. */
export const RESPONSE_EXCERPT_CHARS = 1024;
/**
 * Stored and shown instead of the response body of a delivery to a loopback address (WEBHOOK_ALLOW_LOOPBACK): that
 * answer comes from a service on the operator's machine, not from the seller's endpoint.
 */
export const LOOPBACK_RESPONSE_OMITTED = MESSAGES.webhooks.loopbackResponseOmitted;

export const DISABLED_REASONS = MESSAGES.webhooks.disabled;
export const DELIVERY_ENDPOINT_DISABLED_ERROR = 'endpoint disabled';

/**
 * Secrets are stored sealed with the master key (AES-256-GCM), like the gateway and signing keys: a database dump
 * alone does not let anyone forge deliveries. A value that is still plain `whsec_…` (written before sealing, or
 * by a test fixture) is read as is.
 */
export function sealSecret(masterKey: Buffer, secret: string): string {
  return encryptSecret(masterKey, secret);
}

export function openSecret(masterKey: Buffer, stored: string): string {
  return stored.startsWith('whsec_') ? stored : decryptSecret(masterKey, stored).toString('utf8');
}

/** The stored list with each secret opened (for signing and for showing to the seller). */
export function openSecrets(masterKey: Buffer, secrets: StoredSecret[]): StoredSecret[] {
  return secrets.map((s) => ({ ...s, secret: openSecret(masterKey, s.secret) }));
}

/** `whsec_` + base64 of 32 random bytes: the standard-webhooks secret format its libraries decode. */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Secrets still signing at `now`, newest first (the stored order). */
export function liveSecrets(secrets: StoredSecret[], now: Date): StoredSecret[] {
  return secrets.filter((s) => s.expiresAt === null || new Date(s.expiresAt).getTime() > now.getTime());
}

/**
 * Rotation: a new secret goes first; every secret still signing gets at most `graceMs` more, so receivers that
 * have not switched yet keep verifying (the signature header carries one signature per secret).
 */
export function rotateSecrets(secrets: StoredSecret[], now: Date, graceMs = SECRET_ROTATION_GRACE_MS): { secret: string; secrets: StoredSecret[] } {
  const until = now.getTime() + graceMs;
  const kept = liveSecrets(secrets, now).map((s) => ({
    ...s,
    expiresAt: new Date(s.expiresAt === null ? until : Math.min(until, new Date(s.expiresAt).getTime())).toISOString(),
  }));
  const secret = generateSecret();
  return { secret, secrets: [{ secret, createdAt: now.toISOString(), expiresAt: null }, ...kept] };
}

export interface AttemptOutcomeInput {
  ok: boolean;
  status: number | null;
  /** 1-based number of the attempt just made. */
  attempt: number;
  now: Date;
  /** When the endpoint's current run of failures started (null if its last attempt succeeded). */
  failingSince: Date | null;
}

export interface AttemptOutcome {
  delivery: { status: DeliveryStatus; nextAttemptAt: Date | null };
  endpoint: { failingSince: Date | null; disableReason: string | null };
}

/**
 * What one attempt's result means for the delivery and its endpoint. Any 2xx succeeds. 410 Gone ends the delivery
 * and disables the endpoint at once. Other failures retry on the schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h),
 * then fail for good (resendable); an endpoint failing without a break for 5 days is disabled.
 */
export function attemptOutcome(i: AttemptOutcomeInput): AttemptOutcome {
  if (i.ok) return { delivery: { status: 'succeeded', nextAttemptAt: null }, endpoint: { failingSince: null, disableReason: null } };
  const failingSince = i.failingSince ?? i.now;
  if (i.status === 410) return { delivery: { status: 'failed', nextAttemptAt: null }, endpoint: { failingSince, disableReason: DISABLED_REASONS.gone } };
  if (i.now.getTime() - failingSince.getTime() >= FAILING_DISABLE_AFTER_MS) {
    return { delivery: { status: 'failed', nextAttemptAt: null }, endpoint: { failingSince, disableReason: DISABLED_REASONS.failing } };
  }
  const delay = retryDelayMs(i.attempt);
  return {
    delivery: delay === null ? { status: 'failed', nextAttemptAt: null } : { status: 'pending', nextAttemptAt: new Date(i.now.getTime() + delay) },
    endpoint: { failingSince, disableReason: null },
  };
}

/** Whether an endpoint subscribed to `type` (exact names; no wildcards, so a new type never arrives unasked). */
export function subscribes(eventTypes: string[], type: string): boolean {
  return eventTypes.includes(type);
}
