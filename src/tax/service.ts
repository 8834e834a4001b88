import type { AppDeps } from '../deps';
import { validationError } from '../platform/errors';
import { MESSAGES } from '../platform/messages';
import { kstDate, kstStartOf, addDays } from '../platform/calendar';
import type { Page } from '../platform/http/schemas';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { Mode } from '../platform/tables';
import { evidenceOf, lineOf, VatAccumulator, type VatCategory, type VatLine, type VatTotals } from './model';
import { customPeriod, monthsOf, periodInstants, periodOf, quarterOf, type VatPeriod } from './periods';
import * as repo from './repo';

type Deps = Pick<AppDeps, 'db' | 'clock'>;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const realDay = (d: string) => DAY.test(d) && !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().slice(0, 10) === d;
/** A year is the longest range: 과세기간 are six months, and a longer read would only serve a yearly summary. */
export const MAX_RANGE_DAYS = 366;

/**
 * The period a request names: `period` (a 과세기간 `2026-1`/`2026-2` or a quarter `2026-Q3`), or `from` and `to` (KST
 * days, `to` excluded), or neither: the current quarter (KST) by the injected clock.
 */
export function resolvePeriod(q: { period?: string; from?: string; to?: string }, now: Date): VatPeriod {
  if (q.period !== undefined) {
    if (q.from !== undefined || q.to !== undefined) throw validationError([{ field: 'period', message: MESSAGES.tax.periodOrRange }]);
    const p = periodOf(q.period);
    if (!p) throw validationError([{ field: 'period', message: MESSAGES.tax.periodInvalid }]);
    return p;
  }
  if (q.from === undefined && q.to === undefined) return quarterOf(now);
  if (q.from === undefined || q.to === undefined) throw validationError([{ field: q.from === undefined ? 'from' : 'to', message: MESSAGES.tax.rangeIncomplete }]);
  for (const field of ['from', 'to'] as const) if (!realDay(q[field]!)) throw validationError([{ field, message: MESSAGES.tax.dateInvalid }]);
  if (q.to <= q.from) throw validationError([{ field: 'to', message: MESSAGES.tax.rangeOrder }]);
  if (addDays(q.from, MAX_RANGE_DAYS) < q.to) throw validationError([{ field: 'to', message: MESSAGES.tax.rangeTooLong }]);
  return customPeriod(q.from, q.to);
}

export interface VatScope {
  storeId: string;
  mode: Mode;
  period: VatPeriod;
}

/** A filter of the drill-down: one category, and/or sales or refunds only. */
export interface LineFilter {
  category?: VatCategory;
  kind?: 'sale' | 'refund';
}

/**
 * Every sale and refund of the period as report lines, oldest first (sales and refunds merged by time, a sale before
 * a refund at the same instant), in batches: the report, the drill-down and the CSV all read this one stream, so a
 * figure and the lines behind it cannot disagree.
 */
export async function* scanLines(deps: Deps, s: VatScope): AsyncGenerator<VatLine[]> {
  const scope = { storeId: s.storeId, mode: s.mode, ...periodInstants(s.period) };
  const sales = repo.scanSales(deps.db, scope)[Symbol.asyncIterator]();
  const refunds = repo.scanRefunds(deps.db, scope)[Symbol.asyncIterator]();
  let a: VatLine[] = [];
  let b: VatLine[] = [];
  let aDone = false;
  let bDone = false;
  const refill = async () => {
    if (!aDone && a.length === 0) {
      const n = await sales.next();
      if (n.done) aDone = true;
      else a = n.value.map(lineOf);
    }
    if (!bDone && b.length === 0) {
      const n = await refunds.next();
      if (n.done) bDone = true;
      else b = n.value.map(lineOf);
    }
  };
  for (;;) {
    await refill();
    if (a.length === 0 && b.length === 0) return;
    const out: VatLine[] = [];
    // Take from both heads in time order until one batch runs dry (it is refilled before going on).
    while (a.length > 0 && b.length > 0) out.push(a[0].at.getTime() <= b[0].at.getTime() ? a.shift()! : b.shift()!);
    if (a.length > 0 && bDone) out.push(...a.splice(0));
    if (b.length > 0 && aDone) out.push(...b.splice(0));
    if (out.length) yield out;
  }
}

