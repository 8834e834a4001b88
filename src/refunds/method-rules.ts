import { kstDate } from '../platform/calendar';
import { isGiftCertificate, type PaymentMethod } from '../payments/method';

/**
 * What a payment method's own money rules ask of a refund (issue 41), beyond the amounts `assertRefundable` checks.
 * The refund engine applies them to every refund (API, dashboard, refund-request approvals, the statutory
 * 청약철회 auto-approval); pages only explain them.
 *
 * - 휴대폰 결제 (`mobile_phone`): the carrier bills the phone at the month's end, so the payment can be canceled only in
 *   the calendar month it was paid (KST; PortOne's cancel policy for 휴대폰 소액결제: "결제월과 취소월이 동일한 경우에만
 *   가능", /work/ref/portone-docs/cancel-v2.mdx; the carriers' rule the Korean PGs share). After that month the money
 *   goes back to the buyer's own bank account, as for a deposited 가상계좌: the refund needs the buyer's refund account
 *   (REFUND_ACCOUNT_REQUIRED otherwise), sent as Toss's `refundReceiveAccount`. Within the month only a full cancel is
 *   possible (carriers' policy), and we keep it full-only after the month too (see docs/manual/05-refunds.md).
 * - 상품권 (`culture_gift`, `book_gift`, `game_gift`): full cancels only (the certificate issuers restore the balance of a
 *   whole approval; Toss reports `isPartialCancelable: false` for them).
 * Any Toss payment whose lookup says `isPartialCancelable: false` is refused a partial refund too (src/refunds/service.ts).
 */
export interface MethodRefundRule {
  /** A refund of less than what is left is refused (REFUND_PARTIAL_NOT_ALLOWED). */
  fullOnly: boolean;
  /** The refund goes to the buyer's bank account, which must be on file (REFUND_ACCOUNT_REQUIRED). */
  needsAccount: 'virtual_account' | 'phone_after_month' | null;
}

/** The KST calendar month (`YYYY-MM`) of an instant. */
export const kstMonth = (t: Date): string => kstDate(t).slice(0, 7);

/** Whether a phone payment made at `paidAt` can still be canceled through the carrier at `now` (same KST month). */
export function phoneCancelableAt(paidAt: Date, now: Date): boolean {
  return kstMonth(paidAt) === kstMonth(now);
}

export function methodRefundRule(order: { method: PaymentMethod; paid_at: Date | null; created_at?: Date }, now: Date): MethodRefundRule {
  if (order.method === 'virtual_account') return { fullOnly: false, needsAccount: 'virtual_account' };
  if (order.method === 'mobile_phone') {
    const paidAt = order.paid_at ?? order.created_at ?? now;
    return { fullOnly: true, needsAccount: phoneCancelableAt(paidAt, now) ? null : 'phone_after_month' };
  }
  if (isGiftCertificate(order.method)) return { fullOnly: true, needsAccount: null };
  return { fullOnly: false, needsAccount: null };
}

/** The Korean name of a method whose refunds are full-only, for messages. */
export function fullOnlyMethodName(method: PaymentMethod): string {
  return ({ mobile_phone: '휴대폰', culture_gift: '문화상품권', book_gift: '도서문화상품권', game_gift: '게임문화상품권' } as Partial<Record<PaymentMethod, string>>)[method] ?? '이 결제 수단의';
}
