/**
 * The hosted buyer portal's pages: the portal itself (the buyer's subscriptions as cards, then their orders), the
 * page after an action, and the expired-link page. The forms and consent boxes inside a card have their own files.
 */
import type { OrderView } from '../../orders/schemas';
import { html, kst, raw, type SafeHtml } from '../html';
import { layout } from '../layout';
import { storeFooter } from '../footer';
import type { BusinessDetailsView } from '../../stores/schemas';
import { type PortalPage, type PortalSubscription } from './view-model';
import { cancelChoices, cardForm, planForm } from './forms';
import { portalCopy } from './copy';
import { langSwitch, type Lang } from '../lang';
import { LANG_CSS } from '../pay/views';
import { planOfferBox, priceChangeBox, trialConsentBox } from './consent-views';

/** The seller's footer once portal.ts passes the store's details (`getBusinessDetails(db, storeId)`); nothing before. */
const portalFooter = (p: { storeName: string; business?: BusinessDetailsView | null; lang?: Lang }) => ('business' in p ? storeFooter(p.storeName, p.business, p.lang) : undefined);

/** The store's name (its own, `translate="no"`), the test badge and the language switch when the page knows its address. */
function top(p: { storeName: string; mode: 'live' | 'test'; lang?: Lang; here?: string }): SafeHtml {
  const c = portalCopy(p.lang);
  const badge = p.mode === 'test' ? html`<span class="badge">${c.testMode}</span>` : '';
  return html`<div class="store"><span translate="no">${p.storeName}</span>${p.here ? html`<span class="tools">${badge}${langSwitch(p.here, c.lang)}</span>` : badge}</div>`;
}
const own = (name: string) => html`<span translate="no">${name}</span>`;

/** The hosted buyer portal: Korean, phone-first, server-rendered forms (no JavaScript), every form carrying the CSRF secret. */
const CSS = raw(`<style>
.subhead{display:flex;justify-content:space-between;align-items:flex-start;gap:8px}
.status{border-radius:999px;padding:2px 10px;font-size:12px;font-weight:700;white-space:nowrap}
.status.active{background:#e8f7ee;color:#0a7c42}.status.past_due{background:#fff4e5;color:#b25e00}.status.ended{background:#f2f4f6;color:#6b7684}
.choices{display:grid;grid-template-columns:1fr 1fr;gap:8px;margin-top:16px}
@media (min-width:640px){:root{--col:720px}}
dl.amounts dt{white-space:nowrap}
.choice{border:1px solid #d1d6db;border-radius:12px;padding:12px;display:flex;flex-direction:column;gap:6px;min-width:0}
.choice h3{font-size:15px;margin:0}
.choice .amount{font-size:18px;font-weight:700;font-variant-numeric:tabular-nums;word-break:keep-all}
.choice p{margin:0;font-size:13px;color:#4e5968;word-break:keep-all}
.choice button{margin-top:auto;padding:12px 6px;font-size:15px;word-break:keep-all}
@media (max-width:420px){.choice{padding:10px}.choice h3{font-size:14px}.choice .amount{font-size:16px}.choice button{font-size:14px;padding:11px 4px}}
.now{background:#191f28;color:#fff}
.later{background:#e8f3ff;color:#1b64da}
button:disabled{opacity:.45;cursor:not-allowed}
.orders{list-style:none;margin:0;padding:0}
.orders li{border-top:1px solid #f2f4f6;padding:12px 0;display:grid;grid-template-columns:1fr auto;gap:2px 12px;font-size:14px}
.orders li:first-child{border-top:0}
.orders .amt{text-align:right;font-weight:700;font-variant-numeric:tabular-nums}
.orders a{color:#1b64da;font-size:13px}
.price-change{border:1px solid #ffd8a8;background:#fff9f0;border-radius:12px;padding:12px 14px;margin-top:14px}
.price-change h2,.price-change h3{font-size:15px;margin:0 0 6px}
.price-change p{margin:4px 0;font-size:14px;word-break:keep-all}
.price-change .amount{font-weight:700;font-variant-numeric:tabular-nums}
.price-change button{margin-top:8px}
.back{display:block;text-align:center;margin:20px 0 8px;color:#1b64da;font-weight:600}
details summary{cursor:pointer;font-weight:600;font-size:14px;color:#4e5968;margin-top:14px}
</style>`);


