import type { AppDeps } from '../../deps';
import { sessionStatus, successRedirectUrl } from '../../checkout/model';
import { html, kstTime } from '../html';
import { methodLabel } from '../form';
import { sessionOrder, type LoadedPage } from './service';
import { PAY_SCRIPT } from './views';
import { receipt, statusPage } from '../status-page';
import { virtualAccountIssuedPage } from './virtual-account-issued';

/** The unknown-outcome pages and the buyer-facing words for gateway refusals (split from pay.ts). */

/**
 * What a handler answers. Handlers return this instead of touching the reply: Fastify's reply is thenable, so an
 * async helper that returned the reply would resolve to undefined and let its caller carry on as if nothing was sent.
 */
export type PageResponse = { status: number; html: string; headers?: Record<string, string> } | { redirect: string };

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
  const next = `${payPath(s.id)}?checking=1`;
  return send(
    202,
    statusPage({
      ctx: page,
      title: '결제 결과를 확인하고 있습니다',
      icon: '🔄',
      message:
        `결제사로부터 결과를 받지 못해 확인하고 있습니다. 보통 1~2분 안에 끝나며, 길어지면 몇 분 더 걸릴 수 있습니다. 이 화면은 ${CHECKING_REFRESH_SECONDS}초마다 저절로 새로 고쳐집니다. ` +
        '결제가 확인되면 주문이 완료되고, 확인되지 않으면 청구되지 않습니다. 중복 결제를 막기 위해 확인이 끝날 때까지 다시 결제할 수 없습니다.',
      refreshUrl: next,
      refreshSeconds: CHECKING_REFRESH_SECONDS,
      extra: html`<p class="hint" id="checking" data-status-url="${payPath(s.id)}/status" data-next="${next}">확인을 시작한 시각: ${s.payment?.startedAt ? kstTime(new Date(s.payment.startedAt)) : '-'}</p>`,
      secondary: s.cancel_url ? { href: s.cancel_url, label: '확인을 기다리지 않고 상점으로 돌아가기' } : undefined,
      script: PAY_SCRIPT,
    }),
  );
}

/** Where a `?checking=1` reload ends once the outcome is known: the receipt, or a failure with ways out. */
async function checkedOutcome(page: LoadedPage) {
  const s = page.session;
  if (s.status === 'completed' && s.order_id) {
    const order = await sessionOrder(deps, s.order_id);
    // A 가상계좌 issued after the check: its account first (virtual-account-issued.ts), the seller's page after.
    if (order?.status === 'awaiting_deposit' && order.virtualAccount) return send(200, virtualAccountIssuedPage(page, order));
    if (s.success_url) return { redirect: successRedirectUrl(s.success_url, s.order_id, s.id) };
    return send(200, statusPage({ ctx: page, title: '결제가 완료되었습니다', icon: '✅', message: '결제사에서 결제가 확인되어 주문이 완료되었습니다.', extra: order ? receipt(order) : undefined }));
  }
  if (s.status === 'open' && !s.payment && s.attempt && sessionStatus(s, deps.clock.now()) === 'open') {
    return send(
      200,
      statusPage({
        ctx: page,
        title: '결제가 승인되지 않았습니다',
        icon: '❌',
        message: '결제사에서 이 결제가 승인되지 않은 것으로 확인되어 청구되지 않았습니다. 다른 카드나 다른 결제 수단으로 다시 결제할 수 있습니다.',
        action: { href: payPath(s.id), label: '다시 결제하기' },
        secondary: s.cancel_url ? { href: s.cancel_url, label: '상점으로 돌아가기' } : undefined,
      }),
    );
  }
  return null;
}

  return { checkingPage, checkedOutcome };
}
