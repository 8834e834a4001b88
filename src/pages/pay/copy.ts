/**
 * The payment page's words in Korean (the default) and English (src/pages/lang.ts chooses). Both objects have the same
 * shape (the compiler checks it), so a text added in one language cannot be missing from the other. Legal statements
 * the law asks for in Korean (청약철회 notices, the agreements, the recurring-charge consent) stay in Korean on the
 * English page, marked `lang="ko"`, with the English rendering beside them (`legal` below).
 */
import type { PaymentMethod } from '../../payments/method';
import { MESSAGES } from '../../platform/messages';
import { bidiMessage } from '../../platform/text';
import { html, kst, kstTime, won, type SafeHtml } from '../html';
import { enDay, enTime, enWon, koDay, type Lang } from '../lang';
import { INSTALLMENT_MIN_AMOUNT, METHODS } from '../form';
import { CASH_RECEIPT_MANDATORY_MIN_AMOUNT } from '../../checkout/cash-receipt';

export type { Lang };

const METHOD_EN: Record<PaymentMethod, { label: string; payWith: string }> = {
  card: { label: 'Credit/debit card', payWith: 'by card' },
  kakao_pay: { label: 'KakaoPay', payWith: 'with KakaoPay' },
  naver_pay: { label: 'Naver Pay', payWith: 'with Naver Pay' },
  toss: { label: 'Toss Pay', payWith: 'with Toss Pay' },
  transfer: { label: 'Bank transfer', payWith: 'by bank transfer' },
  virtual_account: { label: 'Virtual account (bank deposit)', payWith: 'by bank deposit' },
} as Record<PaymentMethod, { label: string; payWith: string }>;

const enTimeOnly = (d: Date): string => enTime(d).replace(/^.*?, \d{4}, /, '');

