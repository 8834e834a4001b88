import type { Receipt, ReceiptSubscription } from '../../refunds/requests/buyer-receipt';
import { restrictionValid } from '../../orders/terms';
import type { BusinessDetailsView } from '../../stores/schemas';
import { html, type SafeHtml } from '../html';
import { supportLinks } from '../footer';
import { buyerPagePath } from '../../buyers/model';
import type { Lang, ReceiptCopy } from './copy';

/**
 * What 전자상거래법 asks the receipt (the contract document of 제13조②) to state, in Korean and English:
 * - the withdrawal right's period, how to use it and its effect (제13조②5·6, 제17조, 제18조): a refund within 3
 *   business days of the request, the late-refund interest of 제18조② (연 15%, 시행령 제21조의3) for delays, no
 *   penalty for withdrawing, and the 3-month/30-day right when the product differs from what was advertised (제17조③);
 * - on a product sold with a trial and a marked restriction (both, 제17조②5·⑥), the restriction and why a request
 *   after use is not a statutory withdrawal;
 * - on a subscription's order, the recurring terms: the next charge (date and amount), how to cancel (the buyer
 *   portal) and what a cancellation refunds;
 * - how complaints and disputes are handled (제13조②8): the seller's contact, then 한국소비자원 (1372) and
 *   전자문서·전자거래분쟁조정위원회.
 * Everything comes from the order's terms as sold (`Receipt.terms`), the subscription row and the order's own clock
 * (`Receipt.now`: a test-mode subscription's clock), never from the product as it is now.
 */

const KCA = { tel: '1372', url: 'https://www.kca.go.kr' };
const ECMC = 'https://www.ecmc.or.kr';
const ext = (href: string, text: string | SafeHtml) => html`<a href="${href}" rel="noopener noreferrer" target="_blank">${text}</a>`;

interface WindowFacts {
  days: number;
  /** The period's last day, written as a deadline. */
  end: string;
  open: boolean;
  /** Use ended the right (restriction valid and a key activated). */
  barred: boolean;
  subscription: boolean;
}

interface SellerFacts {
  name: string;
  contact: SafeHtml | null;
}

