import { ownValue } from '../../platform/lookup';
import type { RefundRequestView } from '../../refunds/requests/model';
import { MAX_REASON } from '../../refunds/requests/model';
import { MESSAGES } from '../../platform/messages';
import { enDay, enTime, koDay } from '../lang';
import { kst, won } from '../html';
import { methodLabel } from '../form';

/**
 * The receipt's words in Korean (the default) and English (`?lang=en`). Both objects have the same shape (the
 * compiler checks it), so a statement added in one language cannot be missing from the other. The statements the law
 * asks for are in legal.ts.
 */

export type { Lang } from '../lang';
import type { Lang } from '../lang';
export { enDay, enTime, koDay };

export const langOf = (v: string): Lang => (v === 'en' ? 'en' : 'ko');

/** The last day before an instant at 00:00 KST: deadlines are written as the end of that day. */
const lastDay = (end: Date): Date => new Date(end.getTime() - 1);
/** The last minute before an instant at 00:00 KST (23:59 of the last day). */
const lastMinute = (end: Date): Date => new Date(end.getTime() - 60_000);

/**
 * A window's end (00:00 KST of the day after its last day) as every buyer-facing text writes it: the last minute of
 * the last day, so "까지" reads as that whole day. The receipt and the mails (src/mail/copy/contract-notes.ts) both
 * write the withdrawal deadline with this, from the same instant (src/platform/calendar.ts withdrawalWindowEnd), so
 * they cannot disagree: the mails once said 07:15 (the payment's time seven days on) where the receipt said 23:59.
 */
export const WINDOW_END_TEXT: Record<Lang, (end: Date) => string> = {
  ko: (end) => kst(lastMinute(end)),
  en: (end) => `the end of ${enDay(lastDay(end))} (11:59 PM KST)`,
};

const METHODS_EN: Record<string, string> = { card: 'Credit/debit card', kakao_pay: 'KakaoPay', naver_pay: 'Naver Pay', toss: 'Toss Pay', transfer: 'Bank transfer', virtual_account: 'Virtual account (bank deposit)',
  mobile_phone: 'Mobile phone bill', culture_gift: 'Culture gift certificate (문화상품권)', book_gift: 'Book gift certificate (도서문화상품권)', game_gift: 'Game gift certificate (게임문화상품권)' };

const REQUEST_STATUS_KO: Record<RefundRequestView['status'], string> = {
  requested: '접수됨 · 판매자 확인 중',
  held: '보류됨',
  approved: '승인됨 · 환불 완료',
  rejected: '거절됨',
  canceled: '요청 취소됨',
};
const REQUEST_STATUS_EN: Record<RefundRequestView['status'], string> = {
  requested: 'Received · with the seller',
  held: 'On hold',
  approved: 'Approved · refunded',
  rejected: 'Rejected',
  canceled: 'Withdrawn',
};

