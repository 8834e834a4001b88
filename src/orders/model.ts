import type { Selectable } from 'kysely';
import type { OrderCashReceiptsTable, OrderRefundsTable, OrdersTable, OrderStatus, OrderVirtualAccountsTable } from './tables';
import { bankName } from '../payments/banks';
import type { OrderCashReceiptView, OrderLicenseView, OrderView, OrderVirtualAccountView } from './schemas';
import type { LicenseRow } from '../licenses/repo';
import { licenseStatus } from '../licenses/model';
import { revealKey } from '../licenses/keys';

export type OrderRow = Selectable<OrdersTable>;
export type OrderRefundRow = Selectable<OrderRefundsTable>;

/**
 * Order statuses and how they move (later issues extend the transitions, not the names):
 *   pending  → paid       a payment completed (checkout creates orders directly as paid today)
 *   pending  → failed | canceled   a payment that never completed
 *   paid     → paid       a partial refund (refundedAmount grows, the order stays refundable)
 *   paid     → refunded   refunds reach the amount paid
 *   awaiting_deposit → paid     a 가상계좌's deposit arrived (Toss DEPOSIT_CALLBACK, proven by secret and lookup)
 *   awaiting_deposit → expired  its due date passed without the deposit (stock and coupon released)
 */
export const ORDER_STATUSES: readonly OrderStatus[] = ['pending', 'awaiting_deposit', 'paid', 'refunded', 'failed', 'canceled', 'expired'];

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The buyer's receipt page of an order: an unguessable link (the order's receipt token) the seller may put in their own
 * e-mails. Whoever holds it can see the order and file or cancel a refund request (src/refunds/requests).
 */
export function receiptUrl(publicBaseUrl: string, orderId: string, token: string): string {
  return `${publicBaseUrl}/receipt/${encodeURIComponent(orderId)}?t=${encodeURIComponent(token)}`;
}

/** An order's license as the Order shows it: the key only when the service knows it (null while seller-issued and pending). */
export function orderLicenseView(l: LicenseRow, masterKey: Buffer, now: Date): OrderLicenseView {
  return { id: l.id, key: revealKey(masterKey, l.key_sealed), status: licenseStatus(l, now), expiresAt: iso(l.expires_at) };
}

/**
 * The contract's Order from its row and its refund records. Only `succeeded` refunds are shown: a pending or
 * unknown refund has not moved money yet. `refundedAmount` stays null until a refund exists.
 */
export function orderView(
  o: OrderRow,
  refunds: Array<Pick<OrderRefundRow, 'amount' | 'status' | 'refunded_at' | 'reason' | 'created_at'> & Partial<Pick<OrderRefundRow, 'presentment_amount'>>>,
  publicBaseUrl: string,
  licenses: OrderLicenseView[] = [],
  virtualAccount?: Selectable<OrderVirtualAccountsTable>,
  cashReceipt?: Selectable<OrderCashReceiptsTable>,
): OrderView {
  const done = refunds
    .filter((r) => r.status === 'succeeded')
    .sort((a, b) => (a.refunded_at ?? a.created_at).getTime() - (b.refunded_at ?? b.created_at).getTime());
  return {
    id: o.id,
    mode: o.mode,
    productId: o.product_id,
    productName: o.product_name,
    planId: o.plan_id,
    billingInterval: o.billing_interval,
    checkoutSessionId: o.checkout_session_id,
    status: o.status,
    amount: o.amount,
    currency: 'KRW',
    method: o.method,
    buyerName: o.buyer_name,
    buyerEmail: o.buyer_email,
    buyerPhone: o.buyer_phone,
    metadata: o.metadata ?? null,
    coupon: o.coupon ?? null,
    periodStart: iso(o.period_start),
    periodEnd: iso(o.period_end),
    paidAt: iso(o.paid_at),
    confirmedAt: iso(o.confirmed_at),
    refundedAt: iso(o.refunded_at),
    refundedAmount: o.refunded_amount,
    refunds: done.map((r) => ({
      amount: r.amount,
      currency: 'KRW' as const,
      at: (r.refunded_at ?? r.created_at).toISOString(),
      reason: r.reason,
      ...(o.presentment_currency && r.presentment_amount != null ? { presentment: { amount: r.presentment_amount, currency: o.presentment_currency } } : {}),
    })),
    createdAt: o.created_at.toISOString(),
    licenses,
    ...(virtualAccount ? { virtualAccount: virtualAccountView(virtualAccount) } : {}),
    ...(cashReceipt ? { cashReceipt: cashReceiptView(cashReceipt) } : {}),
    ...(o.presentment_currency && o.presentment_amount != null
      ? { presentment: { amount: o.presentment_amount, currency: o.presentment_currency, refundedAmount: done.reduce((a, r) => a + (r.presentment_amount ?? 0), 0) } }
      : {}),
    receiptUrl: receiptUrl(publicBaseUrl, o.id, o.receipt_token),
  };
}

/** A 가상계좌 as the Order shows it (Order.virtualAccount). */
export function virtualAccountView(r: Selectable<OrderVirtualAccountsTable>): OrderVirtualAccountView {
  return {
    bankCode: r.bank_code,
    bankName: bankName(r.bank_code),
    accountNumber: r.account_number,
    holderName: r.holder_name,
    dueAt: r.due_at.toISOString(),
    depositedAt: r.deposited_at ? r.deposited_at.toISOString() : null,
    refundAccountSet: r.refund_account_sealed !== null,
  };
}

/** A 현금영수증 as the Order shows it (Order.cashReceipt). */
export function cashReceiptView(r: Selectable<OrderCashReceiptsTable>): OrderCashReceiptView {
  return {
    type: r.type,
    status: r.status,
    requestedBy: r.requested_by,
    identity: r.identity_masked,
    issueNumber: r.issue_number,
    receiptUrl: r.receipt_url,
    amount: r.amount === null ? null : Number(r.amount),
    failure: r.status === 'failed' ? { code: r.failure_code ?? 'UNKNOWN', message: r.failure_message ?? '' } : null,
  };
}
