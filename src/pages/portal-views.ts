import type { CancelPreviewView } from '../subscriptions/cancel/schemas';
import type { SubscriptionView } from '../subscriptions/schemas';
import type { OrderView } from '../orders/schemas';
import { html, kst, raw, won, type SafeHtml } from './html';
import { layout } from './layout';
import { methodLabel } from './form';
import { storeFooter } from './footer';
import type { BusinessDetailsView } from '../stores/schemas';
import type { PortalPriceChange } from '../subscriptions/price-change/acceptance';
import type { PortalPlanOffer } from '../subscriptions/plan-change/offers';
import type { TrialConsentState } from '../subscriptions/trials/consent';

/** The seller's footer once portal.ts passes the store's details (`getBusinessDetails(db, storeId)`); nothing before. */
const portalFooter = (p: { storeName: string; business?: BusinessDetailsView | null }) => ('business' in p ? storeFooter(p.storeName, p.business) : undefined);

/** The hosted buyer portal: Korean, phone-first, server-rendered forms (no JavaScript), every form carrying the CSRF secret. */

export interface PortalSubscription {
  sub: SubscriptionView;
  preview: CancelPreviewView;
  planName: string;
  /** The product's plans, for the plan change form. */
  plans: Array<{ id: string; name: string; monthlyPrice: number | null; yearlyPrice: number | null }>;
  /** Plan price changes the buyer was told about and that have not taken effect yet. */
  priceChanges?: PortalPriceChange[];
  /** A seller's plan change awaiting this buyer's consent (src/subscriptions/plan-change/consent.ts). */
  planOffer?: PortalPlanOffer | null;
  /** A trial longer than 30 days: the fresh consent to its first charge (src/subscriptions/trials/consent.ts). */
  trialConsent?: TrialConsentState | null;
}