const KO = {
  lang: 'ko' as Lang,
  switchTo: { lang: 'en' as Lang, label: 'English' },
  title: (product: string) => `${product} 주문 영수증`,
  testMode: '테스트 모드',
  time: (d: Date) => kst(d),
  day: koDay,
  /**
   * A window's end (00:00 KST of the day after its last day) in the receipt's one time format: `2026년 11월 10일 오후
   * 11:59` - the last minute of the last day, so "까지" reads as that whole day, like every other time on the page.
   */
  endOfDay: WINDOW_END_TEXT.ko,
  money: (n: number) => won(n),
  order: {
    aria: '주문 내역',
    heading: '주문 영수증',
    id: '주문 번호',
    status: '주문 상태',
    method: '결제 수단',
    plan: '요금제',
    cycle: { monthly: '매월', yearly: '매년' } as Record<string, string>,
    paidAt: '결제 일시',
    coupon: (code: string) => `쿠폰 할인 (${code})`,
    total: '결제 금액',
    refunded: '환불된 금액',
    statuses: { paid: '결제 완료', refunded: '전액 환불', pending: '결제 대기', awaiting_deposit: '입금 대기', expired: '입금 기한 만료', failed: '결제 실패', canceled: '결제 취소', partial: '부분 환불' } as Record<string, string>,
    methodLabel: (m: string) => methodLabel(m as Parameters<typeof methodLabel>[0]),
    installment: (months: number | null) => (months === null ? '' : months === 0 ? ' (일시불)' : ` (${months}개월 할부)`),
  },
  refunds: {
    aria: '환불 내역',
    heading: '환불 내역',
    cardHint: '카드 결제의 환불은 카드사 사정에 따라 영업일 기준 3~7일 뒤 카드 명세서에 반영될 수 있습니다.',
  },
  request: {
    heading: '환불 요청',
    statuses: REQUEST_STATUS_KO,
    amount: '요청 금액',
    at: '요청 일시',
    reason: (r: string) => `사유: ${r}`,
    held: (r: string) => `판매자가 요청을 보류했습니다: ${r}`,
    auto: (at: Date) => `법정 청약철회 기간 안에 접수된 요청입니다. 판매자가 그 전에 처리하지 않으면 ${kst(at)}에 자동으로 승인되어 환불됩니다.`,
    cancelAuto: (at: Date) => `구독 해지와 함께 접수된 환불 요청입니다. 판매자는 ${kst(at)}까지 결정해야 하며, 그때까지 결정하지 않으면 자동으로 승인되어 환불되고 구독이 종료됩니다.`,
    processing: '판매자가 승인하여 환불을 처리하고 있습니다.',
    cancel: '환불 요청 취소',
  },
  form: {
    aria: '환불 요청하기',
    heading: '환불 요청하기',
    refundableBefore: '환불 가능한 금액은 ',
    refundableAfter: '입니다. 판매자가 요청을 확인한 뒤 환불합니다.',
    window: (end: string) => `청약철회 기간: ${end}까지. 이 기간 안의 요청은 판매자가 3영업일 안에 처리하지 않으면 자동으로 승인됩니다.`,
    amount: '환불 요청 금액 (원)',
    amountHint: '비워 두면 환불 가능한 금액 전체를 요청합니다.',
    reason: '사유 (선택)',
    placeholder: '예: 단순 변심, 중복 결제',
    submit: '환불 요청하기',
  },
  history: { aria: '지난 환불 요청', heading: '지난 환불 요청', rejected: (r: string) => ` · 거절 사유: ${r}` },
  done: { filed: '환불 요청이 접수되었습니다. 판매자가 확인한 뒤 환불합니다.', canceled: '환불 요청을 취소했습니다.' },
  privateLink: '이 페이지의 주소는 주문자 본인만 알고 있어야 합니다.',
  notFound: { title: '영수증을 찾을 수 없습니다', message: '주소가 올바른지 확인해 주세요. 영수증 링크는 판매자가 보낸 메일이나 메시지에 있습니다.' },
  notANumber: '환불 요청 금액은 숫자로 입력해 주세요.',
  refundAccountNeeded: '가상계좌 결제는 환불받을 본인 계좌가 있어야 환불할 수 있습니다. 은행, 계좌번호, 예금주를 확인해 주세요. 요청은 아직 접수되지 않았습니다.',
  /** A refusal from the service (MESSAGES.refundRequests, Korean): shown as it is. */
  buyerMessage: (ko: string, _refundable: number) => ko,
};

export type ReceiptCopy = typeof KO;