const LEGAL = {
  ko: {
    withdrawalHeading: '청약철회와 환불',
    window: (w: WindowFacts) =>
      w.barred
        ? `결제일로부터 ${w.days}일(${w.end}까지)이 청약철회 기간이지만, 이 주문의 라이선스 키가 활성화되어 청약철회가 제한됩니다(아래 ‘사용 후 청약철회 제한’).`
        : w.open
          ? `결제일로부터 ${w.days}일 이내, ${w.end}까지 청약철회(구매 취소)를 요청하면 결제 금액 전액을 환불받을 수 있습니다.`
          : `이 주문의 청약철회 기간(결제일로부터 ${w.days}일, ${w.end}까지)이 끝났습니다. 그 뒤의 환불 요청은 판매자가 환불 규정에 따라 검토합니다.`,
    renewalWindow: '구독의 갱신 결제마다 그 결제일부터 같은 청약철회 기간이 새로 주어집니다.',
    how: '청약철회는 이 페이지의 ‘환불 요청하기’로 하거나, 판매자 고객센터에 전화나 이메일로 알리면 됩니다. 청약철회를 이유로 위약금이나 손해배상을 물지 않습니다.',
    effect:
      '청약철회가 되면 판매자는 요청을 받은 날(돌려받을 재화가 있으면 돌려받은 날)부터 3영업일 이내에 결제 대금을 환불합니다. 이 페이지에서 기간 안에 한 요청은 판매자가 처리하지 않아도 3영업일째 낮 12시(한국 시간)에 자동으로 승인되어 환불됩니다. 카드 결제는 카드사를 통해 결제가 취소됩니다.',
    interest: '판매자가 이 기한을 넘겨 환불하면 늦어진 기간에 대해 연 15%의 지연이자(지연배상금)를 더해 지급해야 합니다 (전자상거래법 제18조 제2항, 같은 법 시행령 제21조의3).',
    mismatch:
      '상품이 표시·광고 내용과 다르거나 계약 내용과 다르게 제공되었다면 사용 여부와 관계없이, 공급받은 날부터 3개월 이내 또는 그 사실을 안 날(알 수 있었던 날)부터 30일 이내에 청약철회할 수 있습니다 (제17조 제3항).',
    usedStillWithdrawable: '라이선스 키를 기기에서 활성화해 사용했더라도 위 기간 안에는 청약철회할 수 있습니다.',
    restrictionHeading: '사용 후 청약철회 제한',
    restriction:
      '이 상품은 구매 전에 체험판을 제공했고, 라이선스 키를 기기에서 활성화해 사용하면 청약철회가 제한된다는 사실을 결제 전에 표시했습니다.',
    restrictionWhy:
      '그래서 키를 활성화한 뒤에 한 환불 요청은 법정 청약철회가 아닙니다 (전자상거래법 제17조 제2항 제5호·제6항). 판매자가 환불 규정에 따라 검토해 승인하거나 거절하며, 자동으로 승인되지 않습니다.',
    restrictionState: (used: boolean) =>
      used ? '이 주문의 라이선스 키는 이미 활성화되었습니다.' : '이 주문의 라이선스 키는 아직 활성화되지 않았습니다. 활성화하기 전에는 위 기간 안에 청약철회할 수 있습니다.',
    restrictionMismatch: '다만 상품이 표시·광고와 다르면 사용한 뒤에도 청약철회할 수 있습니다 (제17조 제3항).',
    recurringHeading: '정기결제 안내',
    cycle: '결제 주기',
    interval: (i: 'monthly' | 'yearly') => (i === 'monthly' ? '매월' : '매년'),
    nextDate: '다음 결제일',
    nextAmount: '다음 결제 금액',
    planChange: ' (변경한 요금제)',
    priceAgreed: ' (동의한 새 가격)',
    priceDecrease: ' (인하된 가격)',
    priceEnds: '판매자가 이 결제일부터 가격을 올렸습니다. 구독 관리 페이지에서 새 가격에 동의하지 않으면 이날 구독이 끝나고 더는 결제되지 않습니다.',
    autoCharge: (i: 'monthly' | 'yearly') => `해지하기 전까지 ${i === 'monthly' ? '매월' : '매년'} 다음 결제일에 등록한 카드로 자동 결제됩니다.`,
    scheduledEnd: (day: string) => `해지가 예약되어 ${day}에 구독이 끝나며, 더는 결제되지 않습니다.`,
    pastDue: (day: string | null) => `최근 갱신 결제가 실패했습니다.${day ? ` ${day}에 다시 결제를 시도합니다.` : ''} 카드는 구독 관리 페이지에서 바꿀 수 있습니다.`,
    ended: (day: string | null) => `구독이 ${day ? `${day}에 ` : ''}종료되어 더는 결제되지 않습니다.`,
    howToCancel: (page: SafeHtml) =>
      html`해지 방법: 구독 관리 페이지(구매자 포털)에서 언제든 해지할 수 있습니다. ${page}에서 결제한 이메일 주소로 로그인해 ‘구독 관리’를 누르거나, 구독 메일의 ‘구독 관리’ 링크를 여세요. ‘기간 종료 시 해지’는 다음 결제일부터 결제되지 않고 그날까지 이용할 수 있으며, ‘지금 해지하고 환불’은 바로 끝나고 환불 금액을 먼저 보여 줍니다.`,
    buyerPage: '내 구매내역',
    cancelRefund: (penaltyRate: number) =>
      `청약철회 기간 안에 해지하면 그 결제 금액을 전액 환불합니다. 기간이 지난 뒤 바로 해지하면 이용한 일수만큼의 요금${penaltyRate > 0 ? `과 남은 금액의 ${penaltyRate}% 위약금` : ''}을 뺀 금액을 환불합니다.`,
    clawback: '할인된 연간 요금제를 중도 해지하면, 이용한 기간은 월 요금 기준으로 다시 계산해 할인받은 금액 중 해당 부분을 빼고 환불합니다.',
    disputesHeading: '문의·불만과 분쟁 해결',
    contact: (s: SellerFacts) =>
      s.contact
        ? html`상품, 결제, 환불에 관한 문의와 불만은 판매자 고객센터로 접수해 주세요: ${s.name} ${s.contact}. 판매자가 확인해 답변하고 처리합니다.`
        : html`상품, 결제, 환불에 관한 문의와 불만은 판매자(${s.name})에게 접수해 주세요. 판매자 연락처가 아직 등록되지 않았습니다 (테스트 모드).`,
    bodies: html`판매자와 해결되지 않으면 ${ext(KCA.url, '한국소비자원')}(소비자상담센터 국번 없이 <a href="tel:${KCA.tel}">1372</a>)에 상담과 피해구제를, ${ext(ECMC, '전자문서·전자거래분쟁조정위원회')}에 분쟁 조정을 신청할 수 있습니다.`,
    document: (version: string) => `이 영수증은 전자상거래법 제13조 제2항에 따라 계약 내용을 알려 드리는 문서이며, 결제할 때 안내된 환불 조건(${version})을 따릅니다.`,
  },
  en: {
    withdrawalHeading: 'Withdrawal and refunds',
    window: (w: WindowFacts) =>
      w.barred
        ? `The withdrawal period is ${w.days} days from payment (until ${w.end}), but a license key of this order has been activated, so withdrawal is limited (see “Withdrawal limited after use”).`
        : w.open
          ? `You may withdraw from this purchase within ${w.days} days of payment, until ${w.end}, and get the full amount back.`
          : `The withdrawal period of this order (${w.days} days from payment) ended at ${w.end}. The seller reviews later refund requests under its refund policy.`,
    renewalWindow: 'Each renewal payment of the subscription starts the same withdrawal period again from its payment date.',
    how: 'To withdraw, use “Request a refund” on this page, or tell the seller’s customer service by phone or e-mail. Withdrawing costs you no penalty or damages.',
    effect:
      'After a withdrawal the seller refunds the payment within 3 business days of receiving the request (or of getting goods back, where any must be returned). A request made on this page within the period is approved and refunded automatically at 12:00 noon (Korea time) on the 3rd business day if the seller has not handled it. Card payments are canceled through the card company.',
    interest:
      'If the seller refunds later than that, it must add late-payment interest of 15% a year for the days of delay (Article 18(2) of the Act on the Consumer Protection in Electronic Commerce, Article 21-3 of its Enforcement Decree).',
    mismatch:
      'If the product differs from how it was described or advertised, or from the contract, you may withdraw whether or not you used it: within 3 months of receiving it, or within 30 days of when you learned (or could have learned) of the difference (Article 17(3)).',
    usedStillWithdrawable: 'Even after activating a license key on a device, you may withdraw within the period above.',
    restrictionHeading: 'Withdrawal limited after use',
    restriction:
      'This product offered a trial before purchase, and it was stated before payment that activating a license key on a device (use) ends the right of withdrawal.',
    restrictionWhy:
      'A refund request made after a key was activated is therefore not a statutory withdrawal (Article 17(2)5 and 17(6) of the Act): the seller reviews it under its refund policy and may approve or reject it; it is not approved automatically.',
    restrictionState: (used: boolean) =>
      used ? 'A license key of this order has been activated.' : 'No license key of this order has been activated yet: until one is, you may withdraw within the period above.',
    restrictionMismatch: 'If the product differs from how it was described or advertised, you may still withdraw after use (Article 17(3)).',
    recurringHeading: 'Recurring payments',
    cycle: 'Billing cycle',
    interval: (i: 'monthly' | 'yearly') => (i === 'monthly' ? 'Monthly' : 'Yearly'),
    nextDate: 'Next payment',
    nextAmount: 'Next amount',
    planChange: ' (new plan)',
    priceAgreed: ' (the new price you agreed to)',
    priceDecrease: ' (reduced price)',
    priceEnds: 'The seller raised the price from this payment date. Unless you agree to the new price on the subscription management page, the subscription ends that day and is not charged again.',
    autoCharge: (i: 'monthly' | 'yearly') => `Until you cancel, your registered card is charged automatically every ${i === 'monthly' ? 'month' : 'year'} on the next payment date.`,
    scheduledEnd: (day: string) => `Cancellation is scheduled: the subscription ends on ${day} and is not charged again.`,
    pastDue: (day: string | null) => `The last renewal payment failed.${day ? ` It will be tried again on ${day}.` : ''} You can change the card on the subscription management page.`,
    ended: (day: string | null) => `The subscription ended${day ? ` on ${day}` : ''} and is not charged again.`,
    howToCancel: (page: SafeHtml) =>
      html`How to cancel: at any time on the subscription management page (buyer portal). Sign in to ${page} with the e-mail address you paid with and press “Manage subscription”, or open the “Manage the subscription” link of a subscription mail. “Cancel at period end” stops the payments from the next payment date and keeps the service until then; “Cancel now and refund” ends it at once and shows the refund first.`,
    buyerPage: 'My orders',
    cancelRefund: (penaltyRate: number) =>
      `Cancel within the withdrawal period and that payment is refunded in full. Cancel at once after it and you get the payment back less the days used${penaltyRate > 0 ? ` and a ${penaltyRate}% penalty on the rest` : ''}.`,
    clawback: 'Cancelling a discounted yearly plan early recalculates the time used at the monthly price, and the part of the discount for that time is deducted from the refund.',
    disputesHeading: 'Questions, complaints and disputes',
    contact: (s: SellerFacts) =>
      s.contact
        ? html`Send questions and complaints about the product, payment or refunds to the seller’s customer service: <span translate="no">${s.name}</span> ${s.contact}. The seller looks into them and answers.`
        : html`Send questions and complaints about the product, payment or refunds to the seller (<span translate="no">${s.name}</span>). The seller has not entered its contact details yet (test mode).`,
    bodies: html`If it is not resolved with the seller, you can ask the ${ext(KCA.url, 'Korea Consumer Agency')} (consumer counselling: dial <a href="tel:${KCA.tel}">1372</a> in Korea) for advice and redress, or the ${ext(ECMC, html`Electronic Document and E-Commerce Dispute Mediation Committee (<span lang="ko">전자문서·전자거래분쟁조정위원회</span>)`)} for mediation.`,
    document: (version: string) => `This receipt states the contract under Article 13(2) of the Act on the Consumer Protection in Electronic Commerce; the refund terms shown at payment (${version}) apply.`,
  },
};

