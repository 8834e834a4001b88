import { randomBytes } from 'node:crypto';
import type { PriceSchedule } from './copy/recurring-price';
import type { AppDeps } from '../deps';
import { jsonb } from '../db';
import { newId } from '../platform/ids';
import { withSpan } from '../platform/telemetry';
import { randomBase62, sha256Hex } from '../platform/crypto';
import { RETRY_SCHEDULE_MS } from '../jobs/queue';
import { loadOrderView } from '../orders/service';
import { getBusinessDetails } from '../stores/business-details';
import { getSubscription } from '../subscriptions/repo';
import { insertPortalSession } from '../subscriptions/portal/repo';
import { subscriptionView } from '../subscriptions/model';
import { portalUrl } from '../subscriptions/portal/service';
import type { MailKind } from './kinds';
import { renderMail } from './render';
import type { RenderInput, RenderedMail } from './render-input';
import { soldPlanName, type SaleTerms } from '../orders/terms';
import { REFUND_REMINDER_KIND, renderRefundReminder, type RefundReminder } from './refund-reminder';
import { SELLER_NOTICE_KIND, renderSellerNotice, type SellerNotice } from './seller-notice';
import { BUYER_SIGN_IN_KIND, renderBuyerSignIn } from './buyer-sign-in';
import { MANAGE_LINK_TTL_MS, manageLinkPath } from '../subscriptions/portal/manage-link';
import * as repo from './repo';
import type { MailRow } from './repo';
import { sendTestCopies } from './test-copies';
import { SMTP_TIMEOUTS, smtpTransport, type MailTransport } from './transport';

export { SMTP_TIMEOUTS, type MailTransport } from './transport';

/**
 * The mail outbox's worker side (the in-server worker and `commerce worker` both run it):
 *   lease due mails (committed, SKIP LOCKED) -> render each -> test mode: keep it ('captured'), never to the buyer
 *   (a [테스트] copy to the store's own listed addresses, when it lists any);
 *   live: send through SMTP_URL outside any transaction -> record the outcome (only the lease holder does).
 * SMTP down: the mail goes back to pending on the webhook schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) and
 * is marked 'failed' after the last; nothing is lost. Live mode without SMTP_URL: 'unconfigured', looked at again
 * every hour, and sent once SMTP_URL is set (no attempt counted).
 */
type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'> & { worker?: { id: string } };

export const UNCONFIGURED_RECHECK_MS = 3_600_000;
/** A seller-issued licence key still pending: the confirmation waits for it this long, then goes without it. */
export const KEY_WAIT_MS = 30 * 60_000;
/** Portal links in mails open the portal for 7 days (the API's portal sessions last an hour: a mail is read later). */
export const MAIL_PORTAL_TTL_MS = 7 * 24 * 3_600_000;

const PORTAL_KINDS: ReadonlySet<MailKind> = new Set<MailKind>(['payment_failed', 'renewal_upcoming', 'trial_will_end', 'price_change_scheduled', 'plan_change_offered']);

/**
 * How long a mail's portal link opens: MAIL_PORTAL_TTL_MS, or until the answer's deadline when the mail asks for
 * one later (a plan-change offer's `deadline`, a price change's `decideBy`, a long trial's end), converted from the
 * subscription's clock to the service's.
 */
export function mailPortalExpiry(kind: MailKind, change: Record<string, unknown> | undefined, offsetMs: number, now: Date): Date {
  const base = now.getTime() + MAIL_PORTAL_TTL_MS;
  const deadline =
    kind === 'plan_change_offered' ? change?.deadline
    : kind === 'price_change_scheduled' ? change?.decideBy
    : kind === 'trial_will_end' ? change?.trialEndsAt
    : kind === 'renewal_upcoming' ? change?.renewsAt
    : null;
  const t = typeof deadline === 'string' ? new Date(deadline).getTime() - offsetMs : NaN;
  return new Date(Number.isFinite(t) && t > base ? t : base);
}
/**
 * How long a subscription mail's 구독 관리 link (src/subscriptions/portal/manage-link.ts) opens the portal:
 * MANAGE_LINK_TTL_MS (30 days), or until the answer's deadline when the mail asks for one later.
 */
export function manageLinkExpiry(kind: MailKind, change: Record<string, unknown> | undefined, offsetMs: number, now: Date): Date {
  const deadline = mailPortalExpiry(kind, change, offsetMs, now).getTime();
  return new Date(Math.max(deadline, now.getTime() + MANAGE_LINK_TTL_MS));
}
const ORDER_KINDS: ReadonlySet<MailKind> = new Set<MailKind>(['order_confirmation', 'subscription_started', 'renewal_receipt']);

