import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import type { LineFacts } from './model';

export interface LineScope {
  storeId: string;
  mode: Mode;
  /** [start, end): the period's instants. */
  start: Date;
  end: Date;
}

/**
 * Whether a 현금영수증 was issued, from the order's 현금영수증 row: anything past `requested` was issued by the gateway
 * (a later refund reduces or cancels it, which does not undo the sale's evidence).
 */
const cashIssued = (status: string | null) => status !== null && status !== 'requested' && status !== 'failed';

/**
 * The store's sales of one mode in [start, end), oldest first, in batches: each order that was paid (`paid`, or
 * `refunded` afterwards), at its payment time (a 가상계좌: the deposit). Orders of 0원 (a coupon paying everything)
 * are no sale for VAT and carry no evidence, so they are left out. Keyset batches (paid_at, id): a long read neither
 * skips nor repeats a row while new orders arrive.
 */
export async function* scanSales(db: Db, s: LineScope, batch = 500): AsyncGenerator<LineFacts[]> {
  let after: { at: Date; id: string } | null = null;
  for (;;) {
    let q = db
      .selectFrom('orders as o')
      .leftJoin('order_cash_receipts as cr', 'cr.order_id', 'o.id')
      // 세금계산서 발급분: the order's original 세금계산서 was issued (src/tax/invoices/; one original per order).
      .leftJoin('tax_invoices as ti', (j) => j.onRef('ti.order_id', '=', 'o.id').on('ti.kind', '=', 'original').on('ti.status', '=', 'issued'))
      .select(['o.id', 'o.paid_at', 'o.amount', 'o.method', 'o.currency', 'o.presentment_currency', 'cr.status as cash_status', 'ti.id as tax_invoice_id'])
      .where('o.store_id', '=', s.storeId)
      .where('o.mode', '=', s.mode)
      .where('o.status', 'in', ['paid', 'refunded'])
      .where('o.paid_at', '>=', s.start)
      .where('o.paid_at', '<', s.end)
      .where('o.amount', '>', 0);
    if (after) {
      const a = after;
      q = q.where((eb) => eb.or([eb('o.paid_at', '>', a.at), eb.and([eb('o.paid_at', '=', a.at), eb('o.id', '>', a.id)])]));
    }
    const rows = await q.orderBy('o.paid_at').orderBy('o.id').limit(batch).execute();
    if (rows.length === 0) return;
    yield rows.map((r) => ({
      kind: 'sale' as const,
      at: r.paid_at!,
      orderId: r.id,
      refundId: null,
      amount: Number(r.amount),
      method: r.method,
      // A PayPal sale was paid in USD (issue 41): a foreign-currency sale, kept apart (its won figures at the store's rate).
      currency: r.presentment_currency ?? r.currency,
      cashReceiptIssued: cashIssued(r.cash_status),
      taxInvoiceIssued: r.tax_invoice_id !== null,
    }));
    if (rows.length < batch) return;
    const last = rows[rows.length - 1];
    after = { at: last.paid_at!, id: last.id };
  }
}

/**
 * The store's completed refunds of one mode in [start, end), oldest first, at the time each completed (whatever
 * period the order was paid in), with their order's facts so each lands in the category of the original sale.
 * Pending, failed and unknown refunds moved no money and are left out until they succeed.
 */
export async function* scanRefunds(db: Db, s: LineScope, batch = 500): AsyncGenerator<LineFacts[]> {
  let after: { at: Date; id: string } | null = null;
  for (;;) {
    let q = db
      .selectFrom('order_refunds as r')
      .innerJoin('orders as o', 'o.id', 'r.order_id')
      .leftJoin('order_cash_receipts as cr', 'cr.order_id', 'o.id')
      // 세금계산서 발급분: the order's original 세금계산서 was issued (src/tax/invoices/; one original per order).
      .leftJoin('tax_invoices as ti', (j) => j.onRef('ti.order_id', '=', 'o.id').on('ti.kind', '=', 'original').on('ti.status', '=', 'issued'))
      .select(['r.id', 'r.order_id', 'r.refunded_at', 'r.amount', 'o.method', 'o.currency', 'o.presentment_currency', 'cr.status as cash_status', 'ti.id as tax_invoice_id'])
      .where('r.store_id', '=', s.storeId)
      .where('r.mode', '=', s.mode)
      .where('r.status', '=', 'succeeded')
      .where('r.refunded_at', '>=', s.start)
      .where('r.refunded_at', '<', s.end)
      .where('r.amount', '>', 0);
    if (after) {
      const a = after;
      q = q.where((eb) => eb.or([eb('r.refunded_at', '>', a.at), eb.and([eb('r.refunded_at', '=', a.at), eb('r.id', '>', a.id)])]));
    }
    const rows = await q.orderBy('r.refunded_at').orderBy('r.id').limit(batch).execute();
    if (rows.length === 0) return;
    yield rows.map((r) => ({
      kind: 'refund' as const,
      at: r.refunded_at!,
      orderId: r.order_id,
      refundId: r.id,
      amount: Number(r.amount),
      method: r.method,
      // A PayPal sale was paid in USD (issue 41): a foreign-currency sale, kept apart (its won figures at the store's rate).
      currency: r.presentment_currency ?? r.currency,
      cashReceiptIssued: cashIssued(r.cash_status),
      taxInvoiceIssued: r.tax_invoice_id !== null,
    }));
    if (rows.length < batch) return;
    const last = rows[rows.length - 1];
    after = { at: last.refunded_at!, id: last.id };
  }
}
