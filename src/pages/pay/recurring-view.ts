/**
 * The recurring-charge notice beside the pay button of a subscription (전자상거래법 제13조⑥ and 제13조의2, 시행령
 * 제20조의2, in force 2025-02-14): the amount, the cycle, the first recurring charge date and how to cancel, in plain
 * words before the buyer pays, and a separate, unticked checkbox whose sentence is kept with the subscription as the
 * buyer's consent.
 */
import { consentText, type RecurringTerms } from '../../subscriptions/consent';
import { html, type SafeHtml } from '../html';
import { payCopy, type PayCopy } from './copy';


/**
 * The amounts the buyer will be charged. A price change the seller scheduled before this buyer pays is stated here
 * in full (제13조의2 forbids revealing the price step by step): the price now and the new price with the date from
 * which it is charged, each as a row of its own in the same type, and the next charge with the amount it will take.
 * It was once only at the end of the consent sentence while this list said "매월 9,900원" (issue 38).
 */
function amountRows(r: RecurringTerms, t: PayCopy): SafeHtml {
  const c = t.recurring;
  const won = t.money;
  const day = (d: Date) => t.date(d);
  const cycle = c.cycleWord[r.interval];
  const next = html`<dt>${r.trialEndsAt ? c.firstCharge : c.nextCharge}</dt>`;
  const p = r.priceChange;
  if (!p) {
    return html`<dt>${c.amount}</dt><dd id="recurring-amount">${cycle} ${won(r.amount)}</dd>
      <dt>${c.cycle}</dt><dd id="recurring-cycle">${c.cycleName[r.interval]}</dd>
      ${next}<dd id="recurring-next">${day(r.firstChargeAt)}</dd>`;
  }
  const firstAmount = p.from.getTime() <= r.firstChargeAt.getTime() ? p.amount : r.amount;
  return html`<dt>${c.priceNow}</dt><dd id="recurring-amount">${cycle} ${won(r.amount)}</dd>
      <dt>${c.priceFrom(day(p.from))}</dt><dd id="recurring-new-amount">${cycle} ${won(p.amount)}</dd>
      <dt>${c.cycle}</dt><dd id="recurring-cycle">${c.cycleName[r.interval]}</dd>
      ${next}<dd id="recurring-next">${day(r.firstChargeAt)} · ${won(firstAmount)}</dd>`;
}

/** The scheduled change in one sentence under the amounts: which way, from when, and what the first charge takes. */
function changeNote(r: RecurringTerms, t: PayCopy): SafeHtml {
  const c = r.priceChange;
  if (!c) return html``;
  const w = t.recurring;
  const day = (d: Date) => t.date(d);
  const cycle = w.cycleWord[r.interval];
  const firstAmount = c.from.getTime() <= r.firstChargeAt.getTime() ? c.amount : r.amount;
  return html`<p class="price-change" id="recurring-change"><strong>${w.change(c.amount > r.amount)}</strong>${w.changeText(day(c.from), `${cycle} ${t.money(r.amount)}`, `${cycle} ${t.money(c.amount)}`)}${firstAmount === c.amount ? w.changeFirst(day(r.firstChargeAt), c.amount) : ''}</p>`;
}

export function recurringField(r: RecurringTerms | undefined, agreed: boolean | string | undefined, err: string | undefined, t: PayCopy = payCopy('ko')): SafeHtml {
  if (!r) return html``;
  const c = t.recurring;
  // The consent sentence is kept with the subscription in Korean (the consent record); the English page shows it as
  // the legal text (lang="ko") with its rendering beside it.
  const consent = consentText(r);
  return html`<section class="recurring" id="recurring-terms" aria-labelledby="recurring-title">
    <h2 id="recurring-title">${r.trialEndsAt ? c.trialHeading : c.heading}</h2>
    <dl class="amounts">
      ${r.trialEndsAt ? html`<dt>${c.today}</dt><dd id="recurring-now">${c.todayTrial}</dd><dt>${c.trialEnd}</dt><dd id="recurring-trial-end">${t.date(r.trialEndsAt)}</dd>` : html`<dt>${c.today}</dt><dd id="recurring-now">${t.money(r.dueNow)}</dd>`}
      ${amountRows(r, t)}
    </dl>
    ${changeNote(r, t)}
    <p class="hint">${c.cancelHint} ${r.trialEndsAt ? c.cancelTrial : c.cancelNext}</p>
    <label class="check"><input type="checkbox" name="agreeRecurring" id="agreeRecurring" value="on"${agreed ? html` checked` : ''}${err ? html` aria-invalid="true" aria-describedby="agreeRecurring-err"` : ''}> ${t.agreements.required} ${t.lang === 'en' ? html`<span><span lang="ko">${consent}</span> <span>(${c.consentEn(consent)})</span></span>` : consent}</label>
    ${err ? html`<p class="err" id="agreeRecurring-err" role="alert">${err}</p>` : ''}
  </section>`;
}
