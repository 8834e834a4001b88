import type { GatewayTransaction } from '../payments/provider';
import type { DifferenceKind } from './tables';

/** One thing the gateway and we disagree on. `orderId` is ours when we have the order, else the gateway's. */
export interface Difference {
  kind: DifferenceKind;
  orderId: string;
  paymentKey: string | null;
  ourAmount: number | null;
  gatewayAmount: number | null;
}

export interface OurOrder {
  id: string;
  amount: number;
  status: string;
  provider_payment_key: string | null;
}

export interface DayInput {
  /** Every transaction the gateway listed for the day. */
  transactions: GatewayTransaction[];
  /** Our orders paid (through this gateway) during the day. */
  paidHere: OurOrder[];
  /** Our orders, of any day, holding a payment key or order id that appears in `transactions`. */
  known: OurOrder[];
  /** Our succeeded refunds made during the day, with the payment key each canceled. */
  refundsHere: Array<{ order_id: string; amount: number; provider_payment_key: string | null }>;
}

const KIND_ORDER: Record<DifferenceKind, number> = { unknown_here: 0, missing_at_toss: 1, amount_differs: 2, refunds_differ: 3 };

/**
 * The differences of one day, at most one per payment and kind:
 * - unknown_here: the gateway approved a payment no order of ours holds (a pending order under that id counts as
 *   unknown: we never recorded the payment);
 * - missing_at_toss: we show an order paid that day whose approval the gateway did not list;
 * - amount_differs: both have the payment, for different amounts (ours: the order's amount; the gateway's: approved);
 * - refunds_differ: what we refunded of a payment during the day and what the gateway canceled of it that day differ
 *   (e.g. a cancel made in Toss's merchant admin that never reached us). Not reported for a payment already
 *   unknown_here: that one difference covers it.
 * Pure: the caller reads both sides; sorted by kind, then order id, for a stable report.
 */
export function compareDay(input: DayInput): Difference[] {
  const byKey = new Map<string, OurOrder>();
  for (const o of [...input.known, ...input.paidHere]) if (o.provider_payment_key) byKey.set(o.provider_payment_key, o);
  const out: Difference[] = [];
  const unknown = new Set<string>();

  const approvals = new Map<string, { orderId: string; amount: number }>();
  const cancels = new Map<string, { orderId: string; amount: number }>();
  for (const t of input.transactions) {
    const into = t.kind === 'approval' ? approvals : t.kind === 'cancel' ? cancels : null;
    if (!into) continue;
    const prev = into.get(t.paymentKey);
    into.set(t.paymentKey, { orderId: t.orderId, amount: (prev?.amount ?? 0) + t.amount });
  }

  for (const [paymentKey, a] of approvals) {
    const ours = byKey.get(paymentKey);
    if (!ours) {
      unknown.add(paymentKey);
      out.push({ kind: 'unknown_here', orderId: a.orderId, paymentKey, ourAmount: null, gatewayAmount: a.amount });
    } else if (ours.amount !== a.amount) {
      out.push({ kind: 'amount_differs', orderId: ours.id, paymentKey, ourAmount: ours.amount, gatewayAmount: a.amount });
    }
  }
  for (const o of input.paidHere) {
    if (o.provider_payment_key && !approvals.has(o.provider_payment_key)) {
      out.push({ kind: 'missing_at_toss', orderId: o.id, paymentKey: o.provider_payment_key, ourAmount: o.amount, gatewayAmount: null });
    }
  }

  const refunded = new Map<string, { orderId: string; amount: number }>();
  for (const r of input.refundsHere) {
    if (!r.provider_payment_key) continue;
    const prev = refunded.get(r.provider_payment_key);
    refunded.set(r.provider_payment_key, { orderId: r.order_id, amount: (prev?.amount ?? 0) + r.amount });
  }
  for (const paymentKey of new Set([...refunded.keys(), ...cancels.keys()])) {
    if (unknown.has(paymentKey)) continue;
    const ours = refunded.get(paymentKey)?.amount ?? 0;
    const theirs = cancels.get(paymentKey)?.amount ?? 0;
    if (ours === theirs) continue;
    const orderId = refunded.get(paymentKey)?.orderId ?? byKey.get(paymentKey)?.id ?? cancels.get(paymentKey)!.orderId;
    out.push({ kind: 'refunds_differ', orderId, paymentKey, ourAmount: ours, gatewayAmount: theirs });
  }
  return out.sort((x, y) => KIND_ORDER[x.kind] - KIND_ORDER[y.kind] || x.orderId.localeCompare(y.orderId) || (x.paymentKey ?? '').localeCompare(y.paymentKey ?? ''));
}

/** A real KST calendar day written YYYY-MM-DD. */
export function isCalendarDay(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00.000Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}
