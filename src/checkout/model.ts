import { bidiMessage, hasBidiControl } from '../platform/text';
import type { Selectable } from 'kysely';
import { ApiError } from '../platform/errors';
import type { CheckoutSessionsTable } from './tables';
import type { CheckoutSessionView } from './schemas';
import { MESSAGES } from '../platform/messages';
import { METADATA_LIMITS } from './limits';

export { METADATA_LIMITS };

export type SessionRow = Selectable<CheckoutSessionsTable>;

export const SESSION_TTL_MS = 30 * 60_000;
/** How long one payment attempt may hold the session before another may start (a crashed attempt's lock runs out). */
export const ATTEMPT_LOCK_MS = 2 * 60_000;

/** `expired` is never stored: an open session is expired from `expires_at` on, whether or not anything swept it. */
export function sessionStatus(s: Pick<SessionRow, 'status' | 'expires_at'>, now: Date): 'open' | 'completed' | 'expired' {
  if (s.status === 'completed') return 'completed';
  return s.expires_at <= now ? 'expired' : 'open';
}

export function sessionView(s: SessionRow, now: Date, publicBaseUrl: string): CheckoutSessionView {
  return {
    id: s.id,
    mode: s.mode,
    productId: s.product_id,
    status: sessionStatus(s, now),
    orderId: s.order_id,
    customer: { name: s.customer_name, email: s.customer_email, phone: s.customer_phone },
    metadata: s.metadata ?? null,
    successUrl: s.success_url,
    cancelUrl: s.cancel_url,
    expiresAt: s.expires_at.toISOString(),
    createdAt: s.created_at.toISOString(),
    url: paymentPageUrl(publicBaseUrl, s.id),
  };
}

export function paymentPageUrl(publicBaseUrl: string, sessionId: string): string {
  return `${publicBaseUrl}/pay/${encodeURIComponent(sessionId)}`;
}

/** Length in Unicode code points, as JSON Schema's minLength/maxLength count (the document states the limits so). */
const codePoints = (s: string): number => [...s].length;

/** METADATA_INVALID unless `value` is absent/null or a flat string map within METADATA_LIMITS. */
export function checkMetadata(value: unknown): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  const refuse = (reason: string) => new ApiError('METADATA_INVALID', { details: { reason } });
  if (typeof value !== 'object' || Array.isArray(value)) throw refuse(MESSAGES.checkout.metadataNotObject);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > METADATA_LIMITS.maxKeys) throw refuse(MESSAGES.checkout.metadataTooManyKeys(METADATA_LIMITS.maxKeys));
  const out: Record<string, string> = {};
  for (const [k, v] of entries) {
    if (k.length < 1 || codePoints(k) > METADATA_LIMITS.maxKeyLength) throw refuse(MESSAGES.checkout.metadataKeyLength(METADATA_LIMITS.maxKeyLength));
    if (typeof v !== 'string') throw refuse(MESSAGES.checkout.metadataValueNotString(k.slice(0, 40)));
    if (codePoints(v) > METADATA_LIMITS.maxValueLength) throw refuse(MESSAGES.checkout.metadataValueTooLong(METADATA_LIMITS.maxValueLength, k.slice(0, 40)));
    // Shown to the seller (dashboard, order) and copied to the order: no reordering controls, like every other field.
    if (hasBidiControl(k) || hasBidiControl(v)) throw refuse(bidiMessage('metadata의 키와 값'));
    out[k] = v;
  }
  return out;
}

/** An absolute http(s) URL without credentials (user:pass@ hides the real host from people reading it), else null. */
export function parseReturnUrl(raw: string): URL | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  if (!u.hostname || u.username || u.password) return null;
  return u;
}

/**
 * The URL's host is on the allow-list: an entry matches its own host and every subdomain of it. An entry with a
 * port (`localhost:3000`) matches only that port; without one, any port.
 */
export function hostAllowed(u: URL, domains: string[]): boolean {
  const host = u.hostname.toLowerCase().replace(/\.$/, '');
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  return domains.some((entry) => {
    const [d, p] = entry.toLowerCase().split(':');
    if (p && p !== port) return false;
    return host === d || host.endsWith(`.${d}`);
  });
}

/** successUrl with `order_id` and `session_id` set in its existing query (other parameters and the fragment kept). */
export function successRedirectUrl(successUrl: string, orderId: string, sessionId: string): string {
  const u = new URL(successUrl);
  u.searchParams.set('order_id', orderId);
  u.searchParams.set('session_id', sessionId);
  return u.toString();
}

const KST_MS = 9 * 3_600_000;

/**
 * End of a billing period that starts at `start`: one calendar month (monthly) or year (yearly) later, counted on the
 * Korean calendar (KST, no daylight saving) at the same wall-clock time. A start on a day the next month lacks ends on
 * that month's last day (Jan 31 → Feb 28/29; Feb 29 + 1 year → Feb 28).
 */
export function periodEnd(start: Date, interval: 'monthly' | 'yearly'): Date {
  const local = new Date(start.getTime() + KST_MS);
  const y = local.getUTCFullYear() + (interval === 'yearly' ? 1 : 0);
  const m = local.getUTCMonth() + (interval === 'monthly' ? 1 : 0);
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const day = Math.min(local.getUTCDate(), lastDay);
  const end = Date.UTC(y, m, day, local.getUTCHours(), local.getUTCMinutes(), local.getUTCSeconds(), local.getUTCMilliseconds());
  return new Date(end - KST_MS);
}
