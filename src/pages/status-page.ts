/**
 * The pages that say how a payment stands: the status page (paid, failed, waiting, expired; icons as inline SVG, an
 * optional refresh) and the receipt shown on the payment page once paid, with licence keys and the 현금영수증 line.
 */
import { ownValue } from '../platform/lookup';
import type { OrderView } from '../orders/schemas';
import { html, kst, won, type SafeHtml } from './html';
import { layout } from './layout';
import { methodLabel } from './form';
import { licensesCard } from './license-keys';
import { footerOf, header, type FooterCtx } from './pay/views';

interface StatusPage {
  title: string;
  lang?: 'ko' | 'en';
  icon: string;
  message: string;
  ctx?: FooterCtx;
  action?: { href: string; label: string };
  /** A second, quieter way out (e.g. back to the store next to "pay again"). */
  secondary?: { href: string; label: string };
  head?: SafeHtml;
  script?: string;
  refreshUrl?: string;
  refreshSeconds?: number;
  extra?: SafeHtml;
}

// The status icons as inline SVG: emoji depend on the device's fonts (a desktop or headless browser without an emoji
// font shows an empty box). Colours: success green, failure red, waiting blue, notices grey.
const ICON_PATHS = {
  check: { color: '#0a7c42', d: 'M16 25l6 6 12-13' },
  cross: { color: '#c4162a', d: 'M18 18l14 14M32 18L18 32' },
  clock: { color: '#1b64da', d: 'M25 14v11l7 5' },
  info: { color: '#4e5968', d: 'M25 14v14M25 34v1' },
} as const;
const ICONS: Record<string, keyof typeof ICON_PATHS> = { '✅': 'check', '❌': 'cross', '⏳': 'clock', '⏰': 'clock', '🔄': 'clock' };

function statusIcon(emoji: string): SafeHtml {
  const icon = ICON_PATHS[ownValue(ICONS, emoji) ?? 'info'];
  return html`<svg class="status-icon" width="56" height="56" viewBox="0 0 50 50" aria-hidden="true" focusable="false"><circle cx="25" cy="25" r="23" fill="${icon.color}" opacity=".12"/><path d="${icon.d}" stroke="${icon.color}" stroke-width="4" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>`;
}

export function statusPage(p: StatusPage): string {
  return layout(
    { title: p.title, lang: p.lang, refresh: p.refreshUrl ? { url: p.refreshUrl, seconds: p.refreshSeconds ?? 3 } : undefined, footer: footerOf(p.ctx), head: p.head, script: p.script },
    html`${p.ctx ? header(p.ctx) : ''}
<section class="card center" role="status">
  <p class="big" aria-hidden="true">${statusIcon(p.icon)}</p>
  <h1>${p.title}</h1>
  <p class="muted">${p.message}</p>
  ${p.extra ?? ''}
  ${p.action ? html`<a class="button secondary" style="margin-top:20px" href="${p.action.href}">${p.action.label}</a>` : ''}
  ${p.secondary ? html`<a class="cancel" href="${p.secondary.href}">${p.secondary.label}</a>` : ''}
</section>`,
  );
}

/** The order summary shown on the payment page once it is paid (no successUrl), with the license keys and the receipt link. */
export function receipt(order: OrderView): SafeHtml {
  return html`${receiptLines(order)}
${order.licenses.length ? html`<div style="text-align:left;margin-top:16px">${licensesCard(order.licenses)}</div>` : ''}
<a class="button secondary" style="margin-top:16px" href="${order.receiptUrl}">영수증 페이지 열기 (환불 요청)</a>`;
}

const CASH_RECEIPT_STATUS: Record<NonNullable<OrderView['cashReceipt']>['status'], string> = {
  requested: '입금 확인 후 발급',
  issued: '발급됨',
  partially_canceled: '환불 금액만큼 부분 취소됨',
  canceled: '취소됨 (전액 환불)',
  failed: '발급 실패 (판매자가 다시 발급합니다)',
};

/** The order's 현금영수증: type, to whom, its number and Toss's receipt link. */
export function cashReceiptLine(c: NonNullable<OrderView['cashReceipt']>, orderStatus?: OrderView['status']): SafeHtml {
  // A transfer's receipt (or a deposited 가상계좌's) is being issued right after the payment; a 가상계좌 waits for the deposit.
  const status = c.status === 'requested' && orderStatus && orderStatus !== 'awaiting_deposit' ? '발급 중' : CASH_RECEIPT_STATUS[c.status];
  return html`<dt>현금영수증</dt><dd id="cash-receipt">${c.type}${c.identity ? html` (${c.requestedBy === 'mandatory' ? '국세청 자진발급번호 010-000-1234' : c.identity})` : ''} · <span id="cash-receipt-status">${status}</span>${c.issueNumber ? html`<br>승인번호 <span id="cash-receipt-number">${c.issueNumber}</span>` : ''}${c.amount !== null && c.status === 'partially_canceled' ? html` · ${won(c.amount)}` : ''}${c.receiptUrl ? html`<br><a id="cash-receipt-link" href="${c.receiptUrl}" target="_blank" rel="noopener">현금영수증 보기</a>` : ''}</dd>`;
}

function receiptLines(order: OrderView): SafeHtml {
  return html`<dl class="amounts" style="text-align:left">
  <dt>주문 번호</dt><dd>${order.id}</dd>
  <dt>상품</dt><dd>${order.productName}</dd>
  ${order.coupon ? html`<dt>쿠폰 할인 (${order.coupon.code})</dt><dd class="discount">-${won(order.coupon.discountAmount)}</dd>` : ''}
  <dt>결제 수단</dt><dd>${methodLabel(order.method)}</dd>
  ${order.virtualAccount && order.status === 'awaiting_deposit'
    ? html`<dt>입금 은행</dt><dd id="va-bank">${order.virtualAccount.bankName}</dd>
  <dt>계좌번호</dt><dd id="va-account">${order.virtualAccount.accountNumber}</dd>
  <dt>예금주</dt><dd>${order.virtualAccount.holderName}</dd>
  <dt>입금 기한</dt><dd id="va-due">${kst(new Date(order.virtualAccount.dueAt))}</dd>`
    : html`<dt>결제 일시</dt><dd>${order.paidAt ? kst(new Date(order.paidAt)) : '-'}</dd>`}
  <dt class="total">결제 금액</dt><dd class="total">${won(order.amount)}</dd>
  ${order.cashReceipt ? cashReceiptLine(order.cashReceipt, order.status) : ''}
</dl>`;
}
