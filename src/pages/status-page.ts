/**
 * The pages that say how a payment stands: the status page (paid, failed, waiting, expired; icons as inline SVG, an
 * optional refresh) and the receipt shown on the payment page once paid, with licence keys and the 현금영수증 line.
 */
import { ownValue } from '../platform/lookup';
import type { OrderView } from '../orders/schemas';
import { html, type SafeHtml } from './html';
import { layout } from './layout';
import { licensesCard } from './license-keys';
import { footerOf, header, LANG_CSS, type FooterCtx } from './pay/views';
import { payCopy, type PayCopy } from './pay/copy';
import { enDay } from './lang';

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
    { title: p.title, lang: p.lang ?? p.ctx?.lang, refresh: p.refreshUrl ? { url: p.refreshUrl, seconds: p.refreshSeconds ?? 3 } : undefined, footer: footerOf(p.ctx), head: p.head ?? (p.ctx?.here ? LANG_CSS : undefined), script: p.script },
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
export function receipt(order: OrderView, c: PayCopy = payCopy('ko')): SafeHtml {
  return html`${receiptLines(order, c)}
${order.licenses.length ? html`<div style="text-align:left;margin-top:16px">${licensesCard(order.licenses, c.lang, enDay)}</div>` : ''}
<a class="button secondary" style="margin-top:16px" href="${receiptHref(order.receiptUrl, c)}">${c.receipt.open}</a>`;
}

/** The receipt link in the page's language (the receipt reads `?lang=`). */
export const receiptHref = (url: string, c: PayCopy): string => (c.lang === 'en' ? `${url}${url.includes('?') ? '&' : '?'}lang=en` : url);

/** The order's 현금영수증: type, to whom, its number and Toss's receipt link. */
export function cashReceiptLine(c: NonNullable<OrderView['cashReceipt']>, t: PayCopy = payCopy('ko'), orderStatus?: OrderView['status']): SafeHtml {
  const r = t.receipt;
  // A transfer's receipt (or a deposited 가상계좌's) is being issued right after the payment; a 가상계좌 waits for the deposit.
  const status = c.status === 'requested' && orderStatus && orderStatus !== 'awaiting_deposit' ? r.cashStatus.issuing : r.cashStatus[c.status];
  const type = t.lang === 'en' ? html`<span lang="ko">${c.type}</span>` : c.type;
  return html`<dt>${r.cashReceipt}</dt><dd id="cash-receipt">${type}${c.identity ? html` (${c.requestedBy === 'mandatory' ? r.cashSelfIssued : c.identity})` : ''} · <span id="cash-receipt-status">${status}</span>${c.issueNumber ? html`<br>${r.cashNo} <span id="cash-receipt-number">${c.issueNumber}</span>` : ''}${c.amount !== null && c.status === 'partially_canceled' ? html` · ${t.money(c.amount)}` : ''}${c.receiptUrl ? html`<br><a id="cash-receipt-link" href="${c.receiptUrl}" target="_blank" rel="noopener">${r.cashView}</a>` : ''}</dd>`;
}

function receiptLines(order: OrderView, c: PayCopy): SafeHtml {
  const r = c.receipt;
  return html`<dl class="amounts" style="text-align:left">
  <dt>${r.orderNo}</dt><dd>${order.id}</dd>
  <dt>${r.product}</dt><dd translate="no">${order.productName}</dd>
  ${order.coupon ? html`<dt>${r.coupon(order.coupon.code)}</dt><dd class="discount">-${c.money(order.coupon.discountAmount)}</dd>` : ''}
  <dt>${r.method}</dt><dd>${c.methodLabel(order.method)}</dd>
  ${order.virtualAccount && order.status === 'awaiting_deposit'
    ? html`<dt>${r.bank}</dt><dd id="va-bank" translate="no">${order.virtualAccount.bankName}</dd>
  <dt>${r.account}</dt><dd id="va-account">${order.virtualAccount.accountNumber}</dd>
  <dt>${r.holder}</dt><dd translate="no">${order.virtualAccount.holderName}</dd>
  <dt>${r.due}</dt><dd id="va-due">${c.time(new Date(order.virtualAccount.dueAt))}</dd>`
    : html`<dt>${r.paidAt}</dt><dd>${order.paidAt ? c.time(new Date(order.paidAt)) : '-'}</dd>`}
  <dt class="total">${r.total}</dt><dd class="total">${c.money(order.amount)}</dd>
  ${order.cashReceipt ? cashReceiptLine(order.cashReceipt, c, order.status) : ''}
</dl>`;
}
