import { restrictionValid, type SaleTerms } from '../orders/terms';
import type { BusinessDetailsView } from '../stores/schemas';
import { html, type SafeHtml } from './html';

/**
 * What the payment page tells the buyer about refunds and withdrawal (and the receipt repeats from the order's terms as
 * sold, src/orders/terms.ts; change TERMS_VERSION there with this wording), from the product's `refundPolicy` and
 * the rules the service applies (src/refunds/requests/model.ts statutoryAt, src/subscriptions/cancel/model.ts):
 * - window W = max(7, refundDays) days after payment (전자상거래법 제17조; a longer period offered replaces the 7 days);
 * - "used" means a license key of the order was activated on a device (the only use the service records); use bars
 *   withdrawal only when the seller both offered a trial and marked the restriction (제17조⑥);
 * - subscriptions: cancel any time; after the window the unused part is refunded less the penalty (≤ 10%), and a
 *   discounted yearly plan's discount is recovered for the time used only when disclosed (clawbackDisclosed).
 */
export function refundTerms(t: SaleTerms, type: 'one_time' | 'subscription'): string[] {
  const days = Math.max(7, t.refundDays);
  const lines: string[] = [`결제일로부터 ${days}일 이내에는 청약철회를 요청해 전액 환불받을 수 있습니다.`];
  if (t.licensed) {
    if (restrictionValid(t)) {
      lines.push('이 상품은 체험판을 제공하므로, 라이선스 키를 기기에 활성화해 사용한 뒤에는 청약철회가 제한됩니다 (전자상거래법 제17조 제2항).');
    } else {
      lines.push('라이선스 키를 기기에 활성화해 사용했더라도 위 기간 안에는 청약철회할 수 있습니다.');
    }
    lines.push('‘사용’은 이 주문의 라이선스 키를 기기에서 활성화한 것을 말합니다.');
  }
  if (type === 'subscription') {
    lines.push(
      `구독은 언제든 해지할 수 있습니다. 청약철회 기간이 지난 뒤 즉시 해지하면 이용한 일수만큼의 요금${t.penaltyRate > 0 ? `과 남은 금액의 ${t.penaltyRate}% 위약금` : ''}을 뺀 금액을 환불합니다.`,
    );
    if (t.clawbackDisclosed) lines.push('할인된 연간 요금제를 중도 해지하면, 이용한 기간은 월 요금 기준으로 다시 계산해 할인받은 금액 중 해당 부분을 빼고 환불합니다.');
  } else {
    lines.push('청약철회 기간이 지난 뒤의 환불은 판매자의 확인을 거쳐 처리됩니다.');
  }
  lines.push('환불 요청은 결제 후 받는 영수증 페이지에서 할 수 있으며, 카드 결제는 카드사를 통해 취소됩니다.');
  return lines;
}

/**
 * refundTerms in English, line for line (the same conditions, the same order), for the English page where each
 * Korean statement is shown beside its rendering. Change both together (test/pages/english-pages.test.ts checks
 * they have as many lines).
 */
export function refundTermsEn(t: SaleTerms, type: 'one_time' | 'subscription'): string[] {
  const days = Math.max(7, t.refundDays);
  const lines: string[] = [`Within ${days} days of payment you can withdraw from the purchase and get a full refund.`];
  if (t.licensed) {
    if (restrictionValid(t)) {
      lines.push('This product offers a trial, so once a license key has been activated on a device, withdrawal is restricted (Electronic Commerce Act, Article 17(2)).');
    } else {
      lines.push('You can withdraw within that period even after activating a license key on a device.');
    }
    lines.push('“Use” means activating a license key of this order on a device.');
  }
  if (type === 'subscription') {
    lines.push(
      `You can cancel a subscription at any time. Canceling with immediate effect after the withdrawal period refunds the amount less the days used${t.penaltyRate > 0 ? ` and a penalty of ${t.penaltyRate}% of the remainder` : ''}.`,
    );
    if (t.clawbackDisclosed) lines.push('Canceling a discounted yearly plan early recalculates the time used at the monthly price and deducts that part of the discount from the refund.');
  } else {
    lines.push('A refund after the withdrawal period is handled after the seller reviews it.');
  }
  lines.push('Refunds are requested on the receipt page you get after paying; a card payment is canceled through the card company.');
  return lines;
}

/** The English rendering shown beside each Korean agreement on the English page (the Korean text is the one agreed to). */
export function agreementEnglish(field: AgreementDoc['field']): { title: string; body: string } {
  return {
    agreeTerms: {
      title: 'Terms of electronic financial transactions',
      body: 'English rendering: payments are processed by the payment company under the Electronic Financial Transactions Act. You must be entitled to use the payment method, and tell the seller’s customer service or the payment company of any payment error or suspected misuse. Cancellations and refunds follow the seller’s refund policy and the law.',
    },
    agreePrivacy: {
      title: 'Collection and use of personal data',
      body: 'English rendering: collected: name, e-mail, phone number, payment details (method, approval number). Used for processing the order, payments and refunds, delivering licenses and answering enquiries. Kept 5 years for payment and supply records and 3 years for complaint and dispute records under the Electronic Commerce Act, then deleted.',
    },
    agreeThirdParty: {
      title: 'Provision of personal data to third parties',
      body: 'English rendering: provided to the seller and the payment company: name, e-mail, phone number, order and payment details, for providing the product and customer service (seller) and processing and canceling payments (payment company), kept until the periods the law sets after that purpose is met.',
    },
  }[field];
}

export interface AgreementDoc {
  field: 'agreeTerms' | 'agreePrivacy' | 'agreeThirdParty';
  title: string;
  body: SafeHtml;
}

/** The required agreements with their texts (shown in <details>, so they are readable without JavaScript). */
export function agreementDocs(storeName: string, business: BusinessDetailsView | null, live: boolean): AgreementDoc[] {
  const seller = business?.companyName ?? storeName;
  const pg = live ? '토스페이먼츠(주)' : '결제 시뮬레이터(테스트 모드, 실제 결제 없음)';
  return [
    {
      field: 'agreeTerms',
      title: '전자금융거래 이용약관 동의',
      body: html`<p>결제는 전자금융거래법에 따라 결제대행사(${pg})를 통해 처리됩니다. 구매자는 결제 수단의 정당한 사용 권한이 있어야 하며, 결제 오류나 부정 사용이 의심되면 판매자 고객센터나 결제대행사에 알려야 합니다. 결제 취소와 환불은 판매자의 환불 규정과 관련 법령에 따릅니다.</p>`,
    },
    {
      field: 'agreePrivacy',
      title: '개인정보 수집·이용 동의',
      body: html`<p>수집 항목: 이름, 이메일, 휴대폰 번호, 결제 정보(결제 수단, 승인 번호)<br>이용 목적: 주문 처리, 결제와 환불, 라이선스 전달, 고객 문의 응대<br>보유 기간: 전자상거래법에 따라 대금 결제·재화 공급 기록은 5년, 소비자 불만·분쟁 처리 기록은 3년 보관 후 파기</p>`,
    },
    {
      field: 'agreeThirdParty',
      title: '개인정보 제3자 제공 동의',
      body: html`<p>제공받는 자: ${seller}(판매자), ${pg}<br>제공 항목: 이름, 이메일, 휴대폰 번호, 주문·결제 정보<br>제공 목적: 상품 제공과 고객 응대(판매자), 결제 처리와 취소(결제대행사)<br>보유 기간: 위 목적 달성 후 관련 법령이 정한 기간까지</p>`,
    },
  ];
}
