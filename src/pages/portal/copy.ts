/**
 * The buyer portal's words in Korean (the default) and English (src/pages/lang.ts chooses); the same shape in both
 * (compiler-checked). The subscription's recurring-charge consent is shown as it was agreed (Korean, `lang="ko"`) with
 * its English rendering beside it.
 */
import { html, won, type SafeHtml } from '../html';
import { enTime, enWon, koDay, type Lang } from '../lang';
import { kst } from '../html';
import type { PaymentMethod } from '../../payments/method';
import { payCopy } from '../pay/copy';

const EN_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

type Interval = 'monthly' | 'yearly';
const koPer = (iv: Interval, n: number) => `${iv === 'monthly' ? '월' : '연'} ${won(n)}`;
const enPer = (iv: Interval, n: number) => `${enWon(n)}/${iv === 'monthly' ? 'month' : 'year'}`;
const koD = (iso: string) => koDay(new Date(iso));
/** `December 1, 2026` (KST), as the portal's English dates read elsewhere on the card. */
const enD = (iso: string) => {
  const k = new Date(new Date(iso).getTime() + 9 * 3_600_000);
  return `${EN_MONTHS[k.getUTCMonth()]} ${k.getUTCDate()}, ${k.getUTCFullYear()}`;
};

const KO = {
  lang: 'ko' as Lang,
  money: (n: number) => won(n),
  date: (iso: string) => new Intl.DateTimeFormat('ko-KR', { timeZone: 'Asia/Seoul', year: 'numeric', month: 'long', day: 'numeric' }).format(new Date(iso)),
  interval: { monthly: '월간', yearly: '연간' },
  title: '구독 관리',
  testMode: '테스트 모드',
  status: { active: '이용 중', past_due: '결제 실패', ended: '종료됨' },
  subscriptionAria: (product: string) => `구독 ${product}`,
  endedOn: '종료일',
  period: '현재 이용 기간',
  cancelsOn: '해지 예정일',
  nextCharge: '다음 결제일',
  card: '결제 카드',
  cardWord: '카드',
  trial: (end: string, amount: number, canceling: boolean) => `무료 체험 중입니다. ${end}에 체험이 끝나면 ${won(amount)}이 처음 결제됩니다. ${canceling ? '해지가 예약되어 있어 결제되지 않습니다.' : '그 전에 해지하면 결제되지 않습니다.'}`,
  consentSummary: (day: string) => `정기결제 동의 내용 (${day} 동의)`,
  consentEn: (_ko: string) => '',
  pastDue: '정기 결제에 실패했습니다. 카드를 변경하면 바로 다시 결제합니다.',
  orders: '결제 내역',
  methodLabel: (m: PaymentMethod) => payCopy('ko').methodLabel(m),
  refunded: '환불됨',
  partial: (n: number) => `부분 환불 ${won(n)}`,
  paid: '결제 완료',
  receipt: '영수증 · 환불 요청',
  backTo: (store: SafeHtml) => html`${store}(으)로 돌아가기`,
  toPortal: '구독 관리로 돌아가기',
  refundParts: '환불 내역',
  refused: { title: '요청을 처리할 수 없습니다', message: '구독 관리 페이지를 새로 열어 다시 시도해 주세요.' },
  limited: { title: '요청이 너무 많습니다', message: '잠시 후 다시 시도해 주세요.' },
  gone: { title: '링크가 만료되었습니다', message: '구독 관리 링크는 잠시 동안만 열 수 있습니다. 이용 중인 서비스에서 구독 관리를 다시 열어 주세요.' },
  reason: {
    initial_full: '청약철회 기간 안의 미사용 결제라 전액 환불됩니다.',
    renewal_full: '갱신 결제의 청약철회 기간 안이고 사용하지 않아 전액 환불됩니다.',
    statutory_full: '청약철회 기간 안이라 전액 환불됩니다.',
    prorated: '이용한 기간만큼 차감한 금액이 환불됩니다.',
    past_due: '현재 기간은 결제되지 않아 환불할 금액이 없습니다.',
    nothing_refundable: '환불할 금액이 없습니다.',
  } as Record<string, string>,
  /** A notice or error of the portal's actions (Korean, passed back in the address) in the page's language. */
  notice: (ko: string) => ko,
  cancel: {
    scheduled: (day: string) => `${day}에 해지될 예정입니다. 그때까지 계속 이용할 수 있습니다.`,
    resume: '해지 예약 취소',
    resumeText: '구독을 계속 유지하고 다음 결제일에 갱신합니다.',
    ways: '해지 방법',
    periodEnd: '기간 종료 시 해지',
    noRefund: '환불 없음',
    periodEndText: (day: string) => `${day}까지 이용하고 그 뒤로는 결제되지 않습니다.`,
    now: '지금 해지하고 환불',
    refundDue: (n: number) => `환불 예정 ${won(n)}`,
    used: (used: number, total: number, deduction: number) => `이용 ${used}/${total}일 차감 ${won(deduction)}`,
    clawback: (n: number) => ` · 할인 회수 ${won(n)}`,
    penalty: (n: number) => ` · 위약금 ${won(n)}`,
    approval: '판매자 승인 후 환불됩니다 (환불 요청으로 접수).',
    nowButton: '지금 해지하고 환불받기',
  },
  cardForm: {
    summary: '결제 카드 변경',
    number: '카드 번호',
    testHint: '테스트 모드: 4242 4242 4242 4242 (성공), 4000 0000 0000 0341 (이후 결제 실패)',
    windowHint: '토스페이먼츠 창에서 새 카드를 등록합니다. 카드 정보는 토스페이먼츠에만 입력되며 이 사이트에 저장되지 않습니다.',
    change: '카드 변경',
    register: '새 카드 등록하기',
  },
  plan: {
    summary: '요금제 변경',
    pending: (day: string, plan: SafeHtml, interval: string, amount: number): SafeHtml => html`${day}부터 ${plan} · ${interval}(${won(amount)})으로 바뀝니다.`,
    legend: '새 요금제',
    hint: '같은 결제 주기의 더 비싼 요금제는 지금 바로 바뀌고 남은 기간의 차액이 결제됩니다. 그 밖의 변경은 다음 결제일부터 적용됩니다.',
    submit: '요금제 변경',
  },
  /** The price-change, plan-offer and trial-consent boxes (consent-views.ts). */
  per: koPer,
  priceChange: {
    decreaseTitle: '가격 인하 안내',
    decreaseText: (decideBy: string) => `${koD(decideBy)} 결제부터 낮아진 가격으로 결제됩니다. 따로 하실 일은 없습니다.`,
    title: '가격 변경 안내',
    acceptedText: (acceptedAt: string, decideBy: string) => `${koD(acceptedAt)}에 새 가격에 동의하셨습니다. ${koD(decideBy)} 결제부터 새 가격으로 갱신됩니다.`,
    acceptedHint: '원하지 않으시면 그 전에 아래에서 해지할 수 있습니다.',
    state: (declined: boolean): string => (declined ? '거절하셨습니다' : '동의가 필요합니다'),
    effect: (effectiveAt: string, decideBy: string) => `${koD(effectiveAt)}부터 이 요금제의 가격이 오릅니다. 동의하시면 ${koD(decideBy)} 결제부터 새 가격으로 갱신됩니다.`,
    outcome: (declinedAt: string | null, decideBy: string) => `${declinedAt ? `${koD(declinedAt)}에 거절하셨습니다. ` : '거절하거나 동의하지 않으시면 '}구독은 ${koD(decideBy)}에 종료되고 새 가격은 결제되지 않습니다.`,
    until: '그때까지는 지금 가격으로 이용하실 수 있습니다.',
    accept: (price: string) => `새 가격(${price})에 동의`,
    decline: (decideBy: string) => `거절 (${koD(decideBy)}에 구독 종료)`,
  },
  offer: {
    title: '요금제 변경 제안 · 동의가 필요합니다',
    intro: '판매자가 요금제 변경을 제안했습니다.',
    now: (difference: number, periodEnd: string, price: string): SafeHtml => html`동의하시면 바로 바뀌고${difference > 0 ? html` 남은 기간의 차액 약 <strong>${won(difference)}</strong>이 지금 결제되며` : ''}, ${koD(periodEnd)}부터 ${price}이 결제됩니다.`,
    next: (periodEnd: string, price: string) => `동의하시면 ${koD(periodEnd)} 결제부터 ${price}이 결제됩니다.`,
    deadline: (deadline: string) => `${koD(deadline)}까지 동의하지 않으시면 아무것도 바뀌지 않고`,
    unchanged: '지금 요금제와 가격이 그대로 유지됩니다.',
    accept: '변경에 동의',
    decline: '거절',
  },
  trialConsent: {
    givenTitle: '유료 전환 동의 완료',
    given: (consentedAt: string, trialEndsAt: string, amount: number) => `${koD(consentedAt)}에 동의하셨습니다. ${koD(trialEndsAt)}부터 ${won(amount)}이 결제됩니다.`,
    laterTitle: '유료 전환 안내',
    later: (opensAt: string, trialEndsAt: string) => `체험 기간이 30일보다 길어, ${koD(opensAt)}부터 체험이 끝나는 ${koD(trialEndsAt)} 전까지 유료 전환 동의를 다시 받습니다. 동의하지 않으면 결제 없이 체험이 끝나며 구독이 종료됩니다.`,
    requiredTitle: '유료 전환 동의가 필요합니다',
    /** The consent as recorded (Korean); English adds its rendering beside it. */
    textEn: (_trialEndsAt: string, _amount: number, _iv: Interval) => '',
    warn: (trialEndsAt: string) => `${koD(trialEndsAt)} 전까지 동의하지 않으시면 결제되지 않고 체험 종료와 함께 구독이 종료됩니다.`,
    button: '유료 전환에 동의',
  },
  /** The pages after a cancel in the portal (cancel.ts). */
  cancelDone: {
    pendingTitle: '해지 요청이 접수되었습니다',
    pending: (periodEnd: string) => `판매자가 환불 요청을 결정할 때까지 구독은 그대로 이용할 수 있고, 더는 결제되지 않습니다. 승인되면(기한까지 결정하지 않아 자동 승인되어도) 그때 구독이 종료되고, 거절되면 ${koD(periodEnd)}까지 이용한 뒤 종료됩니다. 접수 확인과 결정은 메일로 알려 드립니다.`,
    scheduledTitle: '해지가 예약되었습니다',
    scheduled: (periodEnd: string) => `${new Date(periodEnd).toLocaleDateString('ko-KR', { timeZone: 'Asia/Seoul' })}까지 이용할 수 있고, 그 뒤로는 결제되지 않습니다.`,
    canceledTitle: '구독이 해지되었습니다',
    refunded: (n: number) => `구독이 해지되었고 ${won(n)}이 환불되었습니다. 카드사 사정에 따라 환불 반영까지 영업일 기준 3~5일이 걸릴 수 있습니다.`,
    requested: (n: number) => `구독이 해지되었습니다. 환불 요청(${won(n)})이 접수되어 판매자 확인 후 환불됩니다.`,
    canceled: '구독이 해지되었습니다.',
    nowLabel: '즉시 환불',
    nowRefunded: '지금 환불되었습니다.',
    nowNothing: '지금 바로 환불되는 금액은 없습니다. 아래 요청이 승인되는 대로 결제한 카드로 환불됩니다.',
    statutoryLabel: '청약철회 환불 (자동 승인)',
    statutory: (autoApproveAt: string | null) => `법정 청약철회 기간 안의 결제라 판매자가 거절할 수 없고, ${autoApproveAt ? `${koD(autoApproveAt)} 정오(12시)까지` : '영업일 3일 안에'} 자동으로 승인되어 환불됩니다.`,
    sellerLabel: '판매자 확인 후 환불',
    seller: (autoApproveAt: string | null, periodEnd: string) => `판매자가 ${autoApproveAt ? `${kst(new Date(autoApproveAt))}까지` : `${koD(periodEnd)}까지`} 결정합니다. 승인되거나 그때까지 결정하지 않으면 자동으로 승인되어 결제한 카드로 환불되고 구독이 종료됩니다. 거절되면 환불 없이 ${koD(periodEnd)}까지 이용할 수 있습니다.`,
  },
  /** The page that opens Toss's card-registration window (card.ts). */
  cardLaunch: {
    title: '결제 카드 변경',
    heading: '새 결제 카드를 등록해 주세요',
    text: (product: SafeHtml) => html`${product} 구독의 다음 결제부터 토스페이먼츠 창에서 등록한 카드로 결제됩니다. 결제가 밀려 있다면 등록 직후 바로 다시 결제합니다.`,
    /** The same, for a gateway whose window is the PG's own (PortOne). */
    textAny: (product: SafeHtml) => html`${product} 구독의 다음 결제부터 카드 등록 창에서 등록한 카드로 결제됩니다. 결제가 밀려 있다면 등록 직후 바로 다시 결제합니다.`,
    button: '카드 등록 창 열기',
    openFailed: '카드 등록 창을 열지 못했습니다.',
    loadFailed: '카드 등록 창을 불러오지 못했습니다. 잠시 후 다시 시도해 주세요.',
  },
  /** The portal's 400 page (a malformed request). */
  badRequest: { title: '요청을 처리할 수 없습니다', message: '잠시 후 다시 시도해 주세요.' },
};

