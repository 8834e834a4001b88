import type { Receipt } from '../../refunds/requests/buyer-receipt';
import type { RefundRequestView } from '../../refunds/requests/model';
import { html, raw, type SafeHtml } from '../html';
import { soldPlanName } from '../../orders/terms';
import { layout } from '../layout';
import type { BusinessDetailsView } from '../../stores/schemas';
import { licensesCard } from '../license-keys';
import { storeFooter } from '../footer';
import { PAY_SCRIPT } from '../pay/views';
import { cashReceiptLine } from '../status-page';
import { phoneGiftCard, phoneNeedsAccount, phoneRequestText } from './phone-gift';
import { payCopy } from '../pay/copy';
import { requestAccountFields, virtualAccountCard, type RefundAccountErrors, type VirtualAccountCardInput } from './virtual-account';
import { COPY, enDay, type Lang, type ReceiptCopy } from './copy';
import { taxInvoiceCard, type TaxInvoiceCardInput } from './tax-invoice';
import { disputesCard, recurringCard, restrictionCard, withdrawalCard, type LegalInput } from './legal';

/**
 * The buyer's receipt page (Korean by default, English with `?lang=en`; phone-first): the order, its refunds, filing
 * or canceling a refund request, and the statements the law asks a receipt for (legal.ts).
 */

const EXTRA_CSS = raw(`<style>
textarea{width:100%;min-height:96px;font:inherit;font-size:16px;padding:12px 14px;border:1px solid #d1d6db;border-radius:10px;resize:vertical}
input[inputmode=numeric]{width:100%;font-size:16px;padding:12px 14px;border:1px solid #d1d6db;border-radius:10px}
.status{display:inline-block;border-radius:999px;padding:2px 10px;font-size:13px;font-weight:600;background:#e8f3ff;color:#1b64da}
.status.rejected,.status.canceled{background:#f2f4f6;color:#4e5968}
.status.approved{background:#e9f9ef;color:#0a7c42}
.status.held{background:#fff4e5;color:#b25e00}
ul.list{list-style:none;margin:0;padding:0}
ul.list li{border-top:1px solid #f2f4f6;padding:10px 0}
ul.list li:first-child{border-top:0;padding-top:0}
.line{display:flex;justify-content:space-between;gap:12px}
.amount{font-weight:700;font-variant-numeric:tabular-nums;white-space:nowrap}
dl.amounts dt{white-space:nowrap}
dl.amounts dd{overflow-wrap:anywhere}
.store .tools{display:flex;align-items:center;gap:10px}
.store a.lang{color:#1b64da;font-weight:600;text-decoration:none;padding:4px 0}
.legal ul.terms li{line-height:1.6}
.legal a{color:#1b64da;overflow-wrap:anywhere}
.legal p{font-size:14px;margin:12px 0 0}
.legal dl.amounts{margin:0 0 12px}
main{overflow-wrap:break-word}
html[lang=ko] main{word-break:keep-all}
.legal a[href^="tel:"]{white-space:nowrap}
#order-id{white-space:nowrap}
@media (max-width:480px){dl.amounts dd#order-id{grid-column:1/-1;margin-top:-4px}}
@media (min-width:900px){:root{--col:600px}main{padding-top:40px}}
</style>`);

export interface ReceiptForm {
  amount: string;
  reason: string;
  /** A deposited 가상계좌: the refund account typed with the request (never the number) and its errors. */
  account?: { typed: { bankCode: string; holderName: string }; errors: RefundAccountErrors };
}

export interface ReceiptPageOptions {
  receipt: Receipt;
  token: string;
  lang?: Lang;
  /** The seller's business details for the footer and the complaints statement. */
  business?: BusinessDetailsView | null;
  /** A message for the whole page: an error (the request was refused) or a confirmation. */
  banner?: { kind: 'error' | 'info'; text: string };
  form?: ReceiptForm;
  /** 가상계좌 orders: the refund account on file and the refund-account form's errors (virtual-account.ts). */
  virtualAccount?: Omit<VirtualAccountCardInput, 'order' | 'token' | 'c'>;
  /** The order's 세금계산서 documents and request form (tax-invoice.ts). */
  taxInvoice?: Omit<TaxInvoiceCardInput, 'orderId' | 'token' | 'lang'>;
}