/** Reads what the mail shows as it is now, and renders it. */
export async function renderRow(deps: Deps, row: MailRow): Promise<{ mail: RenderedMail; waitForKeys: boolean }> {
  // The owners' security notice (seller-notice.ts) is not a buyer mail: it renders from its own data alone.
  if (row.kind === SELLER_NOTICE_KIND) return { mail: renderSellerNotice(await repo.storeNameOf(deps.db, row.store_id), row.data as unknown as SellerNotice), waitForKeys: false };
  if (row.kind === BUYER_SIGN_IN_KIND) {
    const signIn = { storeId: row.store_id, mode: row.mode, publicBaseUrl: deps.config.publicBaseUrl, masterKey: deps.config.masterKey, data: row.data };
    return { mail: renderBuyerSignIn({ ...signIn, storeName: await repo.storeNameOf(deps.db, row.store_id), business: await getBusinessDetails(deps.db, row.store_id) }), waitForKeys: false };
  }
  if (row.kind === REFUND_REMINDER_KIND) {
    return { mail: renderRefundReminder(await repo.storeNameOf(deps.db, row.store_id), row.data as unknown as RefundReminder, `${deps.config.publicBaseUrl}/dashboard`), waitForKeys: false };
  }
  const kind = row.kind as MailKind;
  const d = row.data;
  const orderId =
    row.event_type === 'order.paid' || row.event_type === 'order.awaiting_deposit' ? s(d.id)
    : row.event_type === 'order.refunded' ? s((d.order as Record<string, unknown> | undefined)?.id)
    : s(d.orderId) ?? s(d.latestOrderId);
  const order = orderId ? await loadOrderView(deps.db, orderId, deps) : null;
  const subId = row.event_type.startsWith('subscription.') ? s(d.id) : s(d.subscriptionId);
  const subRow = subId ? await getSubscription(deps.db, subId) : undefined;
  const current = subRow ? (subscriptionView(subRow) as unknown as Record<string, unknown>) : null;
  const subscription = row.event_type.startsWith('subscription.') ? { ...(current ?? {}), ...d } : current;
  let portal: string | null = null;
  if (subRow && PORTAL_KINDS.has(kind)) {
    const now = deps.clock.now();
    const token = randomBase62(40);
    await insertPortalSession(deps.db, {
      id: newId('ps', deps.clock),
      store_id: subRow.store_id,
      mode: subRow.mode,
      buyer_email: subRow.buyer_email,
      subscription_id: subRow.id,
      product_ids: jsonb(null),
      return_url: null,
      token_hash: sha256Hex(token),
      csrf_secret: randomBase62(32),
      expires_at: mailPortalExpiry(kind, d.change as Record<string, unknown> | undefined, Number(subRow.test_clock_offset_ms), now),
      created_at: now,
    });
    portal = portalUrl(deps.config.publicBaseUrl, token);
  }
  // The buyer's language: a subscription's (renewals and every subscription mail), else the order's; Korean by default.
  const lang = subRow ? subRow.locale : orderId ? await repo.localeOfOrder(deps.db, orderId) : 'ko';
  // What the order was sold under (its terms, the plan's name), for the contract notes of 제13조②.
  let sold: RenderInput['sold'] = null;
  if (ORDER_KINDS.has(kind) && orderId) {
    const o = await deps.db.selectFrom('orders').select(['terms', 'plan_id']).where('id', '=', orderId).executeTakeFirst();
    // The plan's name as the buyer bought it (kept in the terms at payment, migration 074), never the plan's name now.
    if (o) sold = { terms: (o.terms ?? null) as SaleTerms | null, planName: soldPlanName(o.terms as SaleTerms | null, o.plan_id) };
  }
  // The started mail's first recurring charge: a price change this subscription was told about at its start.
  const priceSchedule = kind === 'subscription_started' && subRow ? await priceScheduleOf(deps.db, subRow.id) : null;
  const mail = renderMail({
    priceSchedule,
    sold,
    kind,
    lang,
    data: d,
    storeName: await repo.storeNameOf(deps.db, row.store_id),
    business: await getBusinessDetails(deps.db, row.store_id),
    order,
    subscription,
    portalUrl: portal,
    manageUrl: subRow ? `${deps.config.publicBaseUrl}${manageLinkPath(deps.config.masterKey, subRow.id, manageLinkExpiry(kind, d.change as Record<string, unknown> | undefined, Number(subRow.test_clock_offset_ms), deps.clock.now()))}` : null,
  });
  const waitForKeys = ORDER_KINDS.has(kind) && !!order?.licenses.some((l) => l.status === 'pending');
  return { mail, waitForKeys };
}

/**
 * The earliest price change this subscription was told about and not withdrawn (`superseded`/`moot` rows no longer
 * apply): what the renewal at its `decide_by` charges. Read from the decision rows, not the subscription's
 * `price_change`, so a mail rendered after that renewal still tells what was charged then.
 */
