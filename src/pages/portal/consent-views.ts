/**
 * What the portal asks the buyer to agree to, each in its box: a plan price change (an increase needs consent, a
 * decrease is only told), a seller's plan-change offer (accept or decline), and a long trial's first charge.
 */
import type { SubscriptionView } from '../../subscriptions/schemas';
import { html, won, type SafeHtml } from '../html';
import type { PortalPriceChange } from '../../subscriptions/price-change/acceptance';
import type { PortalPlanOffer } from '../../subscriptions/plan-change/offers';
import type { TrialConsentState } from '../../subscriptions/trials/consent';
import { csrfField, dateOnly, type PortalPage } from './view-model';

/**
 * A plan price change the buyer was told about: old and new amount, from when, and what happens without consent
 * (전자상거래법 시행령 2025-02-14: an increase needs the buyer's consent; without it the subscription ends at its period
 * end and nothing more is charged). A decrease needs no answer.
 */
export function priceChangeBox(p: PortalPage, sub: SubscriptionView, c: PortalPriceChange): SafeHtml {
  const per = c.billingInterval === 'monthly' ? '월' : '연';
  const amounts = html`<p class="amount">${per} ${won(c.currentAmount)} → ${per} ${won(c.newAmount)}</p>`;
  if (!c.consentRequired) {
    return html`<div class="price-change" data-price-change="${c.priceChangeId}" data-consent="none">
  <h2>가격 인하 안내</h2>${amounts}
  <p>${dateOnly(c.decideBy)} 결제부터 낮아진 가격으로 결제됩니다. 따로 하실 일은 없습니다.</p>
</div>`;
  }
  if (c.acceptedAt) {
    return html`<div class="price-change" data-price-change="${c.priceChangeId}" data-consent="accepted">
  <h2>가격 변경 안내</h2>${amounts}
  <p>${dateOnly(c.acceptedAt)}에 새 가격에 동의하셨습니다. ${dateOnly(c.decideBy)} 결제부터 새 가격으로 갱신됩니다.</p>
  <p class="hint">원하지 않으시면 그 전에 아래에서 해지할 수 있습니다.</p>
</div>`;
  }
  const base = `${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/price-changes/${encodeURIComponent(c.priceChangeId)}`;
  // Declining is offered as plainly as agreeing (same box, same kind of button): saying nothing has the same outcome,
  // but a buyer who does not want the new price must be able to say so and read what follows.
  return html`<div class="price-change" id="price-change-${c.priceChangeId}" data-price-change="${c.priceChangeId}" data-consent="${c.declinedAt ? 'declined' : 'required'}">
  <h2>가격 변경 안내 · ${c.declinedAt ? '거절하셨습니다' : '동의가 필요합니다'}</h2>${amounts}
  <p>${dateOnly(c.effectiveAt)}부터 이 요금제의 가격이 오릅니다. 동의하시면 ${dateOnly(c.decideBy)} 결제부터 새 가격으로 갱신됩니다.</p>
  <p><strong>${c.declinedAt ? `${dateOnly(c.declinedAt)}에 거절하셨습니다. ` : '거절하거나 동의하지 않으시면 '}구독은 ${dateOnly(c.decideBy)}에 종료되고 새 가격은 결제되지 않습니다.</strong> 그때까지는 지금 가격으로 이용하실 수 있습니다.</p>
  <div class="choices">
    <form method="post" action="${base}/accept" class="choice">${csrfField(p.csrf)}<button type="submit" class="later" data-action="accept-price">새 가격(${per} ${won(c.newAmount)})에 동의</button></form>
    ${c.declinedAt ? '' : html`<form method="post" action="${base}/decline" class="choice">${csrfField(p.csrf)}<button type="submit" class="later" data-action="decline-price">거절 (${dateOnly(c.decideBy)}에 구독 종료)</button></form>`}
  </div>
</div>`;
}

/**
 * A seller's plan change that would make the buyer pay more: nothing changes unless they accept here by the deadline
 * (전자상거래법 제13조⑥, 시행령 제20조의2). Accepting is the buyer's own change at that moment.
 */
export function planOfferBox(p: PortalPage, sub: SubscriptionView, o: PortalPlanOffer): SafeHtml {
  const base = `${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/plan-offers/${encodeURIComponent(o.id)}`;
  const per = (iv: 'monthly' | 'yearly') => (iv === 'monthly' ? '월' : '연');
  return html`<div class="price-change" data-plan-offer="${o.id}" data-consent="required">
  <h2>요금제 변경 제안 · 동의가 필요합니다</h2>
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
export function trialConsentBox(p: PortalPage, sub: SubscriptionView, c: TrialConsentState): SafeHtml {
  if (c.consentedAt) {
    return html`<div class="price-change" data-trial-consent="given"><h2>유료 전환 동의 완료</h2><p>${dateOnly(c.consentedAt)}에 동의하셨습니다. ${dateOnly(c.trialEndsAt)}부터 ${won(sub.amount)}이 결제됩니다.</p></div>`;
  }
  if (!c.open) {
    return html`<div class="price-change" data-trial-consent="later"><h2>유료 전환 안내</h2><p>체험 기간이 30일보다 길어, ${dateOnly(c.opensAt)}부터 체험이 끝나는 ${dateOnly(c.trialEndsAt)} 전까지 유료 전환 동의를 다시 받습니다. 동의하지 않으면 결제 없이 체험이 끝나며 구독이 종료됩니다.</p></div>`;
  }
  return html`<div class="price-change" data-trial-consent="required">
  <h2>유료 전환 동의가 필요합니다</h2>
  <p>${c.text}</p>
  <p><strong>${dateOnly(c.trialEndsAt)} 전까지 동의하지 않으시면 결제되지 않고 체험 종료와 함께 구독이 종료됩니다.</strong></p>
  <form method="post" action="${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/trial-consent">${csrfField(p.csrf)}<button type="submit" class="later" data-action="trial-consent">유료 전환에 동의</button></form>
</div>`;
}