export interface LegalInput {
  r: Receipt;
  c: ReceiptCopy;
  lang: Lang;
  business: BusinessDetailsView | null | undefined;
}

/** The withdrawal period, how to withdraw, its effect and the late-refund interest (제17조, 제18조). */
export function withdrawalCard({ r, c, lang }: LegalInput): SafeHtml {
  const l = LEGAL[lang];
  const t = r.terms;
  const end = r.statutoryWindowEndsAt;
  const restricted = restrictionValid(t);
  const w: WindowFacts | null = end
    ? { days: Math.max(7, t.refundDays), end: c.endOfDay(end), open: r.now < end, barred: restricted && r.used && r.now < end, subscription: r.subscription !== null }
    : null;
  return html`<section class="card legal" aria-labelledby="withdrawal-title" id="withdrawal">
  <h2 id="withdrawal-title">${l.withdrawalHeading}</h2>
  <ul class="terms">
    ${w ? html`<li id="withdrawal-window">${l.window(w)}</li>` : ''}
    ${w?.subscription ? html`<li>${l.renewalWindow}</li>` : ''}
    ${t.licensed && !restricted ? html`<li>${l.usedStillWithdrawable}</li>` : ''}
    <li id="withdrawal-how">${l.how}</li>
    <li id="withdrawal-effect">${l.effect}</li>
    <li id="late-interest">${l.interest}</li>
    <li id="withdrawal-mismatch">${l.mismatch}</li>
  </ul>
</section>`;
}