function orderCard(r: Receipt, c: ReceiptCopy): SafeHtml {
  const o = r.order;
  const refunded = o.refundedAmount ?? 0;
  // The plan as sold (its name kept in the order's terms at payment), never the product's plan list as it is now.
  const plan = o.planId ? soldPlanName(r.terms, o.planId) : null;
  const status = o.status === 'paid' && refunded > 0 ? c.order.statuses.partial : c.order.statuses[o.status] ?? o.status;
  return html`<section class="card" aria-label="${c.order.aria}">
  <h1>${c.order.heading}</h1>
  <p class="product" translate="no">${o.productName}</p>
  <dl class="amounts">
    <dt>${c.order.id}</dt><dd id="order-id">${o.id}</dd>
    <dt>${c.order.status}</dt><dd id="order-status">${status}</dd>
    ${plan ? html`<dt>${c.order.plan}</dt><dd id="plan-name">${plan}${o.billingInterval ? ` · ${c.order.cycle[o.billingInterval] ?? ''}` : ''}</dd>` : ''}
    <dt>${c.order.method}</dt><dd id="payment-method">${c.order.methodLabel(o.method)}${c.order.installment(r.installmentMonths)}</dd>
    <dt>${c.order.paidAt}</dt><dd>${o.paidAt ? c.time(new Date(o.paidAt)) : '-'}</dd>
    ${o.coupon ? html`<dt>${c.order.coupon(o.coupon.code)}</dt><dd class="discount">-${c.money(o.coupon.discountAmount)}</dd>` : ''}
    <dt class="total">${c.order.total}</dt><dd class="total">${c.money(o.amount)}</dd>
    ${refunded > 0 ? html`<dt>${c.order.refunded}</dt><dd id="refunded-amount" class="discount">-${c.money(refunded)}</dd>` : ''}
    ${o.cashReceipt ? cashReceiptLine(o.cashReceipt, payCopy(c.lang), o.status) : ''}
  </dl>
</section>`;
}

function refundsCard(r: Receipt, c: ReceiptCopy): SafeHtml {
  if (r.order.refunds.length === 0) return html``;
  return html`<section class="card" aria-label="${c.refunds.aria}" id="refunds">
  <h2>${c.refunds.heading}</h2>
  <ul class="list">
    ${r.order.refunds.map(
      (f) => html`<li><div class="line"><span>${c.time(new Date(f.at))}</span><span class="amount">${c.money(f.amount)}</span></div>${f.reason ? html`<p class="muted">${f.reason}</p>` : ''}</li>`,
    )}
  </ul>
  <p class="hint">${c.refunds.cardHint}</p>
</section>`;
}

const hidden = (token: string, lang: Lang) => html`<input type="hidden" name="t" value="${token}">${lang === 'en' ? html`<input type="hidden" name="lang" value="en">` : ''}`;

function activeCard(a: RefundRequestView, token: string, action: string, c: ReceiptCopy): SafeHtml {
  return html`<section class="card" aria-label="${c.request.heading}" id="refund-request">
  <h2>${c.request.heading} <span class="status ${a.status}" id="request-status">${c.request.statuses[a.status]}</span></h2>
  <dl class="amounts">
    <dt>${c.request.amount}</dt><dd>${c.money(a.amount)}</dd>
    <dt>${c.request.at}</dt><dd>${c.time(new Date(a.requestedAt))}</dd>
  </dl>
  ${a.reason ? html`<p class="muted">${c.request.reason(a.reason)}</p>` : ''}
  ${a.status === 'held' && a.decisionReason ? html`<div class="banner info" style="margin-top:12px">${c.request.held(a.decisionReason)}</div>` : ''}
  ${a.autoApproveAt ? html`<div class="banner info" style="margin-top:12px" id="auto-approval">${a.statutory ? c.request.auto(new Date(a.autoApproveAt)) : c.request.cancelAuto(new Date(a.autoApproveAt))}</div>` : ''}
  ${a.processing
    ? html`<p class="muted" style="margin-top:12px">${c.request.processing}</p>`
    : html`<form method="post" action="${action}/cancel">
    ${hidden(token, c.lang)}
    <button class="danger" style="margin-top:16px" type="submit">${c.request.cancel}</button>
  </form>`}
</section>`;
}