function subscriptionCard(p: PortalPage, s: PortalSubscription): SafeHtml {
  const { sub } = s;
  const c = portalCopy(p.lang);
  const day = c.date;
  return html`<section class="card" aria-label="${c.subscriptionAria(sub.productName)}" data-subscription-id="${sub.id}">
  <div class="subhead">
    <div><h2 class="product" translate="no">${sub.productName}</h2><p class="muted">${own(s.planName)} · ${c.interval[sub.billingInterval]} ${c.money(sub.amount)}</p></div>
    <span class="status ${sub.status}" data-status="${sub.status}">${c.status[sub.status]}</span>
  </div>
  <dl class="amounts">
    ${sub.status === 'ended'
      ? html`<dt>${c.endedOn}</dt><dd>${sub.endedAt ? day(sub.endedAt) : '-'}</dd>`
      : html`<dt>${c.period}</dt><dd>${day(sub.currentPeriodStart)} ~ ${day(sub.currentPeriodEnd)}</dd>
    <dt>${sub.cancelAtPeriodEnd ? c.cancelsOn : c.nextCharge}</dt><dd>${day(sub.currentPeriodEnd)}</dd>`}
    <dt>${c.card}</dt><dd>${sub.card ? html`<span translate="no">${sub.card.brand ?? c.cardWord}</span> ${sub.card.last4 ?? ''}` : '-'}</dd>
  </dl>
  ${sub.status !== 'ended' && s.planOffer ? planOfferBox(p, sub, s.planOffer) : ''}
  ${sub.status !== 'ended' && s.trialConsent ? trialConsentBox(p, sub, s.trialConsent) : ''}
  ${sub.status !== 'ended' ? (s.priceChanges ?? []).map((c) => priceChangeBox(p, sub, c)) : ''}
  ${sub.trialing && sub.trialEndsAt && !(s.trialConsent && !s.trialConsent.consentedAt) ? html`<div class="banner info" style="margin-top:12px" id="trial-${sub.id}">${c.trial(day(sub.trialEndsAt), sub.amount, sub.cancelAtPeriodEnd)}</div>` : ''}
  ${sub.recurringConsent ? html`<details class="consent" id="consent-${sub.id}"><summary>${c.consentSummary(day(sub.recurringConsent.consentedAt))}</summary>${c.lang === 'en' ? html`<p class="muted" lang="ko">${sub.recurringConsent.text}</p><p class="muted">${c.consentEn(sub.recurringConsent.text)}</p>` : html`<p class="muted">${sub.recurringConsent.text}</p>`}</details>` : ''}
  ${sub.status === 'past_due' ? html`<div class="banner error" style="margin-top:12px">${c.pastDue}</div>` : ''}
  ${sub.status !== 'ended' ? cancelChoices(p, s) : ''}
  ${sub.status === 'active' ? planForm(p, s) : ''}
  ${sub.status !== 'ended' && p.cardEntry ? cardForm(p, sub) : ''}
</section>`;
}

function ordersCard(orders: OrderView[], lang?: Lang): SafeHtml {
  if (orders.length === 0) return html``;
  const c = portalCopy(lang);
  return html`<section class="card" aria-label="${c.orders}">
  <h2>${c.orders}</h2>
  <ul class="orders">
  ${orders.map(
    (o) => html`<li data-order-id="${o.id}">
      <span>${o.paidAt ? c.date(o.paidAt) : '-'} · ${own(o.productName)}<br><span class="muted">${c.methodLabel(o.method)} · ${o.status === 'refunded' ? c.refunded : o.refundedAmount ? c.partial(o.refundedAmount) : c.paid}</span></span>
      <span class="amt">${c.money(o.amount)}<br><a href="${c.lang === 'en' ? `${o.receiptUrl}&lang=en` : o.receiptUrl}">${c.receipt}</a></span>
    </li>`,
  )}
  </ul>
</section>`;
}

export function portalPage(p: PortalPage): string {
  const c = portalCopy(p.lang);
  return layout(
    { title: c.title, lang: c.lang, head: html`${CSS}${LANG_CSS}`, footer: portalFooter(p) },
    html`${top(p)}
<h1>${c.title}</h1>
${p.banner ? html`<div class="banner ${p.banner.kind}" role="${p.banner.kind === 'error' ? 'alert' : 'status'}">${c.notice(p.banner.text)}</div>` : ''}
${p.subscriptions.map((s) => subscriptionCard(p, s))}
${ordersCard(p.orders, p.lang)}
${p.returnUrl ? html`<a class="back" href="${p.returnUrl}" data-action="return">${c.backTo(own(p.storeName))}</a>` : ''}`,
  );
}

export function portalDone(p: {
  storeName: string;
  mode: 'live' | 'test';
  title: string;
  message: string;
  portalPath: string;
  returnUrl: string | null;
  business?: BusinessDetailsView | null;
  /** The parts of a cancel's refund, each with what happens to it (a portal cancel waiting for the seller). */
  parts?: Array<{ label: string; amount: number; note: string }>;
  lang?: Lang;
}): string {
  const c = portalCopy(p.lang);
  return layout(
    { title: p.title, lang: c.lang, footer: portalFooter(p) },
    html`${top(p)}
<section class="card center" role="status">
  <p class="big" aria-hidden="true">✅</p>
  <h1>${p.title}</h1>
  <p class="muted">${p.message}</p>
  ${p.parts && p.parts.length
    ? html`<dl class="amounts" aria-label="${c.refundParts}" style="text-align:left">${p.parts.map(
        (x) => html`<dt>${x.label}</dt><dd data-part-amount="${x.amount}">${c.money(x.amount)}</dd><dd class="hint" style="grid-column:1/-1;text-align:left;margin:0 0 8px">${x.note}</dd>`,
      )}</dl>`
    : ''}
  ${p.returnUrl ? html`<a class="button pay" href="${p.returnUrl}" data-action="return">${c.backTo(own(p.storeName))}</a>` : ''}
  <a class="cancel" href="${p.portalPath}">${c.toPortal}</a>
</section>`,
  );
}

export function portalGone(lang?: Lang): string {
  const c = portalCopy(lang);
  return layout(
    { title: c.gone.title, lang: c.lang },
    html`<section class="card center" role="status">
  <p class="big" aria-hidden="true">⏳</p>
  <h1>${c.gone.title}</h1>
  <p class="muted">${c.gone.message}</p>
</section>`,
  );
}

export { kst };
