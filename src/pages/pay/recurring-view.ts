/**
 * The recurring-charge notice beside the pay button of a subscription (전자상거래법 제13조⑥ and 제13조의2, 시행령
 * 제20조의2, in force 2025-02-14): the amount, the cycle, the first recurring charge date and how to cancel, in plain
 * words before the buyer pays, and a separate, unticked checkbox whose sentence is kept with the subscription as the
 * buyer's consent.
 */
import { consentText, kstDate, type RecurringTerms } from '../../subscriptions/consent';
import { html, won, type SafeHtml } from '../html';

const CYCLE_WORD = { monthly: '매월', yearly: '매년' } as const;
const CYCLE_NAME = { monthly: '1개월마다', yearly: '1년마다' } as const;

/**
 * The amounts the buyer will be charged. A price change the seller scheduled before this buyer pays is stated here
 * in full (제13조의2 forbids revealing the price step by step): the price now and the new price with the date from
 * which it is charged, each as a row of its own in the same type, and the next charge with the amount it will take.
 * It was once only at the end of the consent sentence while this list said "매월 9,900원" (issue 38).
 */
function amountRows(r: RecurringTerms): SafeHtml {
  const cycle = CYCLE_WORD[r.interval];
  const next = html`<dt>${r.trialEndsAt ? '첫 결제일' : '다음 결제일'}</dt>`;
  const c = r.priceChange;
  if (!c) {
    return html`<dt>자동 결제 금액</dt><dd id="recurring-amount">${cycle} ${won(r.amount)}</dd>
      <dt>결제 주기</dt><dd id="recurring-cycle">${CYCLE_NAME[r.interval]}</dd>
      ${next}<dd id="recurring-next">${kstDate(r.firstChargeAt)}</dd>`;
  }
  const firstAmount = c.from.getTime() <= r.firstChargeAt.getTime() ? c.amount : r.amount;
  return html`<dt>현재 가격</dt><dd id="recurring-amount">${cycle} ${won(r.amount)}</dd>
      <dt>${kstDate(c.from)} 결제부터</dt><dd id="recurring-new-amount">${cycle} ${won(c.amount)}</dd>
      <dt>결제 주기</dt><dd id="recurring-cycle">${CYCLE_NAME[r.interval]}</dd>
      ${next}<dd id="recurring-next">${kstDate(r.firstChargeAt)} · ${won(firstAmount)}</dd>`;
}

/** The scheduled change in one sentence under the amounts: which way, from when, and what the first charge takes. */
function changeNote(r: RecurringTerms): SafeHtml {
  const c = r.priceChange;
  if (!c) return html``;
  const cycle = CYCLE_WORD[r.interval];
  const firstAmount = c.from.getTime() <= r.firstChargeAt.getTime() ? c.amount : r.amount;
  return html`<p class="price-change" id="recurring-change"><strong>가격 ${c.amount > r.amount ? '인상' : '인하'} 예정:</strong> 판매자가 이 플랜의 가격을 ${kstDate(c.from)} 결제부터 ${cycle} ${won(r.amount)}에서 ${cycle} ${won(c.amount)}(으)로 바꾸기로 했습니다.${firstAmount === c.amount ? ` 첫 자동 결제(${kstDate(r.firstChargeAt)})부터 ${won(c.amount)}이 결제됩니다.` : ''}</p>`;
}

export function recurringField(r: RecurringTerms | undefined, agreed: boolean | string | undefined, err: string | undefined): SafeHtml {
  if (!r) return html``;
  return html`<section class="recurring" id="recurring-terms" aria-labelledby="recurring-title">
    <h2 id="recurring-title">${r.trialEndsAt ? '무료 체험 후 정기결제 안내' : '정기결제 안내'}</h2>
    <dl class="amounts">
      ${r.trialEndsAt ? html`<dt>오늘 결제</dt><dd id="recurring-now">0원 (무료 체험, 카드 등록만)</dd><dt>체험 종료일</dt><dd id="recurring-trial-end">${kstDate(r.trialEndsAt)}</dd>` : html`<dt>오늘 결제</dt><dd id="recurring-now">${won(r.dueNow)}</dd>`}
      ${amountRows(r)}
    </dl>
    ${changeNote(r)}
    <p class="hint">결제 후 받는 구독 관리 링크(구독 관리 페이지)에서 언제든 해지할 수 있습니다. ${r.trialEndsAt ? '체험 종료 전에 해지하면 결제되지 않습니다.' : '해지하면 다음 결제일부터 결제되지 않습니다.'}</p>
    <label class="check"><input type="checkbox" name="agreeRecurring" id="agreeRecurring" value="on"${agreed ? html` checked` : ''}${err ? html` aria-invalid="true" aria-describedby="agreeRecurring-err"` : ''}> [필수] ${consentText(r)}</label>
    ${err ? html`<p class="err" id="agreeRecurring-err" role="alert">${err}</p>` : ''}
  </section>`;
}