export interface VatReport extends VatTotals {
  mode: Mode;
  period: VatPeriod;
}

const lineScope = (s: VatScope): repo.LineScope => ({ storeId: s.storeId, mode: s.mode, ...periodInstants(s.period) });
const categoryOf = (g: repo.LineKey) => evidenceOf(g);

/**
 * The period's figures by category and by month: the lines are added up in SQL by the facts that decide their
 * category, kind and KST month (a handful of rows, whatever the store's size), and each group lands in the category
 * evidenceOf gives its facts. Per-line rounding is kept: 세액 is summed per line in SQL as splitVat rounds it, so every
 * figure equals the sum of its drill-down's lines.
 */
export async function vatReport(deps: Deps, s: VatScope): Promise<VatReport> {
  const acc = new VatAccumulator(monthsOf(s.period));
  for (const g of await repo.lineGroups(deps.db, lineScope(s))) {
    const sign = g.kind === 'refund' ? -1 : 1;
    const total = sign * g.amount || 0;
    const vat = sign * g.vat || 0;
    acc.addGroup(g.kind, categoryOf(g), g.month, { count: g.count, total, supplyAmount: total - vat || 0, vat });
  }
  return { mode: s.mode, period: s.period, ...acc.totals() };
}

export interface VatLineView {
  kind: 'sale' | 'refund';
  at: string;
  /** The KST day it counts on. */
  date: string;
  orderId: string;
  refundId: string | null;
  method: VatLine['method'];
  category: VatCategory;
  total: number;
  supplyAmount: number;
  vat: number;
}

export const lineView = (l: VatLine): VatLineView => ({
  kind: l.kind,
  at: l.at.toISOString(),
  date: kstDate(l.at),
  orderId: l.orderId,
  refundId: l.refundId,
  method: l.method,
  category: l.category,
  total: l.total,
  supplyAmount: l.supplyAmount,
  vat: l.vat,
});

/**
 * The lines behind a figure, oldest first, one page of them. The category is decided by `evidenceOf` (one function,
 * not a second copy in SQL) for each group of facts the period holds; the filter becomes the list of groups it keeps.
 * The total is the sum of the kept groups' counts (repo.dayGroups, from the figures kept per day); the page reads only
 * the days it falls on, found from the same counts, as an ordered LIMIT/OFFSET within them: a deep page of a 과세기간
 * of a big store no longer sorts every line of the period before it.
 */
export async function vatLines(deps: Deps, s: VatScope, f: LineFilter, page: PageParams): Promise<Page<VatLineView>> {
  const scope = lineScope(s);
  const keep = (g: repo.LineKey) => (!f.kind || g.kind === f.kind) && (!f.category || categoryOf(g) === f.category);
  const days = (await repo.dayGroups(deps.db, scope)).filter(keep);
  const keys = f.kind || f.category ? [...new Map(days.map((g) => [JSON.stringify([g.kind, g.method, g.currency, g.cashReceiptIssued, g.taxInvoiceIssued]), g] as const)).values()] : null;
  const perDay: Array<[string, number]> = [];
  for (const g of days) {
    const last = perDay[perDay.length - 1];
    if (last && last[0] === g.day) last[1] += g.count;
    else perDay.push([g.day, g.count]);
  }
  const total = perDay.reduce((n, [, c]) => n + c, 0);
  return listPage(
    page,
    async () => total,
    async (offset, limit) => {
      // The first day holding line `offset` (counted from 0), then the days until `offset + limit` lines are covered.
      let i = 0;
      let before = 0;
      while (i < perDay.length && before + perDay[i][1] <= offset) before += perDay[i++][1];
      if (i === perDay.length) return [];
      let j = i;
      let through = before + perDay[i][1];
      while (through < offset + limit && j + 1 < perDay.length) through += perDay[++j][1];
      const from = kstStartOf(perDay[i][0]);
      const to = kstStartOf(addDays(perDay[j][0], 1));
      const window = { ...scope, start: from > scope.start ? from : scope.start, end: to < scope.end ? to : scope.end };
      return repo.pageLines(deps.db, window, keys, offset - before, limit);
    },
    (facts) => lineView(lineOf(facts)),
  );
}