const KO = {
  lang: 'ko' as Lang,
  money: (n: number) => won(n),
  time: (d: Date) => kst(d),
  clock: (d: Date) => kstTime(d),
  /** A date (KST) as the page writes it: `2026년 11월 15일`, `Nov 15, 2026`. */
  date: (d: Date) => koDay(d),
  testMode: '테스트 모드',
  interval: { monthly: '월간 구독 · 매월 결제', yearly: '연간 구독 · 매년 결제' },
  summary: {
    aria: '주문 요약',
    price: '상품 금액',
    trial: '무료 체험',
    trialDays: (n: number) => `${n}일 (체험 기간 결제 없음)`,
    coupon: '쿠폰 할인',
    total: '결제 금액',
  },
  title: (product: string) => `${product} 결제`,
  heading: '결제하기',
  expiryBefore: '이 결제 페이지는 ',
  expiryAfter: '까지 사용할 수 있습니다',
  name: '이름',
  email: '이메일',
  phone: '휴대폰 번호',
  lockedEmail: '판매자가 지정한 이메일입니다. 주문과 구독은 이 이메일로 등록됩니다.',
  couponCode: '쿠폰 코드',
  apply: '적용',
  couponApplied: (discount: number) => `쿠폰이 적용되어 ${won(discount)} 할인됩니다.`,
  installment: '할부',
  lumpSum: '일시불',
  months: (m: number) => `${m}개월`,
  installmentHint: `${won(INSTALLMENT_MIN_AMOUNT)} 이상 카드 결제에서 선택할 수 있습니다. 무이자 여부는 카드사 정책을 따릅니다.`,
  method: '결제 수단',
  methodLabel: (m: PaymentMethod) => METHODS.find((x) => x.value === m)?.label ?? m,
  payText: (m: string, amount: number) => {
    const x = METHODS.find((y) => y.value === m);
    return x ? `${x.payWith} ${won(amount)} 결제` : `${won(amount)} 결제하기`;
  },
  trialButton: '카드 등록하고 무료 체험 시작',
  cardNumber: '카드 번호',
  test: {
    intro: '테스트 모드에서는 실제 결제가 일어나지 않습니다. 테스트 카드:',
    success: '승인',
    declined: '거절',
    insufficient: '잔액 부족',
    unknown: '결과 확인 지연',
    refundFails: '승인, 이후 환불 실패',
    refundTimesOut: '승인, 이후 환불 결과 지연(자동 확인)',
    renewalDeclined: '첫 결제 승인, 이후 정기결제(갱신·플랜 변경 차액) 거절',
    outro: '간편결제와 계좌이체는 승인 화면을 거칩니다. 가상계좌는 발급 후 영수증 페이지에서 입금을 흉내 낼 수 있습니다.',
  },
  agreements: {
    legend: '약관 동의',
    all: '전체 동의 (필수 항목 모두)',
    required: '[필수]',
    show: '내용 보기',
    /** Beside the Korean text of each agreement on the English page; empty in Korean. */
    note: '',
  },
  refundTerms: { heading: '환불 및 청약철회 안내' },
  cancel: '결제를 취소하고 돌아가기',
  approval: {
    issue: '발급',
    approve: '결제 승인',
    testSuffix: ' (테스트)',
    transfer: '테스트 모드의 계좌이체 승인 화면입니다(은행 앱 대신). 실제로 출금되지 않습니다.',
    virtualAccount: '테스트 모드의 가상계좌 발급 화면입니다. 발급 후 영수증 페이지의 "입금하기" 버튼으로 입금을 흉내 낼 수 있습니다.',
    wallet: '테스트 모드의 간편결제 승인 화면입니다. 실제 결제는 일어나지 않습니다.',
    issueButton: (amount: number) => `${won(amount)} 입금할 가상계좌 발급`,
    approveButton: (name: string, amount: number) => `${name}로 ${won(amount)} 결제 승인`,
    cancel: '취소',
  },
  recurring: {
    heading: '정기결제 안내',
    trialHeading: '무료 체험 후 정기결제 안내',
    today: '오늘 결제',
    todayTrial: '0원 (무료 체험, 카드 등록만)',
    trialEnd: '체험 종료일',
    firstCharge: '첫 결제일',
    nextCharge: '다음 결제일',
    amount: '자동 결제 금액',
    cycle: '결제 주기',
    priceNow: '현재 가격',
    priceFrom: (day: string) => `${day} 결제부터`,
    cycleWord: { monthly: '매월', yearly: '매년' },
    cycleName: { monthly: '1개월마다', yearly: '1년마다' },
    change: (up: boolean) => `가격 ${up ? '인상' : '인하'} 예정:`,
    changeText: (day: string, from: string, to: string) => ` 판매자가 이 플랜의 가격을 ${day} 결제부터 ${from}에서 ${to}(으)로 바꾸기로 했습니다.`,
    changeFirst: (day: string, amount: number) => ` 첫 자동 결제(${day})부터 ${won(amount)}이 결제됩니다.`,
    cancelHint: '결제 후 받는 구독 관리 링크(구독 관리 페이지)에서 언제든 해지할 수 있습니다.',
    cancelTrial: '체험 종료 전에 해지하면 결제되지 않습니다.',
    cancelNext: '해지하면 다음 결제일부터 결제되지 않습니다.',
    /** The English rendering of the consent sentence (the Korean one is what is kept as the consent); '' in Korean. */
    consentEn: (_text: string) => '',
  },
  cash: {
    legend: '현금영수증 (계좌이체·가상계좌)',
    mandatory: html`이 상점은 현금영수증 의무발행 사업자입니다. ${won(CASH_RECEIPT_MANDATORY_MIN_AMOUNT)} 이상을 계좌이체·가상계좌로 결제하면 "신청 안 함"을 선택해도 현금영수증이 국세청 자진발급번호(010-000-1234)로 발급됩니다. 본인 명의로 받으려면 소득공제(휴대폰 번호) 또는 지출증빙(사업자등록번호)을 선택해 번호를 입력해 주세요.`,
    none: '신청 안 함',
    noneMandatory: '신청 안 함 (자진발급)',
    income: '소득공제 (개인)',
    expense: '지출증빙 (사업자)',
    number: '휴대폰 번호·카드 번호 (소득공제) 또는 사업자등록번호 (지출증빙)',
    testHint: '테스트 모드: 어떤 올바른 번호로도 테스트 현금영수증이 발급됩니다(발급번호가 T로 시작, 국세청에 보고되지 않음).',
  },
  status: {
    notFound: { title: '결제 페이지를 찾을 수 없습니다', message: '주소가 올바른지 확인해 주세요. 결제는 상점에서 다시 시작할 수 있습니다.' },
    already: { title: '이미 결제가 완료되었습니다', message: '이 결제 페이지의 결제는 이미 완료되었습니다. 다시 결제되지 않습니다.' },
    backToStore: '상점으로 돌아가기',
    processing: { title: '결제를 처리하고 있습니다', message: '잠시만 기다려 주세요. 이 화면은 자동으로 새로 고쳐집니다.' },
    expired: { title: '결제 시간이 만료되었습니다', message: '결제 페이지는 만든 뒤 30분 동안 사용할 수 있습니다. 상점에서 결제를 다시 시작해 주세요.' },
    unavailable: { title: '지금은 결제할 수 없습니다', message: '상점의 결제 설정이 완료되지 않았습니다. 잠시 후 다시 시도해 주세요.' },
    paid: { title: '결제가 완료되었습니다', message: '주문이 접수되었습니다.', confirmed: '결제사에서 결제가 확인되어 주문이 완료되었습니다.' },
    soldOut: { title: '품절되었습니다', message: '상품의 재고가 모두 소진되었습니다. 결제는 이루어지지 않았습니다.' },
    discontinued: { title: '판매가 중단된 상품입니다', message: '판매자가 이 상품의 판매를 중단했습니다. 결제는 이루어지지 않았습니다.' },
    checking: {
      title: '결제 결과를 확인하고 있습니다',
      message: (sec: number) =>
        `결제사로부터 결과를 받지 못해 확인하고 있습니다. 보통 1~2분 안에 끝나며, 길어지면 몇 분 더 걸릴 수 있습니다. 이 화면은 ${sec}초마다 저절로 새로 고쳐집니다. ` +
        '결제가 확인되면 주문이 완료되고, 확인되지 않으면 청구되지 않습니다. 중복 결제를 막기 위해 확인이 끝날 때까지 다시 결제할 수 없습니다.',
      startedAt: '확인을 시작한 시각: ',
      leave: '확인을 기다리지 않고 상점으로 돌아가기',
    },
    failed: { title: '일시적인 오류가 발생했습니다', message: '잠시 후 다시 시도해 주세요. 결제가 진행 중이었다면 이 페이지를 새로 고쳐 결과를 확인할 수 있습니다.' },
    badRequest: { title: '요청을 처리할 수 없습니다', message: '입력한 내용을 확인한 뒤 다시 시도해 주세요.' },
    tooMany: (minutes: number) => ({ title: '결제 시도가 너무 많습니다', message: `보안을 위해 결제 시도를 잠시 제한했습니다. ${minutes}분 뒤에 다시 시도해 주세요.` }),
    notApproved: { title: '결제가 승인되지 않았습니다', message: '결제사에서 이 결제가 승인되지 않은 것으로 확인되어 청구되지 않았습니다. 다른 카드나 다른 결제 수단으로 다시 결제할 수 있습니다.', again: '다시 결제하기' },
  },
  receipt: {
    orderNo: '주문 번호',
    product: '상품',
    coupon: (code: string) => `쿠폰 할인 (${code})`,
    method: '결제 수단',
    bank: '입금 은행',
    account: '계좌번호',
    holder: '예금주',
    due: '입금 기한',
    paidAt: '결제 일시',
    total: '결제 금액',
    open: '영수증 페이지 열기 (환불 요청)',
    cashReceipt: '현금영수증',
    cashStatus: { requested: '입금 확인 후 발급', issued: '발급됨', partially_canceled: '환불 금액만큼 부분 취소됨', canceled: '취소됨 (전액 환불)' } as Record<string, string>,
    cashSelfIssued: '국세청 자진발급번호 010-000-1234',
    cashNo: '승인번호',
    cashView: '현금영수증 보기',
  },
  va: {
    title: '가상계좌 발급 안내',
    heading: '가상계좌가 발급되었습니다',
    introBefore: '아래 계좌로 ',
    introStrong: (amount: number) => `입금 기한까지 ${won(amount)}을 정확히`,
    introAfter: ' 입금하면 결제가 완료됩니다. 아직 결제된 것이 아니며, 입금이 확인되면 주문이 완료되고 메일로 알려 드립니다.',
    bank: '은행',
    account: '계좌번호',
    copy: '복사',
    copyLabel: '계좌번호 복사',
    holder: '예금주',
    amount: '입금할 금액',
    due: '입금 기한',
    deadline: (d: Date) => `${kst(d)} (한국 시간)`,
    notes: (email: string) => [
      '금액이 다르면 입금되지 않습니다. 여러 번에 나누어 입금할 수 없습니다.',
      '입금 기한이 지나면 계좌가 닫히고 주문은 취소됩니다(결제되지 않습니다).',
      `계좌와 기한은 ${email}(으)로 보낸 메일과 영수증 페이지에서도 다시 볼 수 있습니다.`,
    ],
    onward: (store: SafeHtml) => html`확인했습니다. ${store}(으)로 돌아가기`,
    receipt: '영수증 페이지 열기',
  },
  toss: {
    noscript: '토스페이먼츠 창을 열려면 브라우저의 자바스크립트를 켜 주세요.',
    heading: '결제창을 여는 중입니다',
    text: '토스페이먼츠 결제창에서 결제를 마쳐 주세요.',
    button: '결제창 열기',
    openFailed: '결제창을 열지 못했습니다.',
    loadFailed: '결제창을 불러오지 못했습니다. 잠시 후 다시 시도해 주세요.',
    edit: '결제 정보 수정하기',
    billingTitle: (product: string) => `${product} 정기결제`,
    billingHeading: '결제 카드를 등록해 주세요',
    billingTrial: (days: number) => `정기결제에 사용할 카드를 토스페이먼츠 창에서 등록하면 ${days}일 무료 체험이 시작됩니다. 지금은 결제되지 않고, 체험이 끝나는 날부터 같은 카드로 자동 결제됩니다.`,
    billingText: '정기결제에 사용할 카드를 토스페이먼츠 창에서 등록하면 첫 결제 금액이 바로 결제되고, 이후 결제일마다 같은 카드로 자동 결제됩니다.',
    billingButton: '카드 등록 창 열기',
    billingOpenFailed: '카드 등록 창을 열지 못했습니다.',
    billingLoadFailed: '카드 등록 창을 불러오지 못했습니다. 잠시 후 다시 시도해 주세요.',
  },
  decline: (method: string, gatewayMessage: string) => {
    const who = method === 'card' ? '카드사가' : `${KO.methodLabel(method as PaymentMethod)}에서`;
    const reason = gatewayMessage.replace(/[.。]\s*$/, '');
    const detail = reason && !/거절/.test(reason) ? ` (${reason})` : '';
    return `${who} 결제를 거절했습니다${detail}. 결제되지 않았으니 다른 카드나 다른 결제 수단으로 다시 시도해 주세요.`;
  },
  /** A message of the server's (validation, refusals: Korean, from the catalog) in the page's language. */
  message: (ko: string) => ko,
};

