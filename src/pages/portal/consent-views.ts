/**
 * What the portal asks the buyer to agree to, each in its box: a plan price change (an increase needs consent, a
 * decrease is only told), a seller's plan-change offer (accept or decline), and a long trial's first charge.
 */
import type { SubscriptionView } from '../../subscriptions/schemas';
import { html, type SafeHtml } from '../html';
import type { PortalPriceChange } from '../../subscriptions/price-change/acceptance';
import type { PortalPlanOffer } from '../../subscriptions/plan-change/offers';
import type { TrialConsentState } from '../../subscriptions/trials/consent';
import { csrfField, type PortalPage } from './view-model';
import { portalCopy } from './copy';

/**
 * A plan price change the buyer was told about: old and new amount, from when, and what happens without consent
 * (전자상거래법 시행령 2025-02-14: an increase needs the buyer's consent; without it the subscription ends at its period
 * end and nothing more is charged). A decrease needs no answer. In the page's language (copy.ts `priceChange`).
 */
export function priceChangeBox(p: PortalPage, sub: SubscriptionView, c: PortalPriceChange): SafeHtml {
  const t = portalCopy(p.lang);
  const k = t.priceChange;
  const amounts = html`<p class="amount">${t.per(c.billingInterval, c.currentAmount)} → ${t.per(c.billingInterval, c.newAmount)}</p>`;
  if (!c.consentRequired) {
    return html`<div class="price-change" data-price-change="${c.priceChangeId}" data-consent="none">
  <h2>${k.decreaseTitle}</h2>${amounts}
  <p>${k.decreaseText(c.decideBy)}</p>
</div>`;
  }
  if (c.acceptedAt) {
    return html`<div class="price-change" data-price-change="${c.priceChangeId}" data-consent="accepted">
  <h2>${k.title}</h2>${amounts}
  <p>${k.acceptedText(c.acceptedAt, c.decideBy)}</p>
  <p class="hint">${k.acceptedHint}</p>
</div>`;
  }
  const base = `${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/price-changes/${encodeURIComponent(c.priceChangeId)}`;
  // Declining is offered as plainly as agreeing (same box, same kind of button): saying nothing has the same outcome,
  // but a buyer who does not want the new price must be able to say so and read what follows.
  return html`<div class="price-change" id="price-change-${c.priceChangeId}" data-price-change="${c.priceChangeId}" data-consent="${c.declinedAt ? 'declined' : 'required'}">
  <h2>${k.title} · ${k.state(Boolean(c.declinedAt))}</h2>${amounts}
  <p>${k.effect(c.effectiveAt, c.decideBy)}</p>
  <p><strong>${k.outcome(c.declinedAt, c.decideBy)}</strong> ${k.until}</p>
  <div class="choices">
    <form method="post" action="${base}/accept" class="choice">${csrfField(p.csrf)}<button type="submit" class="later" data-action="accept-price">${k.accept(t.per(c.billingInterval, c.newAmount))}</button></form>
    ${c.declinedAt ? '' : html`<form method="post" action="${base}/decline" class="choice">${csrfField(p.csrf)}<button type="submit" class="later" data-action="decline-price">${k.decline(c.decideBy)}</button></form>`}
  </div>
</div>`;
}

/**
 * A seller's plan change that would make the buyer pay more: nothing changes unless they accept here by the deadline
 * (전자상거래법 제13조⑥, 시행령 제20조의2). Accepting is the buyer's own change at that moment. Plan names are the
 * seller's own (`translate="no"`).
 */
export function planOfferBox(p: PortalPage, sub: SubscriptionView, o: PortalPlanOffer): SafeHtml {
  const base = `${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/plan-offers/${encodeURIComponent(o.id)}`;
  const t = portalCopy(p.lang);
  const k = t.offer;
  const newPrice = t.per(o.to.billingInterval, o.to.amount);
  return html`<div class="price-change" data-plan-offer="${o.id}" data-consent="required">
  <h2>${k.title}</h2>
  <p class="amount"><span translate="no">${o.fromPlanName}</span> ${t.per(o.from.billingInterval, o.from.amount)} → <span translate="no">${o.toPlanName}</span> ${newPrice}</p>
  <p>${k.intro} ${o.timing === 'now' ? k.now(o.differenceNow, sub.currentPeriodEnd, newPrice) : k.next(sub.currentPeriodEnd, newPrice)}</p>
  <p><strong>${k.deadline(o.deadline)}</strong> ${k.unchanged}</p>
  <div class="choices">
    <form method="post" action="${base}/accept" class="choice">${csrfField(p.csrf)}<button type="submit" class="later" data-action="accept-offer">${k.accept}</button></form>
    <form method="post" action="${base}/decline" class="choice">${csrfField(p.csrf)}<button type="submit" class="secondary" data-action="decline-offer">${k.decline}</button></form>
  </div>
</div>`;
}

/**
 * A trial longer than 30 days: the first charge needs the buyer's word again within the 30 days before it. The
 * consent text is what is recorded when they agree (Korean); an English page shows it `lang="ko"` with its English
 * rendering beside it, as the payment page does for the recurring consent.
 */
export function trialConsentBox(p: PortalPage, sub: SubscriptionView, c: TrialConsentState): SafeHtml {
  const t = portalCopy(p.lang);
  const k = t.trialConsent;
  if (c.consentedAt) {
    return html`<div class="price-change" data-trial-consent="given"><h2>${k.givenTitle}</h2><p>${k.given(c.consentedAt, c.trialEndsAt, sub.amount)}</p></div>`;
  }
  if (!c.open) {
    return html`<div class="price-change" data-trial-consent="later"><h2>${k.laterTitle}</h2><p>${k.later(c.opensAt, c.trialEndsAt)}</p></div>`;
  }
  return html`<div class="price-change" data-trial-consent="required">
  <h2>${k.requiredTitle}</h2>
  ${t.lang === 'en' ? html`<p lang="ko">${c.text}</p><p>${k.textEn(c.trialEndsAt, sub.amount, sub.billingInterval)}</p>` : html`<p>${c.text}</p>`}
  <p><strong>${k.warn(c.trialEndsAt)}</strong></p>
  <form method="post" action="${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/trial-consent">${csrfField(p.csrf)}<button type="submit" class="later" data-action="trial-consent">${k.button}</button></form>
</div>`;
}