export type PortalCopy = typeof KO;

const EN: PortalCopy = {
  lang: 'en',
  money: enWon,
  date: (iso) => {
    const k = new Date(new Date(iso).getTime() + 9 * 3_600_000);
    return `${EN_MONTHS[k.getUTCMonth()]} ${k.getUTCDate()}, ${k.getUTCFullYear()}`;
  },
  interval: { monthly: 'Monthly', yearly: 'Yearly' },
  title: 'Manage subscription',
  testMode: 'Test mode',
  status: { active: 'Active', past_due: 'Payment failed', ended: 'Ended' },
  subscriptionAria: (product) => `Subscription ${product}`,
  endedOn: 'Ended on',
  period: 'Current period',
  cancelsOn: 'Cancels on',
  nextCharge: 'Next charge',
  card: 'Card',
  cardWord: 'Card',
  trial: (end, amount, canceling) => `You are on a free trial. When it ends on ${end}, ${enWon(amount)} is charged for the first time. ${canceling ? 'A cancellation is scheduled, so nothing will be charged.' : 'Cancel before then and nothing is charged.'}`,
  consentSummary: (day) => `Your recurring-payment consent (given ${day})`,
  consentEn: () => 'As agreed, in Korean above. In English: the amount is charged automatically to your registered card each cycle until you cancel; you can cancel at any time on this page.',
  pastDue: 'A recurring payment failed. Change the card and it is charged again right away.',
  orders: 'Payments',
  methodLabel: (m) => payCopy('en').methodLabel(m),
  refunded: 'Refunded',
  partial: (n) => `Partly refunded ${enWon(n)}`,
  paid: 'Paid',
  receipt: 'Receipt · request a refund',
  backTo: (store) => html`Back to ${store}`,
  toPortal: 'Back to subscription management',
  refundParts: 'Refund',
  refused: { title: 'The request could not be handled', message: 'Please open subscription management again and retry.' },
  limited: { title: 'Too many requests', message: 'Please try again shortly.' },
  gone: { title: 'This link has expired', message: 'A subscription management link works only for a short while. Please open subscription management again from the service you use.' },
  reason: {
    initial_full: 'An unused payment within the withdrawal period: refunded in full.',
    renewal_full: 'Within the withdrawal period of the renewal and unused: refunded in full.',
    statutory_full: 'Within the withdrawal period: refunded in full.',
    prorated: 'Refunded less the time used.',
    past_due: 'The current period was not paid, so there is nothing to refund.',
    nothing_refundable: 'There is nothing to refund.',
  },
  notice: (ko) => NOTICES_EN[ko] ?? noticeWithValuesEn(ko) ?? ko,
  cancel: {
    scheduled: (day) => `Cancels on ${day}. You can keep using it until then.`,
    resume: 'Keep the subscription',
    resumeText: 'Undo the cancellation: the subscription renews on the next charge date.',
    ways: 'Ways to cancel',
    periodEnd: 'Cancel at period end',
    noRefund: 'No refund',
    periodEndText: (day) => `Use it until ${day}; nothing is charged after that.`,
    now: 'Cancel now with a refund',
    refundDue: (n) => `Refund ${enWon(n)}`,
    used: (used, total, deduction) => `Used ${used}/${total} days: ${enWon(deduction)} deducted`,
    clawback: (n) => ` · discount recovered ${enWon(n)}`,
    penalty: (n) => ` · penalty ${enWon(n)}`,
    approval: 'Refunded once the seller approves (filed as a refund request).',
    nowButton: 'Cancel now and get the refund',
  },
  cardForm: {
    summary: 'Change card',
    number: 'Card number',
    testHint: 'Test mode: 4242 4242 4242 4242 (succeeds), 4000 0000 0000 0341 (later charges fail)',
    windowHint: 'You register the new card in the Toss Payments window. Card details are entered only there and are not stored on this site.',
    change: 'Change card',
    register: 'Register a new card',
  },
  plan: {
    summary: 'Change plan',
    pending: (day, plan, interval, amount) => html`Changes to ${plan} · ${interval} (${enWon(amount)}) from ${day}.`,
    legend: 'New plan',
    hint: 'A more expensive plan with the same billing cycle applies at once and the difference for the rest of the period is charged. Any other change applies from the next charge date.',
    submit: 'Change plan',
  },
  per: enPer,
  priceChange: {
    decreaseTitle: 'Price decrease',
    decreaseText: (decideBy) => `From the charge on ${enD(decideBy)} the lower price is charged. Nothing for you to do.`,
    title: 'Price change',
    acceptedText: (acceptedAt, decideBy) => `You agreed to the new price on ${enD(acceptedAt)}. From the charge on ${enD(decideBy)} it renews at the new price.`,
    acceptedHint: 'If you no longer want it, you can cancel below before then.',
    state: (declined) => (declined ? 'You declined' : 'Your consent is needed'),
    effect: (effectiveAt, decideBy) => `The price of this plan goes up from ${enD(effectiveAt)}. If you agree, it renews at the new price from the charge on ${enD(decideBy)}.`,
    outcome: (declinedAt, decideBy) => `${declinedAt ? `You declined on ${enD(declinedAt)}. ` : 'If you decline or do not agree, '}the subscription ends on ${enD(decideBy)} and the new price is not charged.`,
    until: 'Until then you keep the current price.',
    accept: (price) => `Agree to the new price (${price})`,
    decline: (decideBy) => `Decline (the subscription ends on ${enD(decideBy)})`,
  },
  offer: {
    title: 'Plan change offer · your consent is needed',
    intro: 'The seller offers you a plan change.',
    now: (difference, periodEnd, price) => html`If you agree, it changes at once${difference > 0 ? html`, about <strong>${enWon(difference)}</strong> for the rest of the period is charged now` : ''}, and from ${enD(periodEnd)} ${price} is charged.`,
    next: (periodEnd, price) => `If you agree, ${price} is charged from the charge on ${enD(periodEnd)}.`,
    deadline: (deadline) => `If you do not agree by ${enD(deadline)}, nothing changes:`,
    unchanged: 'your plan and price stay as they are.',
    accept: 'Agree to the change',
    decline: 'Decline',
  },
  trialConsent: {
    givenTitle: 'Paid service agreed',
    given: (consentedAt, trialEndsAt, amount) => `You agreed on ${enD(consentedAt)}. From ${enD(trialEndsAt)}, ${enWon(amount)} is charged.`,
    laterTitle: 'About paid service after the trial',
    later: (opensAt, trialEndsAt) => `Your trial is longer than 30 days, so from ${enD(opensAt)} until it ends on ${enD(trialEndsAt)} we ask again for your consent to paid service. Without it the trial ends with no charge and the subscription ends.`,
    requiredTitle: 'Your consent to paid service is needed',
    textEn: (trialEndsAt, amount, iv) => `The consent as recorded, in Korean above. In English: I agree that from ${enD(trialEndsAt)}, when the free trial ends, ${enWon(amount)} is charged automatically to my registered card every ${iv === 'monthly' ? 'month' : 'year'}. If I cancel on the subscription management page before the trial ends, nothing is charged.`,
    warn: (trialEndsAt) => `If you do not agree before ${enD(trialEndsAt)}, nothing is charged and the subscription ends with the trial.`,
    button: 'Agree to paid service',
  },
  cancelDone: {
    pendingTitle: 'Your cancellation request is received',
    pending: (periodEnd) => `Until the seller decides on the refund request you can keep using the subscription, and nothing more is charged. If it is approved (also automatically, when the seller does not decide in time) the subscription ends then; if it is declined, you use it until ${enD(periodEnd)} and it ends. We email you the receipt of the request and the decision.`,
    scheduledTitle: 'Your cancellation is scheduled',
    scheduled: (periodEnd) => `You can use it until ${enD(periodEnd)}; nothing is charged after that.`,
    canceledTitle: 'Your subscription is canceled',
    refunded: (n) => `Your subscription is canceled and ${enWon(n)} is refunded. Depending on the card company it can take 3 to 5 business days to show.`,
    requested: (n) => `Your subscription is canceled. A refund request (${enWon(n)}) is filed and refunded once the seller confirms it.`,
    canceled: 'Your subscription is canceled.',
    nowLabel: 'Refunded now',
    nowRefunded: 'Refunded just now.',
    nowNothing: 'Nothing is refunded right away. The requests below are refunded to the card you paid with as soon as they are approved.',
    statutoryLabel: 'Withdrawal refund (approved automatically)',
    statutory: (autoApproveAt) => `A payment within the statutory withdrawal period: the seller cannot decline it, and it is approved and refunded automatically ${autoApproveAt ? `by noon on ${enD(autoApproveAt)} (Korea time)` : 'within 3 business days'}.`,
    sellerLabel: 'Refunded once the seller confirms',
    seller: (autoApproveAt, periodEnd) => `The seller decides by ${autoApproveAt ? enTime(new Date(autoApproveAt)) : enD(periodEnd)}. If approved, or not decided by then, it is approved automatically, refunded to the card you paid with, and the subscription ends. If declined, there is no refund and you can use it until ${enD(periodEnd)}.`,
  },
  cardLaunch: {
    title: 'Change card',
    heading: 'Register your new card',
    text: (product) => html`From the next charge of your ${product} subscription, the card you register in the Toss Payments window is charged. If a payment is overdue, it is charged again right after you register.`,
    textAny: (product) => html`From the next charge of your ${product} subscription, the card you register in the card registration window is charged. If a payment is overdue, it is charged again right after you register.`,
    button: 'Open the card registration window',
    openFailed: 'The card registration window could not be opened.',
    loadFailed: 'The card registration window could not be loaded. Please try again shortly.',
  },
  badRequest: { title: 'The request could not be handled', message: 'Please try again shortly.' },
};