const EN: ReceiptCopy = {
  lang: 'en',
  switchTo: { lang: 'ko', label: '한국어' },
  title: (product) => `Receipt: ${product}`,
  testMode: 'Test mode',
  time: enTime,
  day: enDay,
  endOfDay: WINDOW_END_TEXT.en,
  money: (n) => `₩${n.toLocaleString('en-US')}`,
  order: {
    aria: 'Order',
    heading: 'Receipt',
    id: 'Order number',
    status: 'Status',
    method: 'Payment method',
    plan: 'Plan',
    cycle: { monthly: 'Monthly', yearly: 'Yearly' },
    paidAt: 'Paid at',
    coupon: (code) => `Coupon (${code})`,
    total: 'Amount paid',
    refunded: 'Refunded',
    statuses: { paid: 'Paid', refunded: 'Refunded in full', pending: 'Awaiting payment', awaiting_deposit: 'Awaiting your deposit', expired: 'Deposit deadline passed', failed: 'Payment failed', canceled: 'Payment canceled', partial: 'Partly refunded' },
    methodLabel: (m) => ownValue(METHODS_EN, m) ?? m,
    installment: (months) => (months === null ? '' : months === 0 ? ' (single payment)' : ` (${months}-month installments)`),
  },
  refunds: {
    aria: 'Refunds',
    heading: 'Refunds',
    cardHint: 'A card refund may take 3–7 business days to show on your card statement, depending on the card company.',
  },
  request: {
    heading: 'Refund request',
    statuses: REQUEST_STATUS_EN,
    amount: 'Amount requested',
    at: 'Requested at',
    reason: (r) => `Reason: ${r}`,
    held: (r) => `The seller has put the request on hold: ${r}`,
    auto: (at) => `This request was made within the statutory withdrawal period. Unless the seller handles it first, it is approved and refunded automatically at ${enTime(at)}.`,
    cancelAuto: (at) => `This refund request came with your subscription cancellation. The seller must decide by ${enTime(at)}; if they have not, it is approved and refunded automatically then and the subscription ends.`,
    processing: 'The seller has approved the request and the refund is being processed.',
    cancel: 'Withdraw the refund request',
  },
  form: {
    aria: 'Request a refund',
    heading: 'Request a refund',
    refundableBefore: 'You can request up to ',
    refundableAfter: '. The seller reviews the request and then refunds.',
    window: (end) => `Withdrawal period: until ${end}. A request within this period is approved automatically if the seller does not handle it within 3 business days.`,
    amount: 'Amount (KRW)',
    amountHint: 'Leave it empty to request everything refundable.',
    reason: 'Reason (optional)',
    placeholder: 'e.g. changed my mind, paid twice',
    submit: 'Request a refund',
  },
  history: { aria: 'Earlier refund requests', heading: 'Earlier refund requests', rejected: (r) => ` · Reason for rejection: ${r}` },
  done: { filed: 'Your refund request has been received. The seller will review it and refund.', canceled: 'Your refund request has been withdrawn.' },
  privateLink: 'Keep this page’s address to yourself: anyone with it can request a refund.',
  notFound: { title: 'Receipt not found', message: 'Please check the address. The receipt link is in the e-mail or message the seller sent you.' },
  notANumber: 'Please enter the refund amount as a number.',
  refundAccountNeeded: 'A virtual-account payment can only be refunded to an account of yours. Check the bank, account number and holder. The request has not been filed yet.',
  buyerMessage: (ko, refundable) => buyerMessageEn(ko, refundable),
};

/** The service's refusals (Korean, from the message catalog) in English; an unknown one is shown as it is. */
function buyerMessageEn(ko: string, refundable: number): string {
  const m = MESSAGES.refundRequests;
  const known: Record<string, string> = {
    [m.fullyRefunded]: 'This order has been refunded in full.',
    [m.notPaid]: 'A refund can be requested only for a paid order.',
    [m.alreadyPending]: 'A refund request for this order is already open.',
    [m.settled]: 'This order has been settled, so a refund cannot be requested on this page. Please contact the seller directly.',
    [m.refundInFlight]: 'A refund of this order is being processed. Please check again shortly.',
    [m.noneLeft]: 'Nothing is left to refund.',
    [m.amountTooSmall]: 'The refund amount must be at least ₩1.',
    [m.amountAboveRefundable(refundable)]: `The refund amount cannot be more than what is refundable (₩${refundable.toLocaleString('en-US')}).`,
    [m.reasonTooLong(MAX_REASON)]: `Please keep the reason to ${MAX_REASON} characters.`,
    [m.nothingToCancel]: 'There is no refund request to withdraw.',
    [m.approvingCannotCancel]: 'The seller has approved the request and the refund is being processed, so it cannot be withdrawn.',
  };
  return known[ko] ?? ko;
}

export const COPY: Record<Lang, ReceiptCopy> = { ko: KO, en: EN };