export interface PortalPage {
  storeName: string;
  mode: 'live' | 'test';
  basePath: string;
  csrf: string;
  returnUrl: string | null;
  subscriptions: PortalSubscription[];
  orders: OrderView[];
  /** How a card is changed: the simulator's test card number, Toss's registration window, or not at all (no gateway). */
  cardEntry: 'card_number' | 'gateway_window' | null;
  banner: { kind: 'error' | 'info'; text: string } | null;
  /** The seller's business details for the footer (src/pages/footer.ts). */
  business?: BusinessDetailsView | null;
}

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
.price-change h3{font-size:15px;margin:0 0 6px}
.price-change p{margin:4px 0;font-size:14px;word-break:keep-all}
.price-change .amount{font-weight:700;font-variant-numeric:tabular-nums}
.price-change button{margin-top:8px}
.back{display:block;text-align:center;margin:20px 0 8px;color:#1b64da;font-weight:600}
details summary{cursor:pointer;font-weight:600;font-size:14px;color:#4e5968;margin-top:14px}
</style>`);

const INTERVAL = { monthly: '월간', yearly: '연간' } as const;
const STATUS = { active: '이용 중', past_due: '결제 실패', ended: '종료됨' } as const;
const REASON: Record<string, string> = {
  initial_full: '청약철회 기간 안의 미사용 결제라 전액 환불됩니다.',
  renewal_full: '갱신 결제의 청약철회 기간 안이고 사용하지 않아 전액 환불됩니다.',
  statutory_full: '청약철회 기간 안이라 전액 환불됩니다.',
  prorated: '이용한 기간만큼 차감한 금액이 환불됩니다.',
  past_due: '현재 기간은 결제되지 않아 환불할 금액이 없습니다.',
  nothing_refundable: '환불할 금액이 없습니다.',
};
const dateOnly = (iso: string) => new Intl.DateTimeFormat('ko-KR', { timeZone: 'Asia/Seoul', year: 'numeric', month: 'long', day: 'numeric' }).format(new Date(iso));

function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

function cancelChoices(p: PortalPage, s: PortalSubscription): SafeHtml {
  const { sub, preview } = s;
  const im = preview.immediate;
  const action = `${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/cancel`;
  if (sub.cancelAtPeriodEnd) {
    return html`<div class="banner info" role="status">${dateOnly(sub.currentPeriodEnd)}에 해지될 예정입니다. 그때까지 계속 이용할 수 있습니다.</div>
<div class="choices">
  <form method="post" action="${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/resume" class="choice">
    ${csrfField(p.csrf)}
    <h3>해지 예약 취소</h3><p>구독을 계속 유지하고 다음 결제일에 갱신합니다.</p>
    <button type="submit" class="later" data-action="resume">해지 예약 취소</button>
  </form>
  ${immediateChoice(p, action, im)}
</div>`;
  }
  return html`<div class="choices" aria-label="해지 방법">
  <form method="post" action="${action}" class="choice">
    ${csrfField(p.csrf)}<input type="hidden" name="timing" value="period_end">
    <h3>기간 종료 시 해지</h3>
    <p class="amount">환불 없음</p>
    <p>${dateOnly(preview.periodEnd.effectiveAt)}까지 이용하고 그 뒤로는 결제되지 않습니다.</p>
    <button type="submit" class="later" data-action="period_end">기간 종료 시 해지</button>
  </form>
  ${immediateChoice(p, action, im)}
</div>`;
}

function immediateChoice(p: PortalPage, action: string, im: CancelPreviewView['immediate']): SafeHtml {
  const blocked = im.blockedReason;
  return html`<form method="post" action="${action}" class="choice">
    ${csrfField(p.csrf)}<input type="hidden" name="timing" value="immediate">
    <h3>지금 해지하고 환불</h3>
    <p class="amount" data-refund-amount="${im.refundAmount}">환불 예정 ${won(im.refundAmount)}</p>
    <p>${blocked ? blocked.message : REASON[im.reason] ?? ''}</p>
    ${im.deduction + im.penalty + im.clawback > 0 && !blocked
      ? html`<p>이용 ${im.usedDays}/${im.totalDays}일 차감 ${won(im.deduction)}${im.clawback ? html` · 할인 회수 ${won(im.clawback)}` : ''}${im.penalty ? html` · 위약금 ${won(im.penalty)}` : ''}</p>`
      : ''}
    ${im.requiresApproval && !blocked ? html`<p>판매자 승인 후 환불됩니다 (환불 요청으로 접수).</p>` : ''}
    <button type="submit" class="now" data-action="immediate"${blocked ? html` disabled` : ''}>지금 해지하고 환불받기</button>
  </form>`;
}

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

/**
 * A plan price change the buyer was told about: old and new amount, from when, and what happens without consent
 * (전자상거래법 시행령 2025-02-14: an increase needs the buyer's consent; without it the subscription ends at its period
 * end and nothing more is charged). A decrease needs no answer.
 */
function priceChangeBox(p: PortalPage, sub: SubscriptionView, c: PortalPriceChange): SafeHtml {
  const per = c.billingInterval === 'monthly' ? '월' : '연';
  const amounts = html`<p class="amount">${per} ${won(c.currentAmount)} → ${per} ${won(c.newAmount)}</p>`;
  if (!c.consentRequired) {
    return html`<div class="price-change" data-price-change="${c.priceChangeId}" data-consent="none">
  <h3>가격 인하 안내</h3>${amounts}
  <p>${dateOnly(c.decideBy)} 결제부터 낮아진 가격으로 결제됩니다. 따로 하실 일은 없습니다.</p>
</div>`;
  }
  if (c.acceptedAt) {
    return html`<div class="price-change" data-price-change="${c.priceChangeId}" data-consent="accepted">
  <h3>가격 변경 안내</h3>${amounts}
  <p>${dateOnly(c.acceptedAt)}에 새 가격에 동의하셨습니다. ${dateOnly(c.decideBy)} 결제부터 새 가격으로 갱신됩니다.</p>
  <p class="hint">원하지 않으시면 그 전에 아래에서 해지할 수 있습니다.</p>
</div>`;
  }
  return html`<div class="price-change" data-price-change="${c.priceChangeId}" data-consent="required">
  <h3>가격 변경 안내 · 동의가 필요합니다</h3>${amounts}
  <p>${dateOnly(c.effectiveAt)}부터 이 요금제의 가격이 오릅니다. 동의하시면 ${dateOnly(c.decideBy)} 결제부터 새 가격으로 갱신됩니다.</p>
  <p><strong>동의하지 않으시면 구독은 ${dateOnly(c.decideBy)}에 종료되고 새 가격은 결제되지 않습니다.</strong> 그때까지는 지금 가격으로 이용하실 수 있습니다.</p>
  <form method="post" action="${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/price-changes/${encodeURIComponent(c.priceChangeId)}/accept">
    ${csrfField(p.csrf)}
    <button type="submit" class="later" data-action="accept-price">새 가격(${per} ${won(c.newAmount)})에 동의</button>
  </form>
</div>`;
}

/**
 * A seller's plan change that would make the buyer pay more: nothing changes unless they accept here by the deadline
 * (전자상거래법 제13조⑥, 시행령 제20조의2). Accepting is the buyer's own change at that moment.
 */
function planOfferBox(p: PortalPage, sub: SubscriptionView, o: PortalPlanOffer): SafeHtml {
  const base = `${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/plan-offers/${encodeURIComponent(o.id)}`;
  const per = (iv: 'monthly' | 'yearly') => (iv === 'monthly' ? '월' : '연');
  return html`<div class="price-change" data-plan-offer="${o.id}" data-consent="required">
  <h3>요금제 변경 제안 · 동의가 필요합니다</h3>
  <p class="amount">${o.fromPlanName} ${per(o.from.billingInterval)} ${won(o.from.amount)} → ${o.toPlanName} ${per(o.to.billingInterval)} ${won(o.to.amount)}</p>
  <p>판매자가 요금제 변경을 제안했습니다. ${o.timing === 'now'
    ? html`동의하시면 바로 바뀌고${o.differenceNow > 0 ? html` 남은 기간의 차액 약 <strong>${won(o.differenceNow)}</strong>이 지금 결제되며` : ''}, ${dateOnly(sub.currentPeriodEnd)}부터 ${per(o.to.billingInterval)} ${won(o.to.amount)}이 결제됩니다.`
    : html`동의하시면 ${dateOnly(sub.currentPeriodEnd)} 결제부터 ${per(o.to.billingInterval)} ${won(o.to.amount)}이 결제됩니다.`}</p>
  <p><strong>${dateOnly(o.deadline)}까지 동의하지 않으시면 아무것도 바뀌지 않고</strong> 지금 요금제와 가격이 그대로 유지됩니다.</p>
  <div class="choices">
    <form method="post" action="${base}/accept" class="choice">${csrfField(p.csrf)}<button type="submit" class="later" data-action="accept-offer">변경에 동의</button></form>
    <form method="post" action="${base}/decline" class="choice">${csrfField(p.csrf)}<button type="submit" class="secondary" data-action="decline-offer">거절</button></form>
  </div>
</div>`;
}

/** A trial longer than 30 days: the first charge needs the buyer's word again within the 30 days before it. */
function trialConsentBox(p: PortalPage, sub: SubscriptionView, c: TrialConsentState): SafeHtml {
  if (c.consentedAt) {
    return html`<div class="price-change" data-trial-consent="given"><h3>유료 전환 동의 완료</h3><p>${dateOnly(c.consentedAt)}에 동의하셨습니다. ${dateOnly(c.trialEndsAt)}부터 ${won(sub.amount)}이 결제됩니다.</p></div>`;
  }
  if (!c.open) {
    return html`<div class="price-change" data-trial-consent="later"><h3>유료 전환 안내</h3><p>체험 기간이 30일보다 길어, ${dateOnly(c.opensAt)}부터 체험이 끝나는 ${dateOnly(c.trialEndsAt)} 전까지 유료 전환 동의를 다시 받습니다. 동의하지 않으면 결제 없이 체험이 끝나며 구독이 종료됩니다.</p></div>`;
  }
  return html`<div class="price-change" data-trial-consent="required">
  <h3>유료 전환 동의가 필요합니다</h3>
  <p>${c.text}</p>
  <p><strong>${dateOnly(c.trialEndsAt)} 전까지 동의하지 않으시면 결제되지 않고 체험 종료와 함께 구독이 종료됩니다.</strong></p>
  <form method="post" action="${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/trial-consent">${csrfField(p.csrf)}<button type="submit" class="later" data-action="trial-consent">유료 전환에 동의</button></form>
</div>`;
}

function cardForm(p: PortalPage, sub: SubscriptionView): SafeHtml {
  const action = `${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/card`;
  return html`<details${sub.status === 'past_due' ? html` open` : ''}><summary>결제 카드 변경</summary>
  <form method="post" action="${action}">
    ${csrfField(p.csrf)}
    ${p.cardEntry === 'card_number'
      ? html`<label for="card-${sub.id}">카드 번호</label>
    <input type="text" id="card-${sub.id}" name="cardNumber" inputmode="numeric" autocomplete="cc-number" required pattern="[0-9 ]{12,23}">
    <p class="hint">테스트 모드: 4242 4242 4242 4242 (성공), 4000 0000 0000 0341 (이후 결제 실패)</p>`
      : html`<p class="hint">토스페이먼츠 창에서 새 카드를 등록합니다. 카드 정보는 토스페이먼츠에만 입력되며 이 사이트에 저장되지 않습니다.</p>`}
    <button type="submit" class="secondary" style="margin-top:10px" data-action="card">${p.cardEntry === 'card_number' ? '카드 변경' : '새 카드 등록하기'}</button>
  </form></details>`;
}

function planForm(p: PortalPage, s: PortalSubscription): SafeHtml {
  const { sub } = s;
  const options = s.plans.flatMap((pl) =>
    (['monthly', 'yearly'] as const)
      .map((iv) => ({ pl, iv, price: iv === 'monthly' ? pl.monthlyPrice : pl.yearlyPrice }))
      .filter((o) => o.price !== null),
  );
  if (options.length < 2) return html``;
  const pending = sub.pendingPlanChange;
  return html`<details><summary>요금제 변경</summary>
  ${pending ? html`<p class="hint">${dateOnly(pending.effectiveAt)}부터 ${s.plans.find((x) => x.id === pending.planId)?.name ?? pending.planId} · ${INTERVAL[pending.billingInterval]}(${won(pending.amount)})으로 바뀝니다.</p>` : ''}
  <form method="post" action="${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/plan">
    ${csrfField(p.csrf)}
    <fieldset><legend>새 요금제</legend>
    ${options.map(
      (o) => html`<label class="method"><input type="radio" name="plan" value="${o.pl.id}:${o.iv}"${o.pl.id === sub.planId && o.iv === sub.billingInterval ? html` checked` : ''}> ${o.pl.name} · ${INTERVAL[o.iv]} ${won(o.price!)}</label>`,
    )}
    </fieldset>
    <p class="hint">같은 결제 주기의 더 비싼 요금제는 지금 바로 바뀌고 남은 기간의 차액이 결제됩니다. 그 밖의 변경은 다음 결제일부터 적용됩니다.</p>
    <button type="submit" class="secondary" style="margin-top:10px">요금제 변경</button>
  </form></details>`;
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
