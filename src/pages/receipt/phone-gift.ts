import type { OrderView } from '../../orders/schemas';
import { isGiftCertificate } from '../../payments/method';
import { kstMonth, methodRefundRule } from '../../refunds/method-rules';
import { html, type SafeHtml } from '../html';
import type { ReceiptCopy } from './copy';
import { refundAccountForm, type RefundAccountErrors } from './virtual-account';

/**
 * The receipt's card for a 휴대폰 결제 or 상품권 payment (issue 41): how its refund works, as the refund engine decides it
 * (src/refunds/method-rules.ts): full refunds only; a phone payment is canceled on the phone bill within its KST month
 * and refunded to the buyer's own account after it, so the card then takes that account (the same form and route as a
 * 가상계좌's). Both languages here (the buyer pages' copy objects are another engineer's).
 */
const T = {
  ko: {
    phoneHeading: '휴대폰 결제 환불 안내',
    giftHeading: '상품권 결제 환불 안내',
    phoneInMonth: (month: string) =>
      `휴대폰 결제는 결제한 달(${month}, 한국 시간) 안에 환불되면 결제가 취소되어 휴대폰 요금에 청구되지 않습니다. 그 달이 지나면 결제 취소가 되지 않아 본인 계좌로 환불받습니다. 미리 계좌를 등록해 두어도 됩니다.`,
    phoneAfterMonth: (month: string) => `결제한 달(${month})이 지나 이 결제는 취소할 수 없습니다. 환불은 아래 본인 계좌로 받습니다.`,
    fullOnly: '휴대폰·상품권 결제는 부분 환불이 되지 않아 전액으로만 환불할 수 있습니다.',
    giftWhere: '환불하면 결제에 쓴 상품권으로 돌아갑니다.',
    requestWhy: '결제한 달이 지난 휴대폰 결제는 이 계좌로 환불됩니다. 요청과 함께 저장되며, 계좌번호는 끝 네 자리만 표시됩니다.',
    requestWhyInMonth:
      '휴대폰 결제가 결제한 달 안에 환불되면 계좌는 쓰이지 않습니다. 청약철회 요청의 자동 승인이 다음 달이 되면 이 계좌로 환불되므로 그때는 꼭 입력해야 합니다.',
    legendInMonth: '환불받을 본인 계좌 (다음 달에 환불될 때 필요)',
    accountNeeded: '결제한 달이 지나 환불될 수 있는 휴대폰 결제는 환불받을 본인 계좌가 있어야 요청할 수 있습니다. 은행, 계좌번호, 예금주를 확인해 주세요. 요청은 아직 접수되지 않았습니다.',
  },
  en: {
    phoneHeading: 'Refunds of a mobile phone payment',
    giftHeading: 'Refunds of a gift certificate payment',
    phoneInMonth: (month: string) =>
      `A mobile phone payment refunded within the month it was made (${month}, Korea time) is canceled and never billed to your phone. After that month it can no longer be canceled and is refunded to a bank account of yours. You may register the account now.`,
    phoneAfterMonth: (month: string) => `The month of the payment (${month}) has passed, so it can no longer be canceled. The refund goes to your bank account below.`,
    fullOnly: 'Mobile phone and gift certificate payments cannot be refunded in part: only the full amount.',
    giftWhere: 'A refund goes back to the gift certificate you paid with.',
    requestWhy: 'A mobile phone payment past its month is refunded to this account. It is saved with the request; only its last four digits are shown.',
    requestWhyInMonth:
      'Refunded within the month of payment, a phone payment needs no account. If your withdrawal would be approved automatically next month, it is refunded to this account, so it is required then.',
    legendInMonth: 'Your account for the refund (needed for a refund next month)',
    accountNeeded: 'A mobile phone payment that may be refunded after its month needs an account of yours for the refund. Check the bank, account number and holder. The request has not been filed yet.',
  },
};

const monthText = (t: Date, lang: 'ko' | 'en') => {
  const [y, m] = kstMonth(t).split('-');
  return lang === 'ko' ? `${y}년 ${Number(m)}월` : `${y}-${m}`;
};

/** Whether the receipt's refund request must carry the buyer's account (a phone payment past its KST month). */
export function phoneNeedsAccount(order: Pick<OrderView, 'method' | 'paidAt' | 'createdAt'>, now: Date): boolean {
  return order.method === 'mobile_phone' && methodRefundRule({ method: order.method, paid_at: order.paidAt ? new Date(order.paidAt) : null, created_at: new Date(order.createdAt) }, now).needsAccount === 'phone_after_month';
}

export function phoneGiftCard(p: { order: OrderView; token: string; c: ReceiptCopy; now: Date; refundAccount: string | null; errors?: RefundAccountErrors; typed?: { bankCode: string; holderName: string } }): SafeHtml {
  const o = p.order;
  const phone = o.method === 'mobile_phone';
  if (!phone && !isGiftCertificate(o.method)) return html``;
  if (o.status !== 'paid') return html``;
  const t = T[p.c.lang];
  if (!phone) {
    return html`<section class="card" id="method-refund" aria-label="${t.giftHeading}"><h2>${t.giftHeading}</h2><p class="muted">${t.fullOnly} ${t.giftWhere}</p></section>`;
  }
  const month = monthText(new Date(o.paidAt ?? o.createdAt), p.c.lang);
  const after = phoneNeedsAccount(o, p.now);
  return html`<section class="card" id="method-refund" aria-label="${t.phoneHeading}">
  <h2>${t.phoneHeading}</h2>
  <p class="muted" id="phone-refund-rule">${after ? t.phoneAfterMonth(month) : t.phoneInMonth(month)}</p>
  <p class="hint">${t.fullOnly}</p>
  ${refundAccountForm({ order: o, token: p.token, c: p.c, refundAccount: p.refundAccount, errors: p.errors, typed: p.typed })}
</section>`;
}

/** The refund request's account legend and hint for a phone payment (past its month, or still in it). */
export const phoneRequestText = (lang: 'ko' | 'en', afterMonth: boolean): { why: string; legend?: string } =>
  afterMonth ? { why: T[lang].requestWhy } : { why: T[lang].requestWhyInMonth, legend: T[lang].legendInMonth };

/** The banner when a phone payment's refund request lacked the account it needs. */
export const phoneAccountNeeded = (lang: 'ko' | 'en'): string => T[lang].accountNeeded;