export type PayCopy = typeof KO;

const EN: PayCopy = {
  lang: 'en',
  money: enWon,
  time: enTime,
  clock: enTimeOnly,
  date: enDay,
  testMode: 'Test mode',
  interval: { monthly: 'Monthly subscription · charged every month', yearly: 'Yearly subscription · charged every year' },
  summary: {
    aria: 'Order summary',
    price: 'Price',
    trial: 'Free trial',
    trialDays: (n) => `${n} day${n === 1 ? '' : 's'} (nothing charged during the trial)`,
    coupon: 'Coupon',
    total: 'Total',
  },
  title: (product) => `Pay for ${product}`,
  heading: 'Checkout',
  expiryBefore: 'This payment page can be used until ',
  expiryAfter: '',
  name: 'Name',
  email: 'E-mail',
  phone: 'Mobile phone number',
  lockedEmail: 'The seller set this e-mail address. The order and subscription are registered to it.',
  couponCode: 'Coupon code',
  apply: 'Apply',
  couponApplied: (discount) => `Coupon applied: ${enWon(discount)} off.`,
  installment: 'Installments',
  lumpSum: 'Single payment',
  months: (m) => `${m} months`,
  installmentHint: `Available for card payments of ${enWon(INSTALLMENT_MIN_AMOUNT)} or more. Whether installments carry interest is up to the card company.`,
  method: 'Payment method',
  methodLabel: (m) => METHOD_EN[m]?.label ?? m,
  payText: (m, amount) => {
    const x = METHOD_EN[m as PaymentMethod];
    return x ? `Pay ${enWon(amount)} ${x.payWith}` : `Pay ${enWon(amount)}`;
  },
  trialButton: 'Register a card and start the free trial',
  cardNumber: 'Card number',
  test: {
    intro: 'Test mode: no real payment is made. Test cards:',
    success: 'approved',
    declined: 'declined',
    insufficient: 'insufficient funds',
    unknown: 'result delayed',
    refundFails: 'approved, then the refund fails',
    refundTimesOut: 'approved, then the refund result is delayed (checked automatically)',
    renewalDeclined: 'first payment approved, later recurring charges (renewals, plan-change differences) declined',
    outro: 'Wallets and bank transfer go through an approval screen. A virtual account can be “deposited” from the receipt page once issued.',
  },
  agreements: {
    legend: 'Agreements',
    all: 'Agree to all (all required items)',
    required: '[Required]',
    show: 'Read',
    note: 'The agreement below is the Korean text that applies (Korean law); an English summary follows it.',
  },
  refundTerms: { heading: 'Refunds and withdrawal' },
  cancel: 'Cancel and go back',
  approval: {
    issue: 'issue',
    approve: 'approve payment',
    testSuffix: ' (test)',
    transfer: 'Test mode’s bank-transfer approval screen (in place of the bank’s app). No money is withdrawn.',
    virtualAccount: 'Test mode’s virtual-account screen. Once issued, the “Deposit” button on the receipt page simulates the deposit.',
    wallet: 'Test mode’s wallet approval screen. No real payment is made.',
    issueButton: (amount) => `Issue a virtual account to deposit ${enWon(amount)}`,
    approveButton: (name, amount) => `Approve ${enWon(amount)} with ${name}`,
    cancel: 'Cancel',
  },
  recurring: {
    heading: 'Recurring payment',
    trialHeading: 'Recurring payment after the free trial',
    today: 'Charged today',
    todayTrial: '₩0 (free trial, card registration only)',
    trialEnd: 'Trial ends',
    firstCharge: 'First charge',
    nextCharge: 'Next charge',
    amount: 'Recurring amount',
    cycle: 'Billing cycle',
    priceNow: 'Price now',
    priceFrom: (day) => `From the charge of ${day}`,
    cycleWord: { monthly: 'monthly', yearly: 'yearly' },
    cycleName: { monthly: 'Every month', yearly: 'Every year' },
    change: (up) => `Price ${up ? 'increase' : 'decrease'} scheduled:`,
    changeText: (day, from, to) => ` the seller is changing this plan’s price from ${from} to ${to} from the charge of ${day}.`,
    changeFirst: (day, amount) => ` Your first recurring charge (${day}) already takes ${enWon(amount)}.`,
    cancelHint: 'You can cancel at any time from the subscription management link you receive after paying.',
    cancelTrial: 'Cancel before the trial ends and nothing is charged.',
    cancelNext: 'Once canceled, nothing more is charged from the next charge date.',
    consentEn: (text) => consentInEnglish(text),
  },
  cash: {
    legend: 'Cash receipt (bank transfer and virtual account)',
    mandatory: html`This store must issue cash receipts: a bank payment of ${enWon(CASH_RECEIPT_MANDATORY_MIN_AMOUNT)} or more gets one issued to the National Tax Service’s self-issue number (010-000-1234) even if you choose “No receipt”. To have it in your own name, choose income deduction (phone number) or expense proof (business registration number) and enter the number.`,
    none: 'No receipt',
    noneMandatory: 'No receipt (self-issued)',
    income: 'Income deduction (personal)',
    expense: 'Expense proof (business)',
    number: 'Phone or card number (income deduction) or business registration number (expense proof)',
    testHint: 'Test mode: any valid number gets a test cash receipt (its number starts with T; nothing is reported to the tax office).',
  },
  status: {
    notFound: { title: 'Payment page not found', message: 'Please check the address. You can start the payment again from the store.' },
    already: { title: 'Already paid', message: 'The payment of this page has already been made. You will not be charged again.' },
    backToStore: 'Back to the store',
    processing: { title: 'Processing your payment', message: 'Please wait a moment. This page refreshes by itself.' },
    expired: { title: 'This payment page has expired', message: 'A payment page can be used for 30 minutes after it is created. Please start the payment again from the store.' },
    unavailable: { title: 'Payment is not available right now', message: 'The store has not finished setting up payments. Please try again later.' },
    paid: { title: 'Payment complete', message: 'Your order has been received.', confirmed: 'The payment company confirmed the payment and your order is complete.' },
    soldOut: { title: 'Sold out', message: 'This product is out of stock. You have not been charged.' },
    discontinued: { title: 'No longer on sale', message: 'The seller has stopped selling this product. You have not been charged.' },
    checking: {
      title: 'Checking the payment result',
      message: (sec) =>
        `We did not receive the payment company’s answer and are checking with it. This usually takes a minute or two, sometimes a few more. This page refreshes every ${sec} seconds. ` +
        'If the payment is confirmed your order is completed; if not, nothing is charged. To prevent a double payment you cannot pay again until the check is done.',
      startedAt: 'Check started at: ',
      leave: 'Go back to the store without waiting',
    },
    failed: { title: 'Something went wrong', message: 'Please try again shortly. If a payment was in progress, reload this page to see its result.' },
    badRequest: { title: 'The request could not be handled', message: 'Please check what you entered and try again.' },
    tooMany: (minutes) => ({ title: 'Too many payment attempts', message: `For security, payment attempts are paused for now. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` }),
    notApproved: { title: 'Payment not approved', message: 'The payment company confirmed this payment was not approved, so nothing was charged. You can pay again with another card or method.', again: 'Pay again' },
  },
  receipt: {
    orderNo: 'Order number',
    product: 'Product',
    coupon: (code) => `Coupon (${code})`,
    method: 'Payment method',
    bank: 'Bank',
    account: 'Account number',
    holder: 'Account holder',
    due: 'Deposit by',
    paidAt: 'Paid at',
    total: 'Amount paid',
    open: 'Open the receipt page (refund requests)',
    cashReceipt: 'Cash receipt',
    cashStatus: { requested: 'Issued once the deposit arrives', issued: 'Issued', partially_canceled: 'Partly canceled by the amount refunded', canceled: 'Canceled (refunded in full)' },
    cashSelfIssued: 'National Tax Service self-issue number 010-000-1234',
    cashNo: 'Approval number',
    cashView: 'View the cash receipt',
  },
  va: {
    title: 'Your virtual account',
    heading: 'A virtual account has been issued',
    introBefore: 'Deposit ',
    introStrong: (amount) => `exactly ${enWon(amount)} by the deadline`,
    introAfter: ' into the account below to complete the payment. You have not paid yet; once the deposit is confirmed the order is completed and we e-mail you.',
    bank: 'Bank',
    account: 'Account number',
    copy: 'Copy',
    copyLabel: 'Copy the account number',
    holder: 'Account holder',
    amount: 'Amount to deposit',
    due: 'Deposit by',
    deadline: (d) => `${enTime(d)} (Korea time)`,
    notes: (email) => [
      'A different amount is not accepted, and the amount cannot be split into several deposits.',
      'After the deadline the account closes and the order is canceled (nothing is charged).',
      `The account and deadline are also in the e-mail sent to ${email} and on the receipt page.`,
    ],
    onward: (store) => html`Done. Back to ${store}`,
    receipt: 'Open the receipt page',
  },
  toss: {
    noscript: 'Please turn on JavaScript in your browser to open the Toss Payments window.',
    heading: 'Opening the payment window',
    text: 'Please complete the payment in the Toss Payments window.',
    button: 'Open the payment window',
    openFailed: 'The payment window could not be opened.',
    loadFailed: 'The payment window could not be loaded. Please try again shortly.',
    edit: 'Edit the payment details',
    billingTitle: (product) => `Subscribe to ${product}`,
    billingHeading: 'Register your card',
    billingTrial: (days) => `Register the card for the recurring payment in the Toss Payments window and your ${days}-day free trial starts. Nothing is charged now; from the day the trial ends the same card is charged automatically.`,
    billingText: 'Register the card for the recurring payment in the Toss Payments window: the first payment is charged at once, then the same card on each charge date.',
    billingButton: 'Open the card registration window',
    billingOpenFailed: 'The card registration window could not be opened.',
    billingLoadFailed: 'The card registration window could not be loaded. Please try again shortly.',
  },
  decline: (method, gatewayMessage) => {
    const who = method === 'card' ? 'The card company' : METHOD_EN[method as PaymentMethod]?.label ?? method;
    const reason = EN_MESSAGES()[gatewayMessage.trim().replace(/[.。]\s*$/, '')];
    return `${who} declined the payment${reason ? ` (${reason.replace(/\.$/, '')})` : ''}. You have not been charged; please try again with another card or method.`;
  },
  message: (ko) => EN_MESSAGES()[ko] ?? ko,
};

