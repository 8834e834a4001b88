import { withdrawalWindowEnd } from '../../platform/calendar';
import { MESSAGES } from '../../platform/messages';
import { monthCycleUse, periodDays } from './days';

/**
 * The cancel preview (immediate cancellation) as pure math, from plain inputs. It follows the design
 * (/shared/design/refunds-and-subscriptions.md, "The cancel preview") to the letter:
 *
 * Decision, first match wins:
 *   1. blocked (refund 0, `blockedReason`, reason `nothing_refundable`): ALREADY_ENDED, then REFUND_REQUEST_PENDING
 *      (an active refund request, or a `pending`/`unknown` refund of a current-period order), then
 *      SUBSCRIPTION_REFUND_SETTLED (a current-period order is in a settlement round);
 *   2. `past_due` with no paid order covering now → 0, reason `past_due`;
 *   3. in the window and unused → `initial_full` / `renewal_full` (P, statutory);
 *   4. in the window, used, and no trial with a marked restriction (or a renewal after an unconsented price rise)
 *      → `statutory_full` (P, statutory);
 *   5. otherwise `prorated` (statutory = in the window), or `nothing_refundable` when that comes to 0.
 *
 * Money is integer won. Every withheld part (deduction, clawback, penalty) is rounded DOWN, so rounding favours
 * the buyer. Days are KST calendar days (counted in ./days.ts).
 */

export type CancelReason = 'initial_full' | 'statutory_full' | 'renewal_full' | 'prorated' | 'past_due' | 'nothing_refundable';
export type BlockedCode = 'SUBSCRIPTION_REFUND_SETTLED' | 'REFUND_REQUEST_PENDING' | 'ALREADY_ENDED';

export interface CancelOrderInput {
  id: string;
  /** Amount paid (won). */
  amount: number;
  /** Already refunded (succeeded refunds), won. */
  refundedAmount: number;
  paidAt: Date;
  periodStart: Date;
  periodEnd: Date;
  subscriptionEvent: 'initial' | 'renewal' | 'difference' | null;
  /** In a settlement round: cannot be refunded through the API. */
  settled: boolean;
  /** A `pending` or `unknown` refund of this order exists. */
  refundInFlight: boolean;
  /** Evidence of use of the content during this order's period (no evidence → unused). */
  used: boolean;
  /** A renewal charged after a price rise the buyer did not consent to (statutory_full even when used). */
  unconsentedPriceRise?: boolean;
  /**
   * The terms this order was sold under (its own refund policy and its plan's monthly list price M), when they differ
   * from the subscription-level ones in the input: each order is judged under its own terms (an order bought under
   * the old plan keeps that plan's M after an upgrade).
   */
  policy?: CancelPolicy;
  monthlyListPrice?: number | null;
  /** The order's own billing interval (defaults to the subscription's). */
  interval?: 'monthly' | 'yearly';
}

export interface CancelPolicy {
  refundDays: number;
  trialOffered: boolean;
  usageRestrictionMarked: boolean;
  clawbackDisclosed: boolean;
  /** Percent withheld from a prorated refund outside the window; clamped to 0..10. */
  penaltyRate: number;
}

export interface CancelInput {
  subscription: {
    status: 'active' | 'past_due' | 'ended';
    billingInterval: 'monthly' | 'yearly';
    currentPeriodStart: Date;
    currentPeriodEnd: Date;
  };
  /** The subscription's paid orders (any period); the model picks those covering `now`. */
  orders: CancelOrderInput[];
  /** An active (requested/held) refund request on the subscription or one of its orders. */
  activeRefundRequest: boolean;
  /** An immediate cancellation of this subscription is refunding right now (shown like a refund in flight). */
  cancellationInProgress?: boolean;
  policy: CancelPolicy;
  /** The plan's monthly list price M (for the annual-discount clawback); null when the plan has no monthly price. */
  monthlyListPrice: number | null;
  /** The seller is at fault (no penalty). */
  sellerFault?: boolean;
  now: Date;
}

export interface BreakdownItem {
  orderId: string;
  amount: number;
  currency: 'KRW';
}

/** Per-order result, kept for the executor (what to refund from which order) and for tests. */
export interface OrderComputation {
  orderId: string;
  paidRemaining: number;
  reason: CancelReason;
  statutory: boolean;
  inWindow: boolean;
  windowEndsAt: Date;
  usedDays: number;
  totalDays: number;
  deduction: number;
  clawback: number;
  penalty: number;
  refund: number;
}

