/**
 * The buyer portal's action forms on a subscription: the two ways to cancel (at the period end, or now with the
 * refund shown), undoing a scheduled cancel, changing the plan, and changing the card (a test card number, or
 * Toss's registration window). Every form carries the session's CSRF secret.
 */
import { ownValue } from '../../platform/lookup';
import type { CancelPreviewView } from '../../subscriptions/cancel/schemas';
import type { SubscriptionView } from '../../subscriptions/schemas';
import { html, type SafeHtml } from '../html';
import { csrfField, type PortalPage, type PortalSubscription } from './view-model';
import { portalCopy } from './copy';

export function cancelChoices(p: PortalPage, s: PortalSubscription): SafeHtml {
  const { sub, preview } = s;
  const c = portalCopy(p.lang);
  const k = c.cancel;
  const im = preview.immediate;
  const action = `${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/cancel`;
  if (sub.cancelAtPeriodEnd) {
    return html`<div class="banner info" role="status">${k.scheduled(c.date(sub.currentPeriodEnd))}</div>
<div class="choices">
  <form method="post" action="${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/resume" class="choice">
    ${csrfField(p.csrf)}
    <h3>${k.resume}</h3><p>${k.resumeText}</p>
    <button type="submit" class="later" data-action="resume">${k.resume}</button>
  </form>
  ${immediateChoice(p, action, im)}
</div>`;
  }
  return html`<div class="choices" aria-label="${k.ways}">
  <form method="post" action="${action}" class="choice">
    ${csrfField(p.csrf)}<input type="hidden" name="timing" value="period_end">
    <h3>${k.periodEnd}</h3>
    <p class="amount">${k.noRefund}</p>
    <p>${k.periodEndText(c.date(preview.periodEnd.effectiveAt))}</p>
    <button type="submit" class="later" data-action="period_end">${k.periodEnd}</button>
  </form>
  ${immediateChoice(p, action, im)}
</div>`;
}

function immediateChoice(p: PortalPage, action: string, im: CancelPreviewView['immediate']): SafeHtml {
  const blocked = im.blockedReason;
  const c = portalCopy(p.lang);
  const k = c.cancel;
  return html`<form method="post" action="${action}" class="choice">
    ${csrfField(p.csrf)}<input type="hidden" name="timing" value="immediate">
    <h3>${k.now}</h3>
    <p class="amount" data-refund-amount="${im.refundAmount}">${k.refundDue(im.refundAmount)}</p>
    <p>${blocked ? (c.lang === 'en' ? html`<span lang="ko">${blocked.message}</span>` : blocked.message) : ownValue(c.reason, im.reason) ?? ''}</p>
    ${im.deduction + im.penalty + im.clawback > 0 && !blocked
      ? html`<p>${k.used(im.usedDays, im.totalDays, im.deduction)}${im.clawback ? k.clawback(im.clawback) : ''}${im.penalty ? k.penalty(im.penalty) : ''}</p>`
      : ''}
    ${im.requiresApproval && !blocked ? html`<p>${k.approval}</p>` : ''}
    <button type="submit" class="now" data-action="immediate"${blocked ? html` disabled` : ''}>${k.nowButton}</button>
  </form>`;
}

export function cardForm(p: PortalPage, sub: SubscriptionView): SafeHtml {
  const action = `${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/card`;
  const c = portalCopy(p.lang).cardForm;
  return html`<details${sub.status === 'past_due' ? html` open` : ''}><summary>${c.summary}</summary>
  <form method="post" action="${action}">
    ${csrfField(p.csrf)}
    ${p.cardEntry === 'card_number'
      ? html`<label for="card-${sub.id}">${c.number}</label>
    <input type="text" id="card-${sub.id}" name="cardNumber" inputmode="numeric" autocomplete="cc-number" required pattern="[0-9 ]{12,23}">
    <p class="hint">${c.testHint}</p>`
      : html`<p class="hint">${c.windowHint}</p>`}
    <button type="submit" class="secondary" style="margin-top:10px" data-action="card">${p.cardEntry === 'card_number' ? c.change : c.register}</button>
  </form></details>`;
}

export function planForm(p: PortalPage, s: PortalSubscription): SafeHtml {
  const { sub } = s;
  const options = s.plans.flatMap((pl) =>
    (['monthly', 'yearly'] as const)
      .map((iv) => ({ pl, iv, price: iv === 'monthly' ? pl.monthlyPrice : pl.yearlyPrice }))
      .filter((o) => o.price !== null),
  );
  if (options.length < 2) return html``;
  const pending = sub.pendingPlanChange;
  const t = portalCopy(p.lang);
  const c = t.plan;
  return html`<details><summary>${c.summary}</summary>
  ${pending ? html`<p class="hint">${c.pending(t.date(pending.effectiveAt), html`<span translate="no">${s.plans.find((x) => x.id === pending.planId)?.name ?? pending.planId}</span>`, t.interval[pending.billingInterval], pending.amount)}</p>` : ''}
  <form method="post" action="${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/plan">
    ${csrfField(p.csrf)}
    <fieldset><legend>${c.legend}</legend>
    ${options.map(
      (o) => html`<label class="method"><input type="radio" name="plan" value="${o.pl.id}:${o.iv}"${o.pl.id === sub.planId && o.iv === sub.billingInterval ? html` checked` : ''}> <span translate="no">${o.pl.name}</span> · ${t.interval[o.iv]} ${t.money(o.price!)}</label>`,
    )}
    </fieldset>
    <p class="hint">${c.hint}</p>
    <button type="submit" class="secondary" style="margin-top:10px">${c.submit}</button>
  </form></details>`;
}

