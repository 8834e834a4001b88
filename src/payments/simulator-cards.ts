/**
 * The simulator's test cards and what each stands for: the documented card numbers (README "Test mode"), the outcome
 * a card number decides (approved, declined, short of funds, timed out, or approved with refunds that fail or lose
 * their answer), and the gateway's failure answers for those outcomes.
 */
import { isLuhnValid, normalizeCardNumber } from './card';

/**
 * Documented test cards (README "Test mode"). Any other Luhn-valid number succeeds; the `unknown` card
 * simulates a gateway timeout: confirm answers `unknown` and a later lookup finds the payment never approved.
 * Two cards pay normally and decide how their later refunds end: `refundFails` is refused by the gateway
 * (NOT_CANCELABLE_PAYMENT → PG_REFUND_FAILED) and `refundTimesOut` is refunded at the gateway but the answer is
 * lost (`unknown` → PG_REFUND_AMBIGUOUS), so a later lookup shows the cancel and reconciliation records it.
 */
export const TEST_CARDS = {
  success: '4242424242424242',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  unknown: '4000000000000119',
  refundFails: '4000000000005126',
  refundTimesOut: '4000000000007726',
  /** Pays at checkout, but its billing key declines every later charge (renewals, plan-change differences): for dunning. */
  renewalDeclined: '4000000000000341',
} as const;

/** `refundfail` / `refundlost`: approved like `success`; only their refunds differ. */
export type SimOutcome = 'success' | 'declined' | 'insufficient' | 'unknown' | 'refundfail' | 'refundlost';

/** Outcomes whose payments are approved. */
export const APPROVED: ReadonlySet<SimOutcome> = new Set(['success', 'refundfail', 'refundlost']);

export const FAILURES = {
  declined: { code: 'REJECT_CARD_PAYMENT', message: '카드사에서 결제를 거절했습니다.' },
  insufficient: { code: 'NOT_ENOUGH_BALANCE', message: '잔액이 부족합니다.' },
} as const;

export const UNKNOWN_MESSAGE = '결제사 응답 시간이 초과되었습니다. 결제 상태를 확인한 뒤 다시 시도해 주세요.';

/** The outcome a card number stands for; null when it is not a plausible card number. */
export function cardOutcome(cardNumber: string): SimOutcome | null {
  const digits = normalizeCardNumber(cardNumber);
  if (!isLuhnValid(digits)) return null;
  switch (digits) {
    case TEST_CARDS.declined:
      return 'declined';
    case TEST_CARDS.insufficientFunds:
      return 'insufficient';
    case TEST_CARDS.unknown:
      return 'unknown';
    case TEST_CARDS.refundFails:
      return 'refundfail';
    case TEST_CARDS.refundTimesOut:
      return 'refundlost';
    default:
      return 'success';
  }
}
