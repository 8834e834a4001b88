import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import { sql } from 'kysely';
import { kstDate } from '../platform/calendar';
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
// Both scans keep their cursor's instant as PostgreSQL's text: a Date holds milliseconds, the columns microseconds, and
// a cursor rounded down to the millisecond read the batch's last row again (the big store's report counted 27 sales
// twice before the report moved to SQL; the CSV still streams through these scans).
export async function* scanSales(db: Db, s: LineScope, batch = 500): AsyncGenerator<LineFacts[]> {
  let after: { at: string; id: string } | null = null;
  for (;;) {
    let q = db
      .selectFrom('orders as o')
      .leftJoin('order_cash_receipts as cr', 'cr.order_id', 'o.id')
      // 세금계산서 발급분: the order's original 세금계산서 was issued (src/tax/invoices/; one original per order).
      .leftJoin('tax_invoices as ti', (j) => j.onRef('ti.order_id', '=', 'o.id').on('ti.kind', '=', 'original').on('ti.status', '=', 'issued'))
      .select(['o.id', 'o.paid_at', 'o.amount', 'o.method', 'o.currency', 'o.presentment_currency', 'cr.status as cash_status', 'ti.id as tax_invoice_id'])
      .select(sql<string>`o.paid_at::text`.as('at_key'))
      .where('o.store_id', '=', s.storeId)
      .where('o.mode', '=', s.mode)
      .where('o.status', 'in', ['paid', 'refunded'])
      .where('o.paid_at', '>=', s.start)
      .where('o.paid_at', '<', s.end)
      .where('o.amount', '>', 0);
    if (after) {
      const a = after;
      // `paid_at >= cursor` bounds the index range; the OR alone was a filter over every earlier sale of the period.
      q = q.where('o.paid_at', '>=', sql<Date>`${a.at}::timestamptz`).where((eb) => eb.or([eb('o.paid_at', '>', sql<Date>`${a.at}::timestamptz`), eb('o.id', '>', a.id)]));
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
    after = { at: last.at_key, id: last.id };
  }
}

/**
 * The store's completed refunds of one mode in [start, end), oldest first, at the time each completed (whatever
 * period the order was paid in), with their order's facts so each lands in the category of the original sale.
 * Pending, failed and unknown refunds moved no money and are left out until they succeed.
 */
export async function* scanRefunds(db: Db, s: LineScope, batch = 500): AsyncGenerator<LineFacts[]> {
  let after: { at: string; id: string } | null = null;
  for (;;) {
    let q = db
      .selectFrom('order_refunds as r')
      .innerJoin('orders as o', 'o.id', 'r.order_id')
      .leftJoin('order_cash_receipts as cr', 'cr.order_id', 'o.id')
      // 세금계산서 발급분: the order's original 세금계산서 was issued (src/tax/invoices/; one original per order).
      .leftJoin('tax_invoices as ti', (j) => j.onRef('ti.order_id', '=', 'o.id').on('ti.kind', '=', 'original').on('ti.status', '=', 'issued'))
      .select(['r.id', 'r.order_id', 'r.refunded_at', 'r.amount', 'o.method', 'o.currency', 'o.presentment_currency', 'cr.status as cash_status', 'ti.id as tax_invoice_id'])
      .select(sql<string>`r.refunded_at::text`.as('at_key'))
      .where('r.store_id', '=', s.storeId)
      .where('r.mode', '=', s.mode)
      .where('r.status', '=', 'succeeded')
      .where('r.refunded_at', '>=', s.start)
      .where('r.refunded_at', '<', s.end)
      .where('r.amount', '>', 0);
    if (after) {
      const a = after;
      q = q.where('r.refunded_at', '>=', sql<Date>`${a.at}::timestamptz`).where((eb) => eb.or([eb('r.refunded_at', '>', sql<Date>`${a.at}::timestamptz`), eb('r.id', '>', a.id)]));
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
    after = { at: last.at_key, id: last.id };
  }
}

/**
 * The period's sales and refunds as one relation of the facts that decide a line (the same rows, joins and filters as
 * scanSales and scanRefunds): `kind_rank` orders a sale before a refund at the same instant, as scanLines merges them.
 */
function linesRelation(s: LineScope, evidenceOnly = false) {
  // Only the orders with an issued 현금영수증 or an issued original 세금계산서 (evidenceLines): read from those
  // tables by store, a few rows beside the orders.
  const orders = evidenceOnly
    ? sql`and o.id in (
        select order_id from order_cash_receipts where store_id = ${s.storeId} and mode = ${s.mode} and status not in ('requested', 'failed')
        union
        select order_id from tax_invoices where store_id = ${s.storeId} and mode = ${s.mode} and kind = 'original' and status = 'issued')`
    : sql``;
  return sql`(
    select 'sale' as kind, 0 as kind_rank, o.paid_at as at, o.id as order_id, null::text as refund_id, o.id as line_id, o.amount,
      o.method, coalesce(o.presentment_currency, o.currency) as currency,
      coalesce(cr.status not in ('requested', 'failed'), false) as cash_issued, ti.id is not null as ti_issued
    from orders o
    left join order_cash_receipts cr on cr.order_id = o.id
    left join tax_invoices ti on ti.order_id = o.id and ti.kind = 'original' and ti.status = 'issued'
    where o.store_id = ${s.storeId} and o.mode = ${s.mode} and o.status in ('paid', 'refunded')
      and o.paid_at >= ${s.start} and o.paid_at < ${s.end} and o.amount > 0 ${orders}
    union all
    select 'refund', 1, r.refunded_at, r.order_id, r.id, r.id, r.amount,
      o.method, coalesce(o.presentment_currency, o.currency),
      coalesce(cr.status not in ('requested', 'failed'), false), ti.id is not null
    from order_refunds r
    join orders o on o.id = r.order_id
    left join order_cash_receipts cr on cr.order_id = o.id
    left join tax_invoices ti on ti.order_id = o.id and ti.kind = 'original' and ti.status = 'issued'
    where r.store_id = ${s.storeId} and r.mode = ${s.mode} and r.status = 'succeeded'
      and r.refunded_at >= ${s.start} and r.refunded_at < ${s.end} and r.amount > 0 ${orders}
  ) as l`;
}

/** One group of lines sharing the facts that decide their category, their kind and their KST month. */
export interface LineGroup {
  kind: 'sale' | 'refund';
  /** KST month, YYYY-MM. */
  month: string;
  method: LineFacts['method'];
  currency: string;
  cashReceiptIssued: boolean;
  taxInvoiceIssued: boolean;
  count: number;
  /** Sum of the lines' amounts (positive, refunds too). */
  amount: number;
  /** Sum of each line's 세액 taken apart (per line: floor((amount + 5) / 11), as splitVat rounds), positive. */
  vat: number;
}

type GroupRow = { kind: 'sale' | 'refund'; month: string; method: LineFacts['method']; currency: string; cash_issued: boolean; ti_issued: boolean; n: string; amount: string; vat: string };

/** A group of lines of one KST day (a LineGroup of that day's month). */
export interface DayGroup extends LineGroup {
  /** KST day, YYYY-MM-DD. */
  day: string;
}

/**
 * The period's lines grouped by KST day and by the facts that decide their category, kind included, from the figures
 * kept per day (migrations 141, 142: by kind, method and currency, every line counted as without evidence); then the
 * lines of the orders with an issued 현금영수증 or 세금계산서 are moved to their own groups: those are read line by line
 * (from those tables, by store), the rest never are. The period's ends are KST midnights (periodInstants), so its days
 * are whole. A 과세기간 is at most 184 days of a few groups each, whatever the store's size.
 */
export async function dayGroups(db: Db, s: LineScope): Promise<DayGroup[]> {
  const { rows: days } = await sql<GroupRow & { day: string }>`
    select to_char(day, 'YYYY-MM-DD') as day, kind, to_char(day, 'YYYY-MM') as month, method, currency, false as cash_issued, false as ti_issued,
      sum(n)::text as n, sum(amount)::text as amount, sum(vat)::text as vat
    from vat_day_figures
    where store_id = ${s.storeId} and mode = ${s.mode} and day >= ${kstDate(s.start)}::date and day < ${kstDate(s.end)}::date
    group by 1, 2, 3, 4, 5
    having sum(n) <> 0`.execute(db);
  const { rows: evidence } = await sql<GroupRow & { day: string }>`
    select to_char((at at time zone 'UTC') + interval '9 hours', 'YYYY-MM-DD') as day, kind, to_char((at at time zone 'UTC') + interval '9 hours', 'YYYY-MM') as month,
      method, currency, cash_issued, ti_issued, count(*)::text as n, sum(amount)::text as amount, sum((amount + 5) / 11)::text as vat
    from ${linesRelation(s, true)}
    group by 1, 2, 3, 4, 5, 6, 7`.execute(db);
  const key = (g: DayGroup, withEvidence: boolean) =>
    JSON.stringify(withEvidence ? [g.day, g.kind, g.method, g.currency, g.cashReceiptIssued, g.taxInvoiceIssued] : [g.day, g.kind, g.method, g.currency]);
  const groups = new Map(days.map((r) => [key(toDayGroup(r), false), toDayGroup(r)]));
  for (const r of evidence) {
    const g = toDayGroup(r);
    if (!g.cashReceiptIssued && !g.taxInvoiceIssued) continue; // counted as without evidence already
    const plain = groups.get(key(g, false));
    if (plain) {
      plain.count -= g.count;
      plain.amount -= g.amount;
      plain.vat -= g.vat;
    }
    groups.set(key(g, true), g);
  }
  return [...groups.values()].filter((g) => g.count !== 0).sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
}

const toDayGroup = (r: GroupRow & { day: string }): DayGroup => ({ day: r.day, ...toGroup(r) });

/**
 * The period's lines added up, grouped by the facts that decide their category (evidenceOf stays the one place that
 * decides it, applied per group), kind and KST month: dayGroups added up by month. 세액 is rounded per line before the
 * sum, as the report always has. Equal to lineGroupsScanned, the same figures added up from every line.
 */
export async function lineGroups(db: Db, s: LineScope): Promise<LineGroup[]> {
  return monthGroups(await dayGroups(db, s));
}

/** Day groups added up by month. */
export function monthGroups(days: DayGroup[]): LineGroup[] {
  const out = new Map<string, LineGroup>();
  for (const { day: _day, ...g } of days) {
    const k = JSON.stringify([g.kind, g.month, g.method, g.currency, g.cashReceiptIssued, g.taxInvoiceIssued]);
    const m = out.get(k);
    if (!m) out.set(k, { ...g });
    else {
      m.count += g.count;
      m.amount += g.amount;
      m.vat += g.vat;
    }
  }
  return [...out.values()];
}

/** lineGroups added up from every line of the period: the reference the kept figures are checked against. */
export async function lineGroupsScanned(db: Db, s: LineScope): Promise<LineGroup[]> {
  const { rows } = await sql<GroupRow>`
    select kind, to_char((at at time zone 'UTC') + interval '9 hours', 'YYYY-MM') as month, method, currency, cash_issued, ti_issued,
      count(*)::text as n, sum(amount)::text as amount, sum((amount + 5) / 11)::text as vat
    from ${linesRelation(s)}
    group by 1, 2, 3, 4, 5, 6`.execute(db);
  return rows.map(toGroup);
}

function toGroup(r: GroupRow): LineGroup {
  return {
    kind: r.kind,
    month: r.month,
    method: r.method,
    currency: r.currency,
    cashReceiptIssued: r.cash_issued,
    taxInvoiceIssued: r.ti_issued,
    count: Number(r.n),
    amount: Number(r.amount),
    vat: Number(r.vat),
  };
}

/** The facts a group of lines shares (a filter of the drill-down names the groups it keeps). */
export type LineKey = Pick<LineGroup, 'kind' | 'method' | 'currency' | 'cashReceiptIssued' | 'taxInvoiceIssued'>;

/**
 * One page of the lines of the given groups (null: every line), oldest first (a sale before a refund at the same
 * instant, then by id), an ordered LIMIT/OFFSET; none when the list of groups is empty.
 */
export async function pageLines(db: Db, s: LineScope, keys: LineKey[] | null, offset: number, limit: number): Promise<LineFacts[]> {
  if (keys?.length === 0) return [];
  const tuples = keys
    ? sql`(kind, method, currency, cash_issued, ti_issued) in (${sql.join(keys.map((k) => sql`(${k.kind}::text, ${k.method}::text, ${k.currency}::text, ${k.cashReceiptIssued}::boolean, ${k.taxInvoiceIssued}::boolean)`))})`
    : sql`true`;
  const { rows } = await sql<{ kind: 'sale' | 'refund'; at: Date; order_id: string; refund_id: string | null; amount: string; method: LineFacts['method']; currency: string; cash_issued: boolean; ti_issued: boolean }>`
    select kind, at, order_id, refund_id, amount, method, currency, cash_issued, ti_issued
    from ${linesRelation(s)}
    where ${tuples}
    order by at, kind_rank, line_id
    offset ${offset} limit ${limit}`.execute(db);
  return rows.map((r) => ({
    kind: r.kind,
    at: r.at,
    orderId: r.order_id,
    refundId: r.refund_id,
    amount: Number(r.amount),
    method: r.method,
    currency: r.currency,
    cashReceiptIssued: r.cash_issued,
    taxInvoiceIssued: r.ti_issued,
  }));
}