/** The server's Korean messages a buyer can meet on the payment page, in English (an unknown one is shown as it is). */
let enMessages: Record<string, string> | null = null;
function EN_MESSAGES(): Record<string, string> {
  if (enMessages) return enMessages;
  const c = MESSAGES.checkout;
  const k = MESSAGES.coupons;
  enMessages = {
    '이름을 입력해 주세요.': 'Please enter your name.',
    '이름은 50자 이하로 입력해 주세요.': 'Please keep your name to 50 characters.',
    [bidiMessage('이름')]: 'Your name contains invisible text-direction characters; please type it again.',
    '이메일을 입력해 주세요.': 'Please enter your e-mail address.',
    '올바른 이메일 주소를 입력해 주세요.': 'Please enter a valid e-mail address.',
    '휴대폰 번호를 입력해 주세요.': 'Please enter your mobile phone number.',
    '올바른 휴대폰 번호를 입력해 주세요. (예: 010-1234-5678)': 'Please enter a valid Korean phone number (e.g. 010-1234-5678).',
    '결제 수단을 선택해 주세요.': 'Please choose a payment method.',
    '카드 번호를 입력해 주세요.': 'Please enter the card number.',
    '카드 번호가 올바르지 않습니다.': 'The card number is not valid.',
    '간편결제 승인이 취소되었습니다.': 'The wallet approval was canceled.',
    '쿠폰 코드가 너무 깁니다.': 'The coupon code is too long.',
    '할부 개월 수를 다시 선택해 주세요.': 'Please choose the installment months again.',
    [`할부는 ${won(INSTALLMENT_MIN_AMOUNT)} 이상 카드 결제에서만 선택할 수 있습니다. 일시불로 다시 선택해 주세요.`]: `Installments are only for card payments of ${enWon(INSTALLMENT_MIN_AMOUNT)} or more. Please choose a single payment.`,
    '결제를 진행하려면 필수 약관에 모두 동의해 주세요.': 'Please agree to all the required agreements to pay.',
    [c.subscriptionNeedsCard]: 'A subscription is charged automatically to a registered card on each charge date, so it cannot be paid by bank transfer or virtual account. Please choose a card or a wallet.',
    [c.recurringConsentRequired]: 'Please agree to the recurring payment: check the amount, cycle and next charge date, then tick the recurring-payment consent.',
    [c.customerEmailLocked]: 'The seller set the e-mail address of this payment; it cannot be changed.',
    [c.trialAlreadyUsed]: 'You have already used this product’s free trial. A free trial is offered once per buyer (e-mail, phone, card); nothing was charged.',
    [c.trialNeedsCard]: 'A free trial needs a card registered for the charge at its end. Please choose a credit/debit card.',
    [c.trialNoCoupon]: 'A coupon cannot be used with a free trial: nothing is charged during the trial.',
    [c.cashReceiptIncomeRequired]: 'Please enter the phone or card number for the cash receipt (income deduction).',
    [c.cashReceiptIncomeInvalid]: 'An income-deduction cash receipt takes a phone number (e.g. 010-1234-5678) or a card number (13–19 digits).',
    [c.cashReceiptExpenseRequired]: 'Please enter the business registration number for the cash receipt (expense proof).',
    [c.cashReceiptExpenseInvalid]: 'Please enter the 10-digit business registration number (e.g. 123-45-67890).',
    [c.cashReceiptTypeInvalid]: 'Please choose the cash receipt type again.',
    [c.billingKeyUnknown]: 'We could not confirm the card registration. Please try again shortly.',
    [c.amountChanged]: 'The amount has changed. Please check it and pay again.',
    [c.attemptStale]: 'The payment status has changed. Please try again.',
    [c.paymentNotApproved]: 'The payment was not approved.',
    [k.unknownCode]: 'This coupon code does not exist.',
    [k.inactive]: 'This coupon cannot be used.',
    [k.notYetValid]: 'This coupon cannot be used yet.',
    [k.expired]: 'This coupon has expired.',
    [k.notForProduct]: 'This coupon cannot be used for this product.',
    [k.exhausted]: 'This coupon has been used up.',
    '잔액이 부족합니다': 'insufficient funds',
    '결제 정보를 찾을 수 없습니다. 다시 결제해 주세요.': 'The payment details were not found. Please pay again.',
    '결제 정보가 주문과 일치하지 않아 결제를 승인하지 않았습니다. 다시 결제해 주세요.': 'The payment details did not match the order, so the payment was not approved. Please pay again.',
    '카드 등록 정보가 주문과 일치하지 않아 결제하지 않았습니다. 다시 시도해 주세요.': 'The card registration did not match the order, so nothing was charged. Please try again.',
    '결제를 취소했습니다.': 'You canceled the payment.',
    '결제가 완료되지 않았습니다. 다시 시도해 주세요.': 'The payment was not completed. Please try again.',
  };
  for (let m = 1; m <= 60; m++) enMessages[c.couponTriesLimited(m)] = `Too many coupon tries. Please try again in ${m} minute${m === 1 ? '' : 's'}; you can still pay without a coupon.`;
  return enMessages;
}

/** The recurring-charge consent sentence (Korean, kept as the consent) rendered in English for the reader. */
function consentInEnglish(ko: string): string {
  return ko.startsWith('무료 체험')
    ? 'English rendering: nothing is charged during the free trial; from the trial’s end the amount above is charged automatically to the registered card each cycle. Cancel before the trial ends on the subscription management page and nothing is charged.'
    : 'English rendering: I agree that the amount above is charged automatically to the registered card each cycle until I cancel, including any price change stated above. I can cancel at any time on the subscription management page.';
}

export const PAY_COPY: Record<Lang, PayCopy> = { ko: KO, en: EN };
export const payCopy = (lang: Lang | undefined): PayCopy => PAY_COPY[lang ?? 'ko'];
