/**
 * The page a buyer sees when a 가상계좌 is issued (test mode's simulator and Toss's window alike), and again whenever
 * they come back to the payment page while it waits. A 가상계좌 is not a payment: the buyer still has to deposit, so
 * sending them straight to the seller's successUrl (as a paid order is) left them without the account, the exact
 * amount and the deadline. The facts come first; the ways onward (the seller's page, the receipt) follow.
 */
import { successRedirectUrl } from '../../checkout/model';
import type { OrderView } from '../../orders/schemas';
import { html, kst, raw } from '../html';
import { payCopy } from './copy';
import { receiptHref } from '../status-page';
import { layout } from '../layout';
import { footerOf, header, LANG_CSS, PAY_SCRIPT, type PageContext } from './views';

// Labels on one line at 390 px (the values wrap instead); the number's copy button sits beside it when it fits.
const HEAD = raw('<style>#va-issued dl.amounts dt{white-space:nowrap}#va-issued dl.amounts dd{overflow-wrap:anywhere}#va-issued .key{margin-top:0}</style>');

/** The deadline as a buyer reads it: date and minute in Korea time, said to be so (a buyer abroad reads it too). */
export const depositDeadline = (dueAt: string | Date): string => `${kst(new Date(dueAt))} (한국 시간)`;

export function virtualAccountIssuedPage(ctx: Pick<PageContext, 'storeName' | 'session' | 'business' | 'lang' | 'here'>, order: OrderView): string {
  const va = order.virtualAccount!;
  const s = ctx.session;
  const c = payCopy(ctx.lang);
  const t = c.va;
  const onward = s.success_url ? successRedirectUrl(s.success_url, order.id, s.id) : null;
  const body = html`${header(ctx)}
<section class="card" id="va-issued" aria-labelledby="va-issued-title">
  <h1 id="va-issued-title">${t.heading}</h1>
  <p class="muted">${t.introBefore}<strong>${t.introStrong(order.amount)}</strong>${t.introAfter}</p>
  <dl class="amounts">
    <dt>${t.bank}</dt><dd id="va-bank" translate="no">${va.bankName}</dd>
    <dt>${t.account}</dt><dd><div class="key"><code id="va-account" tabindex="0">${va.accountNumber}</code><button type="button" data-copy="va-account" hidden aria-label="${t.copyLabel}">${t.copy}</button></div></dd>
    ${va.holderName ? html`<dt>${t.holder}</dt><dd id="va-holder" translate="no">${va.holderName}</dd>` : ''}
    <dt class="total">${t.amount}</dt><dd class="total" id="va-amount">${c.money(order.amount)}</dd>
    <dt>${t.due}</dt><dd id="va-due">${t.deadline(new Date(va.dueAt))}</dd>
  </dl>
  <ul class="terms" id="va-notes">
    ${t.notes(order.buyerEmail).map((n) => html`<li>${n}</li>`)}
  </ul>
  ${onward ? html`<a class="button pay" id="va-onward" href="${onward}">${t.onward(html`<span translate="no">${ctx.storeName}</span>`)}</a>` : ''}
  <a class="button secondary" style="margin-top:12px" id="va-receipt" href="${receiptHref(order.receiptUrl, c)}">${t.receipt}</a>
</section>`;
  return layout({ title: t.title, lang: c.lang, footer: footerOf(ctx), script: PAY_SCRIPT, head: html`${HEAD}${LANG_CSS}` }, body);
}