export interface ImmediatePreview {
  refundAmount: number;
  currency: 'KRW';
  fullRefund: boolean;
  reason: CancelReason;
  breakdown: BreakdownItem[];
  deduction: number;
  deductionCurrency: 'KRW';
  deductionCap: number;
  deductionCapCurrency: 'KRW';
  penalty: number;
  penaltyCurrency: 'KRW';
  clawback: number;
  clawbackCurrency: 'KRW';
  usedDays: number;
  totalDays: number;
  statutory: boolean;
  requiresApproval: boolean;
  blockedReason: { code: BlockedCode; message: string } | null;
}

export interface CancelComputation {
  immediate: ImmediatePreview;
  /** Which check blocked it (REFUND_IN_PROGRESS is shown as REFUND_REQUEST_PENDING in `blockedReason`, as the design says). */
  blockedBy: BlockedCode | 'REFUND_IN_PROGRESS' | null;
  orders: OrderComputation[];
}

export const BLOCKED_MESSAGES: Record<BlockedCode, string> = MESSAGES.subscriptions.immediateBlocked;

/** The orders whose period covers `now` (start inclusive, end exclusive) and that still hold paid money. */
export function currentPeriodOrders(orders: CancelOrderInput[], now: Date): CancelOrderInput[] {
  return orders
    .filter((o) => o.periodStart <= now && now < o.periodEnd && o.amount - o.refundedAmount > 0)
    .sort((a, b) => a.paidAt.getTime() - b.paidAt.getTime() || a.id.localeCompare(b.id));
}

function computeOrder(o: CancelOrderInput, input: CancelInput, mainEvent: CancelOrderInput['subscriptionEvent']): OrderComputation {
  const { now } = input;
  const policy = o.policy ?? input.policy;
  const P = o.amount - o.refundedAmount;
  const windowEndsAt = withdrawalWindowEnd(o.paidAt, policy.refundDays);
  const inWindow = now < windowEndsAt;
  // A difference payment (upgrade) is part of its period: it takes the kind of the period's main order.
  const event = o.subscriptionEvent === 'difference' ? mainEvent : o.subscriptionEvent;
  const yearly = (o.interval ?? input.subscription.billingInterval) === 'yearly' && o.subscriptionEvent !== 'difference';
  const months = yearly ? 12 : 1;

  let usedDays: number;
  let totalDays: number;
  let dm = 0;
  let u = 0;
  if (yearly) {
    const c = monthCycleUse(o.periodStart, now, months);
    dm = c.dm;
    u = c.u;
    usedDays = c.u;
    totalDays = months * c.dm;
  } else {
    ({ usedDays, totalDays } = periodDays(o.periodStart, o.periodEnd, now));
  }
  const base = { orderId: o.id, paidRemaining: P, inWindow, windowEndsAt, usedDays, totalDays };
  const full = (reason: CancelReason): OrderComputation => ({ ...base, reason, statutory: true, deduction: 0, clawback: 0, penalty: 0, refund: P });

  if (inWindow && !o.used) return full(event === 'renewal' ? 'renewal_full' : 'initial_full');
  const restrictionValid = policy.trialOffered && policy.usageRestrictionMarked;
  if (inWindow && (!restrictionValid || (event === 'renewal' && o.unconsentedPriceRise))) return full('statutory_full');

  // Prorated. deduction = use at the price paid; each withheld part rounded down.
  const deduction = Math.min(Math.floor((P * usedDays) / totalDays), P);
  let clawback = 0;
  const M = o.monthlyListPrice !== undefined ? o.monthlyListPrice : input.monthlyListPrice;
  if (yearly && !inWindow && policy.clawbackDisclosed && M !== null && M * months > P) {
    const atList = Math.floor((M * u) / dm);
    clawback = Math.min(Math.max(atList - deduction, 0), M * months - P);
  }
  clawback = Math.min(clawback, P - deduction);
  const R = P - deduction - clawback;
  const rate = Math.min(Math.max(policy.penaltyRate, 0), 10);
  const penalty = inWindow || input.sellerFault ? 0 : Math.floor((R * rate) / 100);
  const refund = R - penalty;
  return { ...base, reason: refund > 0 ? 'prorated' : 'nothing_refundable', statutory: inWindow, deduction, clawback, penalty, refund };
}