/** On a product sold with a trial and a marked restriction: what use does and why a request after it is not statutory. */
export function restrictionCard({ r, lang }: LegalInput): SafeHtml {
  if (!restrictionValid(r.terms)) return html``;
  const l = LEGAL[lang];
  return html`<section class="card legal" aria-labelledby="restriction-title" id="restriction">
  <h2 id="restriction-title">${l.restrictionHeading}</h2>
  <ul class="terms">
    <li>${l.restriction}</li>
    <li id="restriction-why">${l.restrictionWhy}</li>
    <li id="restriction-state">${l.restrictionState(r.used)}</li>
    <li>${l.restrictionMismatch}</li>
  </ul>
</section>`;
}

function nextCharge(s: ReceiptSubscription, c: ReceiptCopy, lang: Lang): SafeHtml {
  const l = LEGAL[lang];
  if (s.status === 'ended') return html`<p id="recurring-state">${l.ended(s.endedAt ? c.day(s.endedAt) : null)}</p>`;
  if (s.status === 'past_due') return html`<p id="recurring-state">${l.pastDue(s.nextRetryAt ? c.day(s.nextRetryAt) : null)}</p>`;
  if (s.cancelAtPeriodEnd) return html`<p id="recurring-state">${l.scheduledEnd(c.day(s.currentPeriodEnd))}</p>`;
  return html`<dl class="amounts">
    <dt>${l.cycle}</dt><dd>${l.interval(s.interval)}</dd>
    <dt>${l.nextDate}</dt><dd id="next-charge-date">${c.day(s.currentPeriodEnd)}</dd>
    <dt>${l.nextAmount}</dt><dd id="next-charge-amount">${c.money(s.nextAmount)}${s.planChangeScheduled ? l.planChange : ''}${s.priceChange === 'agreed' ? l.priceAgreed : s.priceChange === 'decrease' ? l.priceDecrease : ''}</dd>
  </dl>
  ${s.priceChange === 'ends' ? html`<p id="price-change-ends">${l.priceEnds}</p>` : ''}
  <p id="recurring-state">${l.autoCharge(s.interval)}</p>`;
}

