/**
 * The hosted buyer portal's pages: the portal itself (the buyer's subscriptions as cards, then their orders), the
 * page after an action, and the expired-link page. The forms and consent boxes inside a card have their own files.
 */
import type { OrderView } from '../../orders/schemas';
import { html, kst, raw, won, type SafeHtml } from '../html';
import { layout } from '../layout';
import { methodLabel } from '../form';
import { storeFooter } from '../footer';
import type { BusinessDetailsView } from '../../stores/schemas';
import { dateOnly, INTERVAL, type PortalPage, type PortalSubscription } from './view-model';
import { cancelChoices, cardForm, planForm } from './forms';
import { planOfferBox, priceChangeBox, trialConsentBox } from './consent-views';

/** The seller's footer once portal.ts passes the store's details (`getBusinessDetails(db, storeId)`); nothing before. */
const portalFooter = (p: { storeName: string; business?: BusinessDetailsView | null }) => ('business' in p ? storeFooter(p.storeName, p.business) : undefined);

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

const STATUS = { active: '이용 중', past_due: '결제 실패', ended: '종료됨' } as const;

function subscriptionCard(p: PortalPage, s: PortalSubscription): SafeHtml {
  const { sub } = s;
  return html`<section class="card" aria-label="구독 ${sub.productName}" data-subscription-id="${sub.id}">
  <div class="subhead">
    <div><p class="product">${sub.productName}</p><p class="muted">${s.planName} · ${INTERVAL[sub.billingInterval]} ${won(sub.amount)}</p></div>
    <span class="status ${sub.status}" data-status="${sub.status}">${STATUS[sub.status]}</span>
  </div>
  <dl class="amounts">
    ${sub.status === 'ended'
      ? html`<dt>종료일</dt><dd>${sub.endedAt ? dateOnly(sub.endedAt) : '-'}</dd>`
      : html`<dt>현재 이용 기간</dt><dd>${dateOnly(sub.currentPeriodStart)} ~ ${dateOnly(sub.currentPeriodEnd)}</dd>
    <dt>${sub.cancelAtPeriodEnd ? '해지 예정일' : '다음 결제일'}</dt><dd>${dateOnly(sub.currentPeriodEnd)}</dd>`}
    <dt>결제 카드</dt><dd>${sub.card ? `${sub.card.brand ?? '카드'} ${sub.card.last4 ?? ''}` : '-'}</dd>
  </dl>
  ${sub.status !== 'ended' && s.planOffer ? planOfferBox(p, sub, s.planOffer) : ''}
  ${sub.status !== 'ended' && s.trialConsent ? trialConsentBox(p, sub, s.trialConsent) : ''}
  ${sub.status !== 'ended' ? (s.priceChanges ?? []).map((c) => priceChangeBox(p, sub, c)) : ''}
  ${sub.trialing && sub.trialEndsAt && !(s.trialConsent && !s.trialConsent.consentedAt) ? html`<div class="banner info" style="margin-top:12px" id="trial-${sub.id}">무료 체험 중입니다. ${dateOnly(sub.trialEndsAt)}에 체험이 끝나면 ${won(sub.amount)}이 처음 결제됩니다. ${sub.cancelAtPeriodEnd ? '해지가 예약되어 있어 결제되지 않습니다.' : '그 전에 해지하면 결제되지 않습니다.'}</div>` : ''}
  ${sub.recurringConsent ? html`<details class="consent" id="consent-${sub.id}"><summary>정기결제 동의 내용 (${dateOnly(sub.recurringConsent.consentedAt)} 동의)</summary><p class="muted">${sub.recurringConsent.text}</p></details>` : ''}
  ${sub.status === 'past_due' ? html`<div class="banner error" style="margin-top:12px">정기 결제에 실패했습니다. 카드를 변경하면 바로 다시 결제합니다.</div>` : ''}
  ${sub.status !== 'ended' ? cancelChoices(p, s) : ''}
  ${sub.status === 'active' ? planForm(p, s) : ''}
  ${sub.status !== 'ended' && p.cardEntry ? cardForm(p, sub) : ''}
</section>`;
}

function ordersCard(orders: OrderView[]): SafeHtml {
  if (orders.length === 0) return html``;
  return html`<section class="card" aria-label="결제 내역">
  <h2>결제 내역</h2>
  <ul class="orders">
  ${orders.map(
    (o) => html`<li data-order-id="${o.id}">
      <span>${o.paidAt ? dateOnly(o.paidAt) : '-'} · ${o.productName}<br><span class="muted">${methodLabel(o.method)} · ${o.status === 'refunded' ? '환불됨' : o.refundedAmount ? `부분 환불 ${won(o.refundedAmount)}` : '결제 완료'}</span></span>
      <span class="amt">${won(o.amount)}<br><a href="${o.receiptUrl}">영수증 · 환불 요청</a></span>
    </li>`,
  )}
  </ul>
</section>`;
}

export function portalPage(p: PortalPage): string {
  return layout(
    { title: '구독 관리', head: CSS, footer: portalFooter(p) },
    html`<div class="store"><span>${p.storeName}</span>${p.mode === 'test' ? html`<span class="badge">테스트 모드</span>` : ''}</div>
<h1>구독 관리</h1>
${p.banner ? html`<div class="banner ${p.banner.kind}" role="${p.banner.kind === 'error' ? 'alert' : 'status'}">${p.banner.text}</div>` : ''}
${p.subscriptions.map((s) => subscriptionCard(p, s))}
${ordersCard(p.orders)}
${p.returnUrl ? html`<a class="back" href="${p.returnUrl}" data-action="return">${p.storeName}(으)로 돌아가기</a>` : ''}`,
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
}): string {
  return layout(
    { title: p.title, footer: portalFooter(p) },
    html`<div class="store"><span>${p.storeName}</span>${p.mode === 'test' ? html`<span class="badge">테스트 모드</span>` : ''}</div>
<section class="card center" role="status">
  <p class="big" aria-hidden="true">✅</p>
  <h1>${p.title}</h1>
  <p class="muted">${p.message}</p>
  ${p.parts && p.parts.length
    ? html`<dl class="amounts" aria-label="환불 내역" style="text-align:left">${p.parts.map(
        (x) => html`<dt>${x.label}</dt><dd data-part-amount="${x.amount}">${won(x.amount)}</dd><dd class="hint" style="grid-column:1/-1;text-align:left;margin:0 0 8px">${x.note}</dd>`,
      )}</dl>`
    : ''}
  ${p.returnUrl ? html`<a class="button pay" href="${p.returnUrl}" data-action="return">${p.storeName}(으)로 돌아가기</a>` : ''}
  <a class="cancel" href="${p.portalPath}">구독 관리로 돌아가기</a>
</section>`,
  );
}

export function portalGone(): string {
  return layout(
    { title: '링크가 만료되었습니다' },
    html`<section class="card center" role="status">
  <p class="big" aria-hidden="true">⏳</p>
  <h1>링크가 만료되었습니다</h1>
  <p class="muted">구독 관리 링크는 잠시 동안만 열 수 있습니다. 이용 중인 서비스에서 구독 관리를 다시 열어 주세요.</p>
</section>`,
  );
}

export { kst };