function blocked(input: CancelInput, current: CancelOrderInput[]): CancelComputation['blockedBy'] {
  if (input.subscription.status === 'ended') return 'ALREADY_ENDED';
  if (input.activeRefundRequest) return 'REFUND_REQUEST_PENDING';
  if (input.cancellationInProgress || current.some((o) => o.refundInFlight)) return 'REFUND_IN_PROGRESS';
  if (current.some((o) => o.settled)) return 'SUBSCRIPTION_REFUND_SETTLED';
  return null;
}

/** The whole cancel preview for "now". The executed cancellation refunds exactly `immediate.breakdown`. */
export function computeCancel(input: CancelInput): CancelComputation {
  const { now } = input;
  // A refund in flight may be on an order whose remaining amount it would empty: look at every covering order.
  const covering = input.orders.filter((o) => o.periodStart <= now && now < o.periodEnd);
  const current = currentPeriodOrders(input.orders, now);
  const cap = current.reduce((s, o) => s + (o.amount - o.refundedAmount), 0);
  const periodUse = input.subscription.billingInterval === 'yearly'
    ? (() => {
        const c = monthCycleUse(input.subscription.currentPeriodStart, now, 12);
        return { usedDays: c.u, totalDays: 12 * c.dm };
      })()
    : periodDays(input.subscription.currentPeriodStart, input.subscription.currentPeriodEnd, now);

  const zero = (reason: CancelReason, blockedCode: BlockedCode | null, orders: OrderComputation[] = []): ImmediatePreview => ({
    refundAmount: 0,
    currency: 'KRW',
    fullRefund: false,
    reason,
    breakdown: [],
    deduction: 0,
    deductionCurrency: 'KRW',
    deductionCap: cap,
    deductionCapCurrency: 'KRW',
    penalty: 0,
    penaltyCurrency: 'KRW',
    clawback: 0,
    clawbackCurrency: 'KRW',
    usedDays: orders[0]?.usedDays ?? periodUse.usedDays,
    totalDays: orders[0]?.totalDays ?? periodUse.totalDays,
    statutory: false,
    requiresApproval: false,
    blockedReason: blockedCode ? { code: blockedCode, message: BLOCKED_MESSAGES[blockedCode] } : null,
  });

  const b = blocked(input, covering);
  if (b) {
    const code: BlockedCode = b === 'REFUND_IN_PROGRESS' ? 'REFUND_REQUEST_PENDING' : b;
    return { immediate: zero('nothing_refundable', code), blockedBy: b, orders: [] };
  }
  if (current.length === 0) {
    return { immediate: zero(input.subscription.status === 'past_due' ? 'past_due' : 'nothing_refundable', null), blockedBy: null, orders: [] };
  }

  const mainEvent = current.find((o) => o.subscriptionEvent !== 'difference')?.subscriptionEvent ?? 'initial';
  const orders = current.map((o) => computeOrder(o, input, mainEvent));
  const sum = (f: (o: OrderComputation) => number) => orders.reduce((s, o) => s + f(o), 0);
  const refundAmount = sum((o) => o.refund);
  if (refundAmount === 0) return { immediate: { ...zero('nothing_refundable', null, orders), deduction: sum((o) => o.deduction), clawback: sum((o) => o.clawback), penalty: sum((o) => o.penalty) }, blockedBy: null, orders };

  const paying = orders.filter((o) => o.refund > 0);
  // One reason for the whole cancellation: prorated as soon as any part is prorated, else the main order's.
  const reason: CancelReason = paying.some((o) => o.reason === 'prorated') ? 'prorated' : paying[0].reason;
  const statutory = paying.every((o) => o.statutory);
  return {
    immediate: {
      refundAmount,
      currency: 'KRW',
      fullRefund: refundAmount === cap,
      reason,
      breakdown: paying.map((o) => ({ orderId: o.orderId, amount: o.refund, currency: 'KRW' as const })),
      deduction: sum((o) => o.deduction),
      deductionCurrency: 'KRW',
      deductionCap: cap,
      deductionCapCurrency: 'KRW',
      penalty: sum((o) => o.penalty),
      penaltyCurrency: 'KRW',
      clawback: sum((o) => o.clawback),
      clawbackCurrency: 'KRW',
      usedDays: orders[0].usedDays,
      totalDays: orders[0].totalDays,
      statutory,
      requiresApproval: paying.some((o) => o.reason === 'prorated' && !o.statutory),
      blockedReason: null,
    },
    blockedBy: null,
    orders,
  };
}