/** A subscription's order: the next charge (or why there is none), how to cancel, and what a cancellation refunds. */
export function recurringCard({ r, c, lang }: LegalInput): SafeHtml {
  const s = r.subscription;
  if (!s) return html``;
  const l = LEGAL[lang];
  return html`<section class="card legal" aria-labelledby="recurring-title" id="recurring">
  <h2 id="recurring-title">${l.recurringHeading}</h2>
  ${nextCharge(s, c, lang)}
  <ul class="terms">
    <li id="how-to-cancel">${l.howToCancel(html`<a id="buyer-page-link" href="${buyerPagePath(r.storeId, r.order.mode)}${lang === 'en' ? '?lang=en' : ''}">${l.buyerPage}</a>`)}</li>
    <li id="cancel-refund">${l.cancelRefund(r.terms.penaltyRate)}</li>
    ${r.terms.clawbackDisclosed ? html`<li id="clawback">${l.clawback}</li>` : ''}
  </ul>
</section>`;
}

/** Complaints and disputes (제13조②8): the seller's contact as in the business details, then the dispute bodies. */
export function disputesCard({ r, lang, business }: LegalInput): SafeHtml {
  const l = LEGAL[lang];
  const links = business ? supportLinks(business) : null;
  const seller: SellerFacts = { name: business?.companyName ?? r.storeName, contact: links && links.value ? links : null };
  return html`<section class="card legal" aria-labelledby="disputes-title" id="disputes">
  <h2 id="disputes-title">${l.disputesHeading}</h2>
  <ul class="terms">
    <li id="seller-contact">${l.contact(seller)}</li>
    <li id="dispute-bodies">${l.bodies}</li>
  </ul>
  <p class="hint">${l.document(r.terms.version)}</p>
</section>`;
}
