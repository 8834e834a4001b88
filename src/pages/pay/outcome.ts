import type { AppDeps } from '../../deps';
import { sessionStatus, successRedirectUrl } from '../../checkout/model';
import { html } from '../html';
import { methodLabel } from '../form';
import { sessionOrder, type LoadedPage } from './service';
import { PAY_SCRIPT } from './views';
import { receipt, statusPage } from '../status-page';
import { virtualAccountIssuedPage } from './virtual-account-issued';
import { payCopy } from './copy';

/** The unknown-outcome pages and the buyer-facing words for gateway refusals (split from pay.ts). */

/**
 * What a handler answers. Handlers return this instead of touching the reply: Fastify's reply is thenable, so an
 * async helper that returned the reply would resolve to undefined and let its caller carry on as if nothing was sent.
 */
export type PageResponse = ({ status: number; html: string; headers?: Record<string, string> } | { redirect: string }) & {
  /** Set when this answer follows a payment taken for the session: its payment attempts no longer need counting. */
  paid?: boolean;
};

/** How often the unknown-outcome page reloads itself (meta refresh; the script polls the status route instead). */
export const CHECKING_REFRESH_SECONDS = 10;

// Refusals that are not the card company's or wallet's answer (our own checks); everything else from the gateway is.
export const OWN_REFUSALS = new Set(['COUPON_INVALID', 'COUPON_EXHAUSTED', 'AMOUNT_MISMATCH', 'STALE_ATTEMPT', 'BILLING_KEY_UNKNOWN', 'RECURRING_CONSENT_REQUIRED', 'TRIAL_ALREADY_USED', 'CUSTOMER_EMAIL_LOCKED']);

/** A decline in words a buyer can act on: who refused, that nothing was charged, and what to try instead. */
export function declineMessage(method: string, gatewayMessage: string): string {
  const who = method === 'card' ? '카드사가' : `${methodLabel(method as never)}에서`;
  const reason = gatewayMessage.replace(/[.。]\s*$/, '');
  // The gateway's own words when they add something ("잔액이 부족합니다"), not when they only repeat "refused".
  const detail = reason && !/거절/.test(reason) ? ` (${reason})` : '';
  return `${who} 결제를 거절했습니다${detail}. 결제되지 않았으니 다른 카드나 다른 결제 수단으로 다시 시도해 주세요.`;
}

const payPath = (id: string) => `/pay/${encodeURIComponent(id)}`;

export function outcomePages(deps: Pick<AppDeps, 'db' | 'clock' | 'config'>, send: (status: number, html: string) => PageResponse) {
/**
 * The gateway's answer was lost (a timeout): reconciliation (src/checkout/reconcile.ts) asks the gateway again
 * RECONCILE_DELAY_MS later and then on the job retry schedule. This page reloads itself every
 * CHECKING_REFRESH_SECONDS (meta refresh; the script polls /status instead) with `?checking=1`, so that when the
 * payment is settled the buyer lands on the receipt (or the store's successUrl) or on a clear failure page.
 */
function checkingPage(page: LoadedPage) {
  const s = page.session;
  const c = payCopy(page.lang);
  const next = `${payPath(s.id)}?checking=1${c.lang === 'en' ? '&lang=en' : ''}`;
  return send(
    202,
    statusPage({
      ctx: page,
      title: c.status.checking.title,
      icon: '🔄',
      message: c.status.checking.message(CHECKING_REFRESH_SECONDS),
      refreshUrl: next,
      refreshSeconds: CHECKING_REFRESH_SECONDS,
      extra: html`<p class="hint" id="checking" data-status-url="${payPath(s.id)}/status" data-next="${next}">${c.status.checking.startedAt}${s.payment?.startedAt ? c.clock(new Date(s.payment.startedAt)) : '-'}</p>`,
      secondary: s.cancel_url ? { href: s.cancel_url, label: c.status.checking.leave } : undefined,
      script: PAY_SCRIPT,
    }),
  );
}

/** Where a `?checking=1` reload ends once the outcome is known: the receipt, or a failure with ways out. */
async function checkedOutcome(page: LoadedPage) {
  const s = page.session;
  const c = payCopy(page.lang);
  if (s.status === 'completed' && s.order_id) {
    const order = await sessionOrder(deps, s.order_id);
    // A 가상계좌 issued after the check: its account first (virtual-account-issued.ts), the seller's page after.
    if (order?.status === 'awaiting_deposit' && order.virtualAccount) return send(200, virtualAccountIssuedPage(page, order));
    if (s.success_url) return { redirect: successRedirectUrl(s.success_url, s.order_id, s.id) };
    return send(200, statusPage({ ctx: page, title: c.status.paid.title, icon: '✅', message: c.status.paid.confirmed, extra: order ? receipt(order, c) : undefined }));
  }
  if (s.status === 'open' && !s.payment && s.attempt && sessionStatus(s, deps.clock.now()) === 'open') {
    return send(
      200,
      statusPage({
        ctx: page,
        title: c.status.notApproved.title,
        icon: '❌',
        message: c.status.notApproved.message,
        action: { href: payPath(s.id), label: c.status.notApproved.again },
        secondary: s.cancel_url ? { href: s.cancel_url, label: c.status.backToStore } : undefined,
      }),
    );
  }
  return null;
}

  return { checkingPage, checkedOutcome };
}