function requestForm(r: Receipt, token: string, action: string, form: ReceiptForm | undefined, c: ReceiptCopy, refundAccount: string | null): SafeHtml {
  const windowEnd = r.statutoryOpen ? r.statutoryWindowEndsAt : null;
  return html`<section class="card" aria-label="${c.form.aria}" id="refund-form">
  <h2>${c.form.heading}</h2>
  <p class="muted">${c.form.refundableBefore}<strong id="refundable">${c.money(r.refundable)}</strong>${c.form.refundableAfter}</p>
  ${windowEnd ? html`<p class="hint" id="window-hint">${c.form.window(c.endOfDay(windowEnd))}</p>` : ''}
  <form method="post" action="${action}" novalidate>
    ${hidden(token, c.lang)}
    <label for="amount">${c.form.amount}</label>
    <input id="amount" name="amount" type="text" inputmode="numeric" autocomplete="off" value="${form?.amount ?? r.refundable.toLocaleString('en-US')}">
    <p class="hint">${c.form.amountHint}</p>
    <label for="reason">${c.form.reason}</label>
    <textarea id="reason" name="reason" maxlength="500" placeholder="${c.form.placeholder}">${form?.reason ?? ''}</textarea>
    ${r.order.virtualAccount || r.order.method === 'mobile_phone' ? requestAccountFields({ c, onFile: refundAccount, errors: form?.account?.errors, typed: form?.account?.typed, ...(r.order.virtualAccount ? {} : phoneRequestText(c.lang, phoneNeedsAccount(r.order, r.now))) }) : ''}
    <button class="pay" type="submit">${c.form.submit}</button>
  </form>
</section>`;
}

function historyCard(r: Receipt, c: ReceiptCopy): SafeHtml {
  const past = r.requests.filter((x) => x.status !== 'requested' && x.status !== 'held');
  if (past.length === 0) return html``;
  return html`<section class="card" aria-label="${c.history.aria}" id="request-history">
  <h2>${c.history.heading}</h2>
  <ul class="list">
    ${past.map(
      (x) => html`<li><div class="line"><span class="status ${x.status}">${c.request.statuses[x.status]}</span><span class="amount">${c.money(x.approvedAmount ?? x.amount)}</span></div>
      <p class="muted">${c.time(new Date(x.decidedAt ?? x.requestedAt))}${x.status === 'rejected' && x.decisionReason ? c.history.rejected(x.decisionReason) : ''}</p></li>`,
    )}
  </ul>
</section>`;
}

/** The same receipt in the other language (the token stays in the address, as it is in this one). */
function langLink(r: Receipt, token: string, c: ReceiptCopy): SafeHtml {
  const to = c.switchTo.lang;
  const href = `/receipt/${encodeURIComponent(r.order.id)}?t=${encodeURIComponent(token)}&lang=${to}`;
  return html`<a class="lang" id="lang-switch" href="${href}" hreflang="${to}" lang="${to}">${c.switchTo.label}</a>`;
}

export function receiptPage(p: ReceiptPageOptions): string {
  const r = p.receipt;
  const lang = p.lang ?? 'ko';
  const c = COPY[lang];
  const action = `/receipt/${encodeURIComponent(r.order.id)}/refund-request`;
  const legal: LegalInput = { r, c, lang, business: p.business };
  let requestSection: SafeHtml;
  if (r.active) requestSection = activeCard(r.active, p.token, action, c);
  else if (r.blocked) requestSection = html`<section class="card" id="refund-form"><h2>${c.request.heading}</h2><p class="muted" id="blocked">${c.buyerMessage(r.blocked, r.refundable)}</p></section>`;
  else requestSection = requestForm(r, p.token, action, p.form, c, p.virtualAccount?.refundAccount ?? null);
  return layout(
    { title: c.title(r.order.productName), lang, head: EXTRA_CSS, footer: storeFooter(r.storeName, p.business, lang), script: PAY_SCRIPT },
    html`<div class="store"><span translate="no">${r.storeName}</span><span class="tools">${r.order.mode === 'test' ? html`<span class="badge">${c.testMode}</span>` : ''}${langLink(r, p.token, c)}</span></div>
${p.banner ? html`<div class="banner ${p.banner.kind}" role="${p.banner.kind === 'error' ? 'alert' : 'status'}" id="banner">${p.banner.text}</div>` : ''}
${orderCard(r, c)}
${virtualAccountCard({ order: r.order, token: p.token, c, refundAccount: p.virtualAccount?.refundAccount ?? null, errors: p.virtualAccount?.errors, typed: p.virtualAccount?.typed })}
${p.taxInvoice ? taxInvoiceCard({ ...p.taxInvoice, orderId: r.order.id, token: p.token, lang }) : ''}
${phoneGiftCard({ order: r.order, token: p.token, c, now: r.now, refundAccount: p.virtualAccount?.refundAccount ?? null, errors: p.virtualAccount?.errors, typed: p.virtualAccount?.typed })}
${licensesCard(r.order.licenses, lang, enDay)}
${recurringCard(legal)}
${refundsCard(r, c)}
${requestSection}
${historyCard(r, c)}
${withdrawalCard(legal)}
${restrictionCard(legal)}
${disputesCard(legal)}
<p class="hint center">${c.privateLink}</p>`,
  );
}
