import { periodEnd } from '../checkout/model';
import type { BillingInterval, RecurringConsent } from './tables';

/**
 * The recurring-charge consent (전자상거래법 제13조⑥ "hidden renewal" and 시행령 제20조의2, in force 2025-02-14, with
 * 제13조의2 against drip pricing and 제21조① against obstructed cancellation): before the first charge the payment page says, next to the pay button, what will be charged, how often, from when, and how to
 * cancel, and asks for a separate, unticked consent to the recurring charge. The sentence the buyer ticked is kept
 * with the subscription, word for word, with its time and this version (change it with the wording).
 */
export const CONSENT_VERSION = '2026-11-28';

/**
 * A trial longer than this many days asks the buyer again within the 30 days before its first charge (시행령
 * 제20조의2: the consent to a free-to-paid conversion is taken within 30 days of it); src/subscriptions/trials/consent.ts.
 */
export const TRIAL_CONSENT_WINDOW_DAYS = 30;

const DAY_MS = 86_400_000;
const KST_MS = 9 * 3_600_000;

/** `2026년 12월 27일` in Korea time. */
export function kstDate(d: Date): string {
  const k = new Date(d.getTime() + KST_MS);
  return `${k.getUTCFullYear()}년 ${k.getUTCMonth() + 1}월 ${k.getUTCDate()}일`;
}

const won = (n: number) => `${n.toLocaleString('ko-KR')}원`;
const CYCLE: Record<BillingInterval, string> = { monthly: '매월', yearly: '매년' };

/** When a free trial that starts at `start` ends (its first charge): whole days of 24 h, on the subscription's clock. */
export function trialEnd(start: Date, trialDays: number): Date {
  return new Date(start.getTime() + trialDays * DAY_MS);
}

/** What a subscription checkout will charge and when, from the session's sold terms (never the live product). */
export interface RecurringTerms {
  /** What each renewal charges: the session's list price. */
  amount: number;
  /** What is charged now (0 for a trial; the coupon-discounted first payment otherwise). */
  dueNow: number;
  interval: BillingInterval;
  /** The first recurring charge: the trial's end, or one cycle after the first payment. */
  firstChargeAt: Date;
  trialEndsAt: Date | null;
  /** The trial's length in days (absent without a trial). */
  trialDays?: number;
  /**
   * A plan price change already scheduled when the buyer pays (src/subscriptions/price-change/service.ts): the new amount and
   * the first of this buyer's charges it applies to (max(its date, now + 30 days), on their renewal dates). The
   * payment page states it and the buyer consents to it too (issue 29 item 5).
   */
  priceChange?: { id: string; amount: number; from: Date };
}

export function recurringTerms(
  s: { amount: number; billing_interval: BillingInterval; trial_days: number | null },
  dueNow: number,
  now: Date,
  change?: { id: string; effectiveAt: Date; amount: number } | null,
): RecurringTerms {
  const trialEndsAt = s.trial_days ? trialEnd(now, s.trial_days) : null;
  const firstChargeAt = trialEndsAt ?? periodEnd(now, s.billing_interval);
  let priceChange: RecurringTerms['priceChange'];
  if (change && change.amount !== s.amount) {
    // As notify() will compute it for the new subscription: 30 days' notice at least, from its own renewal dates.
    const appliesFrom = new Date(Math.max(change.effectiveAt.getTime(), now.getTime() + 30 * DAY_MS));
    let from = firstChargeAt;
    for (let i = 0; from < appliesFrom && i < 1_000; i++) from = periodEnd(from, s.billing_interval);
    priceChange = { id: change.id, amount: change.amount, from };
  }
  return {
    ...(priceChange ? { priceChange } : {}),
    amount: s.amount,
    dueNow: trialEndsAt ? 0 : dueNow,
    interval: s.billing_interval,
    firstChargeAt,
    trialEndsAt,
    ...(s.trial_days ? { trialDays: s.trial_days } : {}),
  };
}

/** The consent sentence next to the checkbox (and kept with the subscription). */
export function consentText(t: RecurringTerms): string {
  const later = t.priceChange
    ? ` 이미 예정된 가격 변경에 따라 ${kstDate(t.priceChange.from)} 결제부터는 ${CYCLE[t.interval]} ${won(t.priceChange.amount)}이 결제되며, 이 금액에도 동의합니다.`
    : '';
  return baseConsentText(t) + later;
}

function baseConsentText(t: RecurringTerms): string {
  const cycle = CYCLE[t.interval];
  if (t.trialEndsAt) {
    const again =
      t.trialDays !== undefined && t.trialDays > TRIAL_CONSENT_WINDOW_DAYS
        ? ` 체험 기간이 ${TRIAL_CONSENT_WINDOW_DAYS}일보다 길어, 체험 종료 ${TRIAL_CONSENT_WINDOW_DAYS}일 전부터 결제 동의를 다시 요청하며 체험 종료 전까지 다시 동의하지 않으면 결제 없이 구독이 종료됩니다.`
        : '';
    return `무료 체험 기간에는 결제되지 않으며, 체험 종료일 ${kstDate(t.trialEndsAt)}부터 ${cycle} ${won(t.amount)}이 등록한 카드로 자동 결제되는 것에 동의합니다. 체험 종료 전에 구독 관리 페이지에서 해지하면 결제되지 않습니다.${again}`;
  }
  return `오늘 ${won(t.dueNow)}이 결제되고, ${kstDate(t.firstChargeAt)}부터 ${cycle} ${won(t.amount)}이 등록한 카드로 자동 결제되는 것에 동의합니다. 구독 관리 페이지에서 언제든 해지할 수 있으며, 해지하면 다음 결제일부터 결제되지 않습니다.`;
}

export function consentRecord(t: RecurringTerms, now: Date): RecurringConsent {
  return { text: consentText(t), consentedAt: now.toISOString(), version: CONSENT_VERSION, ...(t.priceChange ? { priceChangeId: t.priceChange.id } : {}) };
}