/** The portal actions' fixed notices in English (those carrying an amount or a date are shown as the server wrote them). */
const NOTICES_EN: Record<string, string> = {
  '해지 예약을 취소했습니다. 구독이 계속 유지됩니다.': 'The cancellation is undone. Your subscription continues.',
  '요금제를 선택해 주세요.': 'Please choose a plan.',
  '다음 결제일부터 새 요금제가 적용됩니다.': 'The new plan applies from the next charge date.',
  '예약된 요금제 변경을 취소했습니다.': 'The scheduled plan change is canceled.',
  '요금제 변경에 동의했습니다. 다음 결제일부터 새 요금제가 적용됩니다.': 'You agreed to the plan change. The new plan applies from the next charge date.',
  '요금제 변경을 거절했습니다. 지금 요금제와 가격 그대로 유지됩니다.': 'You declined the plan change. Your plan and price stay as they are.',
  '체험 종료 후 유료 전환에 동의했습니다. 체험이 끝나면 정기결제가 시작됩니다.': 'You agreed to paid service after the trial. Recurring payments start when the trial ends.',
  '카드 등록 요청이 만료되었거나 이미 처리되었습니다. 카드 변경을 다시 시작해 주세요.': 'The card registration request has expired or was already handled. Please start the card change again.',
  '종료된 구독의 카드는 바꿀 수 없습니다.': 'The card of an ended subscription cannot be changed.',
  '지금은 카드를 변경할 수 없습니다. 판매자에게 문의해 주세요.': 'The card cannot be changed right now. Please contact the seller.',
  '카드 번호를 확인해 주세요.': 'Please check the card number.',
  '카드를 변경했지만 밀린 결제는 아직 완료되지 않았습니다.': 'The card is changed, but the overdue payment has not gone through yet.',
  '결제 카드를 변경했고 밀린 결제를 완료했습니다.': 'The card is changed and the overdue payment is complete.',
  '결제 카드를 변경했습니다.': 'The card is changed.',
  '카드 등록 정보가 구독과 일치하지 않아 카드를 바꾸지 않았습니다. 다시 시도해 주세요.': 'The card registration did not match the subscription, so the card was not changed. Please try again.',
  '카드 등록을 취소했습니다. 결제 카드는 바뀌지 않았습니다.': 'You canceled the card registration. Your card has not changed.',
  '카드를 등록하지 못했습니다. 카드 정보를 확인하거나 다른 카드로 다시 시도해 주세요.': 'The card could not be registered. Please check the card details or try another card.',
};