async function priceScheduleOf(db: Deps['db'], subscriptionId: string): Promise<PriceSchedule | null> {
  const d = await repo.firstPriceDecision(db, subscriptionId);
  if (!d) return null;
  const amount = Number(d.new_amount);
  return { from: d.decide_by.toISOString(), amount, consentRequired: amount > Number(d.current_amount), accepted: d.accepted_at !== null };
}

const s = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** Sends (or keeps) every due mail once. Returns how many mails were handled. */
export async function runMailOnce(deps: Deps, now: Date, opts: { transport?: MailTransport; limit?: number } = {}): Promise<number> {
  const token = `${deps.worker?.id ?? 'wrk'}:${randomBytes(6).toString('hex')}`;
  // Longer than the slowest send (connection + greeting + socket timeouts) with room to record it.
  const leaseUntil = new Date(now.getTime() + 2 * (SMTP_TIMEOUTS.connectionTimeout + SMTP_TIMEOUTS.greetingTimeout + SMTP_TIMEOUTS.socketTimeout) + 60_000);
  const rows = await deps.db.transaction().execute((trx) => repo.leaseDueMails(trx, { now, token, leaseUntil, limit: opts.limit ?? 50 }));
  for (const row of rows) await handle(deps, row, token, opts.transport);
  return rows.length;
}

async function handle(deps: Deps, row: MailRow, token: string, transport?: MailTransport): Promise<void> {
  const now = deps.clock.now();
  // Checked before rendering: a parked mail is not rendered (nor a portal link minted) every hour for nothing.
  if (row.mode === 'live' && (!deps.config.smtpUrl || !deps.config.mailFrom)) {
    await repo.settleMail(deps.db, row.id, token, { status: 'unconfigured', nextAttemptAt: new Date(now.getTime() + UNCONFIGURED_RECHECK_MS), lastError: 'SMTP_URL is not set' }, now);
    return;
  }
  let rendered: Awaited<ReturnType<typeof renderRow>>;
  try {
    rendered = await renderRow(deps, row);
  } catch (err) {
    deps.log.error({ err, mailId: row.id }, 'mail render failed');
    await retry(deps, row, token, err, now);
    return;
  }
  const { mail, waitForKeys } = rendered;
  if (waitForKeys && now.getTime() - row.created_at.getTime() < KEY_WAIT_MS) {
    await repo.settleMail(deps.db, row.id, token, { status: 'pending', nextAttemptAt: new Date(now.getTime() + 60_000) }, now);
    return;
  }
  if (row.mode === 'test') {
    // Test mode never mails a buyer: the rendered mail is kept for the dashboard's mailbox, and a copy marked [테스트]
    // goes to the store's own addresses when it lists any (src/mail/test-copies.ts).
    const copy = await sendTestCopies(deps, { storeId: row.store_id, buyer: row.recipient, mail, now: () => deps.clock.now(), transport: async () => transport ?? (await smtpTransport(deps)) });
    await repo.settleMail(deps.db, row.id, token, { status: 'captured', subject: mail.subject, text: mail.text, html: mail.html, lastError: null, ...(copy ? { testCopy: copy } : {}) }, deps.clock.now());
    return;
  }
  try {
    // A span per send when tracing is on (SMTP is not HTTP: no instrumentation sees it). No recipient in it.
    await withSpan('mail send', { 'mail.id': row.id, 'mail.kind': row.kind }, async () => {
      const t = transport ?? (await smtpTransport(deps));
      await t.send({ from: deps.config.mailFrom!, to: row.recipient, subject: mail.subject, text: mail.text, html: mail.html });
    }, 'client');
  } catch (err) {
    await retry(deps, row, token, err, deps.clock.now());
    return;
  }
  // A live mail keeps its subject only: the body carries licence keys and a portal link, not kept at rest.
  await repo.settleMail(deps.db, row.id, token, { status: 'sent', attempts: row.attempts + 1, subject: mail.subject, sentAt: deps.clock.now(), lastError: null }, deps.clock.now());
}

async function retry(deps: Deps, row: MailRow, token: string, err: unknown, now: Date): Promise<void> {
  const attempt = row.attempts + 1;
  const delay = RETRY_SCHEDULE_MS[attempt - 1];
  // The message only: nodemailer errors name host and port, never the URL's credentials.
  const error = (err instanceof Error ? err.message : String(err)).slice(0, 1000);
  deps.log.warn({ mailId: row.id, attempt, error }, 'mail send failed');
  await repo.settleMail(
    deps.db,
    row.id,
    token,
    delay === undefined ? { status: 'failed', attempts: attempt, lastError: error } : { status: 'pending', attempts: attempt, nextAttemptAt: new Date(now.getTime() + delay), lastError: error },
    now,
  );
}
