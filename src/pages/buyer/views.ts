/**
 * The buyer page's views: the sign-in form, "check your mail", the sign-in link's confirm page (a button, so a mail
 * scanner that follows links never uses the link up), and the signed-in overview: subscriptions (each with its
 * 구독 관리 button), then orders with receipt, licence keys and devices, refund requests and 현금영수증.
 */
import type { BusinessDetailsView } from '../../stores/schemas';
import type { BuyerOrder, BuyerOverview } from '../../buyers/service';
import type { Mode } from '../../platform/tables';
import { html, raw, won, type SafeHtml } from '../html';
import { layout } from '../layout';
import { storeFooter } from '../footer';
import { PAY_SCRIPT } from '../pay/views';
import { COPY, type Lang } from './copy';

export interface Frame {
  storeName: string;
  mode: Mode;
  /** The page's path (`/s/{storeId}/orders` or `/s/{storeId}/test/orders`). */
  base: string;
  lang: Lang;
  business: BusinessDetailsView | null;
}

const CSS = raw(`<style>
@media (min-width:720px){:root{--col:680px}}
.top{display:flex;justify-content:space-between;align-items:center;gap:8px;flex-wrap:wrap}
.top a{color:#1b64da;font-size:14px}
.who{display:flex;justify-content:space-between;align-items:center;gap:12px;flex-wrap:wrap}
.who form{margin:0}
.who button{width:auto;padding:10px 16px;font-size:15px}
.section-title{font-size:18px;margin:20px 2px 10px}
.subhead{display:flex;justify-content:space-between;align-items:flex-start;gap:8px}
dl.facts{display:grid;grid-template-columns:auto 1fr;gap:4px 12px;margin:12px 0 0;font-size:14px}
dl.facts dt{color:#4e5968}
dl.facts dd{margin:0;text-align:right;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.links{display:flex;gap:16px;flex-wrap:wrap;margin-top:12px}
.links a{color:#1b64da;font-size:14px;font-weight:600}
.sub-block{margin-top:14px;padding-top:12px;border-top:1px solid #f2f4f6}
.sub-block h3{font-size:15px;margin:0 0 6px}
.devices{list-style:none;margin:8px 0 0;padding:0}
.devices li{display:flex;justify-content:space-between;align-items:center;gap:8px;padding:6px 0;font-size:14px}
.devices form{margin:0}
.devices button{width:auto;padding:8px 12px;font-size:14px}
button.manage{margin-top:14px}
</style>`);

function frame(f: Frame, title: string, body: SafeHtml, opts: { script?: boolean; langPath?: string } = {}): string {
  const c = COPY[f.lang];
  const other: Lang = f.lang === 'en' ? 'ko' : 'en';
  const switchHref = `${opts.langPath ?? f.base}?lang=${other}`;
  return layout(
    { title: `${title} · ${f.storeName}`, lang: f.lang, head: CSS, footer: storeFooter(f.storeName, f.business, f.lang), script: opts.script ? PAY_SCRIPT : undefined },
    html`<div class="top store"><span><span translate="no">${f.storeName}</span>${f.mode === 'test' ? html` <span class="badge">${c.test}</span>` : ''}</span><a href="${switchHref}" lang="${other}" hreflang="${other}">${other === 'en' ? c.english : c.korean}</a></div>
${body}`,
  );
}

