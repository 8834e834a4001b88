/**
 * The buyer portal's words in Korean (the default) and English (src/pages/lang.ts chooses); the same shape in both
 * (compiler-checked). The subscription's recurring-charge consent is shown as it was agreed (Korean, `lang="ko"`) with
 * its English rendering beside it.
 */
import { html, won, type SafeHtml } from '../html';
import { enWon, type Lang } from '../lang';
import type { PaymentMethod } from '../../payments/method';
import { payCopy } from '../pay/copy';

const EN_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

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
    pending: (day: string, plan: string, interval: string, amount: number) => `${day}부터 ${plan} · ${interval}(${won(amount)})으로 바뀝니다.`,
    legend: '새 요금제',
    hint: '같은 결제 주기의 더 비싼 요금제는 지금 바로 바뀌고 남은 기간의 차액이 결제됩니다. 그 밖의 변경은 다음 결제일부터 적용됩니다.',
    submit: '요금제 변경',
  },
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
  notice: (ko) => NOTICES_EN[ko] ?? ko,
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
    pending: (day, plan, interval, amount) => `Changes to ${plan} · ${interval} (${enWon(amount)}) from ${day}.`,
    legend: 'New plan',
    hint: 'A more expensive plan with the same billing cycle applies at once and the difference for the rest of the period is charged. Any other change applies from the next charge date.',
    submit: 'Change plan',
  },
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

export const PORTAL_COPY: Record<Lang, PortalCopy> = { ko: KO, en: EN };
export const portalCopy = (lang: Lang | undefined): PortalCopy => PORTAL_COPY[lang ?? 'ko'];
