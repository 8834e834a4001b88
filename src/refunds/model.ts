import type { Selectable } from 'kysely';
import type { OrderRefundsTable, OrdersTable } from '../orders/tables';
import { ApiError } from '../platform/errors';

export type RefundRow = Selectable<OrderRefundsTable>;
export type RefundStatus = RefundRow['status'];

/**
 * A refund's states (each one a row of order_refunds):
 *   pending   → recorded, inside the transaction that locked the order, before the gateway is called
 *   pending   → succeeded   the gateway refunded; the order's refundedAmount grew in the same transaction
 *   pending   → failed      the gateway definitely refused (PG_REFUND_FAILED); nothing moved
 *   pending   → unknown     timeout / transient error (PG_REFUND_AMBIGUOUS); reconciliation settles it
 *   unknown   → succeeded | failed   settled by reconciliation (payment lookup, retry with the same gateway key)
 * A pending or unknown refund blocks every other refund of its order (REFUND_IN_PROGRESS).
 */
export const IN_FLIGHT: readonly RefundStatus[] = ['pending', 'unknown'];

/** What is still refundable of an order, in won. `refunded_amount` is null until a first refund succeeds. */
export function refundableAmount(order: Pick<Selectable<OrdersTable>, 'amount' | 'refunded_amount'>): number {
  return Math.max(0, order.amount - (order.refunded_amount ?? 0));
}

/** The facts the checks read, gathered under the order's lock. */
export interface RefundFacts {
  order: Pick<Selectable<OrdersTable>, 'status' | 'amount' | 'refunded_amount' | 'settlement_id'> | undefined;
  /** The amount asked for; undefined = everything still refundable. */
  amount: number | undefined;
  activeRequest: boolean;
  refundInFlight: boolean;
}

/**
 * The documented order of checks of a refund, first failure wins:
 * ORDER_NOT_FOUND → REFUND_AMOUNT_INVALID → REFUND_NOT_PAID → REFUND_SETTLED → REFUND_REQUEST_PENDING →
 * REFUND_IN_PROGRESS → REFUND_NONE_LEFT → REFUND_EXCEEDS. Returns the amount to refund.
 */
export function assertRefundable(f: RefundFacts): number {
  if (!f.order) throw new ApiError('ORDER_NOT_FOUND');
  if (f.amount !== undefined && !(Number.isSafeInteger(f.amount) && f.amount > 0)) throw new ApiError('REFUND_AMOUNT_INVALID');
  // The letter of the contract: only the paid state is refundable, so a fully refunded order answers REFUND_NOT_PAID.
  if (f.order.status !== 'paid') throw new ApiError('REFUND_NOT_PAID', { details: { status: f.order.status } });
  if (f.order.settlement_id) throw new ApiError('REFUND_SETTLED', { details: { settlementId: f.order.settlement_id } });
  if (f.activeRequest) throw new ApiError('REFUND_REQUEST_PENDING');
  if (f.refundInFlight) throw new ApiError('REFUND_IN_PROGRESS');
  const left = refundableAmount(f.order);
  if (left === 0) throw new ApiError('REFUND_NONE_LEFT');
  const amount = f.amount ?? left;
  if (amount > left) throw new ApiError('REFUND_EXCEEDS', { details: { refundableAmount: left } });
  return amount;
}

/** The order after a succeeded refund of `amount`: it stays paid while something is left, else becomes refunded. */
export function afterRefund(order: Pick<Selectable<OrdersTable>, 'amount' | 'refunded_amount'>, amount: number): { refundedAmount: number; status: 'paid' | 'refunded' } {
  const refundedAmount = (order.refunded_amount ?? 0) + amount;
  if (refundedAmount > order.amount) throw new Error(`refund of ${amount} would exceed the order amount ${order.amount}`);
  return { refundedAmount, status: refundedAmount === order.amount ? 'refunded' : 'paid' };
}

/** The refund record as the API shows it. */
export interface RefundView {
  id: string;
  orderId: string;
  amount: number;
  currency: 'KRW';
  reason: string | null;
  status: RefundStatus;
  refundedAt: string | null;
  keepLicenses: boolean;
  refundRequestId: string | null;
  source: RefundRow['source'];
  failure: { code: string; message: string } | null;
  createdAt: string;
  /** PayPal orders (issue 41): the dollars (cents) this refund gives back at the gateway. */
  presentment?: { amount: number; currency: 'USD' };
}

export function refundView(r: RefundRow): RefundView {
  return {
    id: r.id,
    orderId: r.order_id,
    amount: r.amount,
    currency: 'KRW',
    reason: r.reason,
    status: r.status,
    refundedAt: r.refunded_at ? r.refunded_at.toISOString() : null,
    keepLicenses: r.keep_licenses,
    refundRequestId: r.refund_request_id,
    source: r.source,
    failure: r.failure_code ? { code: r.failure_code, message: r.error ?? '' } : null,
    createdAt: r.created_at.toISOString(),
    ...(r.presentment_amount != null ? { presentment: { amount: r.presentment_amount, currency: 'USD' as const } } : {}),
  };
}

/** The reason sent to the gateway (Toss requires a non-empty cancelReason). Stored reason stays null when none was given. */
export const DEFAULT_GATEWAY_REASON = '판매자 환불';