const hidden = (lang: Lang, csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">${lang === 'en' ? html`<input type="hidden" name="lang" value="en">` : ''}`;
const q = (lang: Lang) => (lang === 'en' ? '?lang=en' : '');

/** The sign-in form (the page a seller links to from their site). */
export function signInPage(f: Frame, p: { csrf: string; email?: string; error?: string; banner?: string }): string {
  const c = COPY[f.lang];
  return frame(
    f,
    c.title,
    html`<section class="card">
  <h1>${c.title}</h1>
  ${p.banner ? html`<p class="banner info" role="status">${p.banner}</p>` : ''}
  <p class="muted">${c.signInIntro}</p>
  <form method="post" action="${f.base}/sign-in" novalidate>
    ${hidden(f.lang, p.csrf)}
    <label for="email">${c.email}</label>
    <input type="email" id="email" name="email" autocomplete="email" inputmode="email" required maxlength="254" value="${p.email ?? ''}"${p.error ? html` aria-invalid="true" aria-describedby="email-err"` : ''}>
    ${p.error ? html`<p class="err" id="email-err">${p.error}</p>` : ''}
    <button type="submit" class="pay">${c.send}</button>
  </form>
  ${f.mode === 'test' ? html`<p class="test">${c.testHint}</p>` : ''}
</section>`,
  );
}

/** The same answer for every address: a buyer's or not (no enumeration). */
export function sentPage(f: Frame, p: { email: string; minutes: number }): string {
  const c = COPY[f.lang];
  return frame(
    f,
    c.sentTitle,
    html`<section class="card">
  <h1>${c.sentTitle}</h1>
  <p>${c.sent(p.email, p.minutes)}</p>
  ${f.mode === 'test' ? html`<p class="test">${c.testHint}</p>` : ''}
  <a class="button secondary" href="${f.base}${q(f.lang)}">${c.again}</a>
</section>`,
  );
}

/** The sign-in link's page: a button that signs in (the link is used up by the POST, never by opening it). */
export function confirmPage(f: Frame, p: { token: string; csrf: string }): string {
  const c = COPY[f.lang];
  return frame(
    f,
    c.confirmTitle,
    html`<section class="card">
  <h1>${c.confirmTitle}</h1>
  <p>${c.confirm}</p>
  <form method="post" action="${f.base}/sign-in/${p.token}">
    ${hidden(f.lang, p.csrf)}
    <button type="submit" class="pay">${c.confirmButton}</button>
  </form>
</section>`,
  );
}

/** A refusal as a page (an expired or used link, too many requests, a foreign form). */
export function messagePage(f: Frame, p: { title: string; message: string; action?: { href: string; label: string } }): string {
  return frame(
    f,
    p.title,
    html`<section class="card center">
  <h1>${p.title}</h1>
  <p>${p.message}</p>
  ${p.action ? html`<a class="button secondary" href="${p.action.href}">${p.action.label}</a>` : ''}
</section>`,
  );
}

/** The signed-in overview. */
export function overviewPage(f: Frame, p: { data: BuyerOverview; csrf: string; sessionEnds: Date; banner?: { kind: 'info' | 'error'; text: string } }): string {
  const c = COPY[f.lang];
  const { data } = p;
  return frame(
    f,
    c.title,
    html`<section class="card">
  <h1>${c.title}</h1>
  ${p.banner ? html`<p class="banner ${p.banner.kind}" role="${p.banner.kind === 'error' ? 'alert' : 'status'}">${p.banner.text}</p>` : ''}
  <div class="who"><div><p><strong>${c.signedInAs(data.email)}</strong></p><p class="muted">${c.sessionUntil(p.sessionEnds)}</p></div>
    <form method="post" action="${f.base}/sign-out">${hidden(f.lang, p.csrf)}<button type="submit" class="danger">${c.signOut}</button></form></div>
</section>
${data.subscriptions.length
  ? html`<h2 class="section-title">${c.subscriptions}</h2>${data.subscriptions.map(({ view: s }) => html`<section class="card" aria-label="${c.subscriptions}: ${s.productName}" data-subscription-id="${s.id}">
  <div class="subhead"><div><p class="product">${s.productName}</p><p class="muted">${c.cycle(s.billingInterval, s.amount)}</p></div>
    <span class="status ${s.status === 'active' ? 'approved' : s.status === 'past_due' ? 'held' : 'canceled'}" data-status="${s.status}">${s.trialing && s.status === 'active' ? c.trialing : c.subStatus[s.status] ?? s.status}</span></div>
  <dl class="facts">${s.status === 'ended'
    ? html`<dt>${c.endedOn}</dt><dd>${s.endedAt ? c.date(new Date(s.endedAt)) : '-'}</dd>`
    : html`<dt>${s.cancelAtPeriodEnd ? c.endsOn : c.nextCharge}</dt><dd>${c.date(new Date(s.currentPeriodEnd))}</dd>`}</dl>
  <form method="post" action="${f.base}/subscriptions/${s.id}/portal">${hidden(f.lang, p.csrf)}<button type="submit" class="secondary manage">${c.manage}</button></form>
  <p class="hint">${c.manageHint}</p>
</section>`)}`
  : ''}
<h2 class="section-title">${c.orders}</h2>
${data.orders.length ? data.orders.map((o) => orderCard(f, o, p.csrf)) : html`<section class="card"><p class="muted">${c.noOrders}</p></section>`}`,
    { script: true },
  );
}

function orderCard(f: Frame, b: BuyerOrder, csrf: string): SafeHtml {
  const c = COPY[f.lang];
  const o = b.order;
  const receipt = `${o.receiptUrl}${f.lang === 'en' ? '&lang=en' : ''}`;
  return html`<section class="card" aria-label="${c.orders}: ${o.productName}" data-order-id="${o.id}">
  <div class="subhead"><p class="product">${o.productName}</p><span class="status ${o.status === 'paid' ? 'approved' : o.status === 'awaiting_deposit' ? 'held' : 'canceled'}">${c.orderStatus[o.status] ?? o.status}</span></div>
  <dl class="facts">
    <dt>${c.amount}</dt><dd>${f.lang === 'en' ? `₩${o.amount.toLocaleString('en-US')}` : won(o.amount)}${(o.refundedAmount ?? 0) > 0 ? html` (${c.refunded(o.refundedAmount ?? 0)})` : ''}</dd>
    <dt>${c.paidAt}</dt><dd>${o.paidAt ? c.date(new Date(o.paidAt)) : '-'}</dd>
    <dt>${c.orderNo}</dt><dd>${o.id}</dd>
  </dl>
  ${o.licenses.length ? html`<div class="sub-block"><h3>${c.keys}</h3>${o.licenses.map((l) => licenseBlock(f, b, l, csrf))}</div>` : ''}
  ${b.refundRequests.length
    ? html`<div class="sub-block"><h3>${c.refundRequests}</h3><ul class="list">${b.refundRequests.map((r) => html`<li class="line"><span>${c.refundLine(r.amount, r.requestedAt)}</span><span class="status ${r.status}">${c.refundStatus[r.status] ?? r.status}</span></li>`)}</ul><p class="hint">${c.refundHint}</p></div>`
    : ''}
  ${o.cashReceipt
    ? html`<div class="sub-block"><h3>${c.cashReceipt}</h3><p class="line"><span>${c.cashLine(o.cashReceipt.type, o.cashReceipt.identity, o.cashReceipt.issueNumber)}</span><span class="status">${c.cashStatus[o.cashReceipt.status] ?? o.cashReceipt.status}</span></p>${o.cashReceipt.receiptUrl ? html`<p><a href="${o.cashReceipt.receiptUrl}" rel="noopener">${c.cashView}</a></p>` : ''}</div>`
    : ''}
  <div class="links"><a href="${receipt}">${c.receipt}</a>${b.refundRequests.length === 0 && o.status === 'paid' ? html`<a href="${receipt}#refund-request">${c.refundFile}</a>` : ''}</div>
</section>`;
}

function licenseBlock(f: Frame, b: BuyerOrder, l: BuyerOrder['order']['licenses'][number], csrf: string): SafeHtml {
  const c = COPY[f.lang];
  const devices = b.devices.get(l.id) ?? [];
  return html`<div class="license" data-license-id="${l.id}">
  <p class="line"><span class="status ${l.status === 'active' ? 'approved' : l.status === 'pending' ? 'held' : 'canceled'}">${c.keyStatus[l.status] ?? l.status}</span></p>
  ${l.key
    ? html`<div class="key"><code id="key-${l.id}" class="license-key" tabindex="0">${l.key}</code><button type="button" data-copy="key-${l.id}" data-copied="${c.copied}" hidden aria-label="${c.copyLabel}">${c.copy}</button></div>`
    : html`<p class="muted">${c.keyPending}</p>`}
  ${l.key
    ? html`${devices.length
        ? html`<p class="muted">${c.devices}</p><ul class="devices">${devices.map((d) => html`<li><span>${c.device(d.label)}<br><span class="muted">${c.activatedAt(d.activatedAt)}</span></span>
        <form method="post" action="${f.base}/licenses/${l.id}/deactivate">${hidden(f.lang, csrf)}<input type="hidden" name="activationId" value="${d.id}"><button type="submit" class="danger" aria-label="${c.deactivateLabel(c.device(d.label))}">${c.deactivate}</button></form></li>`)}</ul>`
        : html`<p class="hint">${c.noDevices}</p>`}`
    : ''}
</div>`;
}