/** `9,900원` → `₩9,900`; `2027년 4월 27일` → `Apr 27, 2027` (the values the portal's actions put in their notices). */
const enAmount = (ko: string) => enWon(Number(ko.replace(/[^\d]/g, '')));
const enKoDate = (y: string, m: string, d: string) => enD(new Date(Date.UTC(Number(y), Number(m) - 1, Number(d), 3)).toISOString());
const DATE = '(\\d{4})년 (\\d{1,2})월 (\\d{1,2})일';
const PAID_DIFFERENCE = '(?: 남은 기간의 차액 ([\\d,]+원)을 결제했습니다\\.)?';

/** The portal actions' notices that carry an amount or a date (plans.ts), read back into English; null when not one of them. */
const NOTICE_PATTERNS: Array<[RegExp, (m: RegExpMatchArray) => string]> = [
  [new RegExp(`^요금제를 바로 변경했습니다\\.${PAID_DIFFERENCE}$`), (m) => `The plan is changed now.${m[1] ? ` ${enAmount(m[1])} for the rest of the period is charged.` : ''}`],
  [new RegExp(`^요금제 변경에 동의했습니다\\. 요금제가 바로 바뀌었습니다\\.${PAID_DIFFERENCE}$`), (m) => `You agreed to the plan change. The plan changed at once.${m[1] ? ` ${enAmount(m[1])} for the rest of the period is charged.` : ''}`],
  [new RegExp(`^새 가격에 동의했습니다\\. ${DATE} 결제부터 새 가격으로 갱신됩니다\\.$`), (m) => `You agreed to the new price. It renews at the new price from the charge on ${enKoDate(m[1], m[2], m[3])}.`],
  [
    new RegExp(`^새 가격을 거절했습니다\\. ${DATE}까지 지금 가격으로 이용하실 수 있고, 그날 구독이 종료되며 새 가격은 결제되지 않습니다\\. 그 전에는 마음을 바꿔 동의할 수 있습니다\\.$`),
    (m) => `You declined the new price. You keep the current price until ${enKoDate(m[1], m[2], m[3])}; the subscription ends that day and the new price is not charged. Until then you can change your mind and agree.`,
  ],
];
function noticeWithValuesEn(ko: string): string | null {
  for (const [re, en] of NOTICE_PATTERNS) {
    const m = ko.match(re);
    if (m) return en(m);
  }
  return null;
}

export const PORTAL_COPY: Record<Lang, PortalCopy> = { ko: KO, en: EN };
export const portalCopy = (lang: Lang | undefined): PortalCopy => PORTAL_COPY[lang ?? 'ko'];
