import type { AppDeps } from '../deps';
import { ApiError } from '../platform/errors';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { Page } from '../platform/http/schemas';
import { addDays, kstDate, kstStartOf, withdrawalWindowEnd } from '../platform/calendar';
import { newId } from '../platform/ids';
import type { Mode } from '../platform/tables';
import * as repo from './repo';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'log'>;

/**
 * The service fee withheld from a settled order, in basis points of what the order kept (amount − refunded):
 * 3.3 % (a typical Korean card PG fee, VAT included). Rounded down per order, so rounding never costs the seller.
 * A fully refunded order keeps nothing and pays no fee.
 */
export const SETTLEMENT_FEE_BPS = 330;
/** The weekly job runs this often; it settles at most once per store, mode and KST week whatever the interval. */
export const SETTLEMENT_TASK_INTERVAL_MS = 60 * 60_000;
/** No order can have left its withdrawal window (≥ 7 days) sooner than this after payment: a cheap pre-filter. */
const MIN_WINDOW_MS = 7 * 86_400_000;

export function orderFee(kept: number, bps = SETTLEMENT_FEE_BPS): number {
  return Math.floor((kept * bps) / 10_000);
}

export interface SettlementOrderView {
  orderId: string;
  paidAt: string | null;
  gross: number;
  refunded: number;
  fee: number;
  net: number;
}

export interface SettlementView {
  id: string;
  mode: Mode;
  cutoff: string;
  orderCount: number;
  gross: number;
  refunds: number;
  fees: number;
  net: number;
  feeRateBps: number;
  source: 'job' | 'console';
  periodKey: string | null;
  createdBy: string;
  createdAt: string;
}

export type SettlementWithOrders = SettlementView & { orders: SettlementOrderView[] };

/** The KST Monday (YYYY-MM-DD) of the week holding `t`: the weekly job's period key. */
export function kstWeekStart(t: Date): string {
  const d = kstDate(t);
  const dow = new Date(`${d}T00:00:00.000Z`).getUTCDay(); // 0 = Sunday
  return addDays(d, -((dow + 6) % 7));
}

/** Orders settled per transaction: each batch locks, writes and releases this many at most. */
export const SETTLEMENT_BATCH = 1_000;

/**
 * Closes a store's paid orders (one mode) paid up to `cutoff` whose withdrawal window (max(7, refundDays) days,
 * rolled to a business day, see calendar.ts) has ended by now into one round: the round, what each order contributed
 * (frozen), and `orders.settlement_id` (from then on a refund answers REFUND_SETTLED).
 *
 * In batches of `batch` candidate orders, one transaction each (a big store's weekly run no longer holds every
 * settled order locked until one commit at the end): each batch locks its orders, writes their lines, marks them
 * settled and adds their figures to the round, so after any commit the round's figures are exactly the sum of its
 * orders. The first batch with an order to settle writes the round (still open: not shown); the batch that finds no
 * more candidates closes it. A run stopped between batches (a crash) leaves the round open; the next run resumes it
 * with its cutoff (the weekly job's round of the period, or the store's open console round), settling only orders not
 * settled yet. Returns null when nothing qualifies (no round is written) or the period's round is already closed.
 */
export async function createRound(deps: Deps, input: RoundInput, batch = SETTLEMENT_BATCH): Promise<SettlementWithOrders | null> {
  const id = await fillRound(deps, input, batch);
  return id ? getRound(deps, input.storeId, id) : null;
}

type RoundInput = { storeId: string; mode: Mode; cutoff: Date; source: 'job' | 'console'; createdBy: string; periodKey?: string | null };

/** createRound's work, answering the round's id (or null): the weekly job does not read back every order it settled. */
async function fillRound(deps: Deps, input: RoundInput, batch: number): Promise<string | null> {
  const now = deps.clock.now();
  const open = await repo.roundToResume(deps.db, input.storeId, input.mode, input.source, input.periodKey ?? null);
  if (open?.closed_at) return null;
  let id: string | null = open?.id ?? null;
  const cutoff = open ? open.cutoff : input.cutoff.getTime() > now.getTime() ? now : input.cutoff;
  let after: { paid_at: Date; id: string } | null = null;
  for (;;) {
    // The body keeps its own copies of the round's id and the batch's position and hands them back: after a deadlock
    // it runs again (src/db/deadlock-retry.ts) and must start from what the last committed batch left, not from what
    // the rolled-back attempt had set.
    const batchDone = await deps.db.transaction().execute(async (trx) => {
      let roundOf = id;
      const read = await repo.lockSettlementCandidates(trx, input.storeId, input.mode, cutoff, { after, limit: batch });
      const candidates = read.filter((o) => o.paid_at && withdrawalWindowEnd(o.paid_at, o.refund_days).getTime() <= now.getTime());
      const next = read.length ? { paid_at: read[read.length - 1].paid_at!, id: read[read.length - 1].id } : after;
      if (candidates.length) {
        if (!roundOf) {
          roundOf = newId('stl', deps.clock);
          await repo.insertRound(trx, {
            id: roundOf,
            store_id: input.storeId,
            mode: input.mode,
            cutoff,
            order_count: 0,
            gross: 0,
            refunds: 0,
            fees: 0,
            net: 0,
            fee_rate_bps: SETTLEMENT_FEE_BPS,
            source: input.source,
            period_key: input.periodKey ?? null,
            created_by: input.createdBy,
            created_at: now,
            closed_at: null,
          });
        }
        const roundId = roundOf;
        const lines = candidates.map((o) => {
          const refunded = o.refunded_amount ?? 0;
          const fee = orderFee(o.amount - refunded);
          return { round_id: roundId, order_id: o.id, gross: o.amount, refunded, fee, net: o.amount - refunded - fee };
        });
        const sum = (k: 'gross' | 'refunded' | 'fee' | 'net') => lines.reduce((a, l) => a + l[k], 0);
        await repo.insertRoundOrders(trx, lines);
        await repo.markSettled(trx, roundId, lines.map((l) => l.order_id), now);
        await repo.addToRound(trx, roundId, { order_count: lines.length, gross: sum('gross'), refunds: sum('refunded'), fees: sum('fee'), net: sum('net') });
      }
      const last = read.length < batch;
      if (last && roundOf) await repo.closeRound(trx, roundOf, now);
      return { last, roundOf, next };
    });
    id = batchDone.roundOf;
    after = batchDone.next;
    if (batchDone.last) break;
  }
  return id;
}

/** The console's "settle now": a round of what qualifies up to `cutoff` (default now); SETTLEMENT_EMPTY when nothing does. */
export async function createRoundFromConsole(deps: Deps, storeId: string, input: { mode: Mode; cutoff?: Date }): Promise<SettlementWithOrders> {
  const round = await createRound(deps, { storeId, mode: input.mode, cutoff: input.cutoff ?? deps.clock.now(), source: 'console', createdBy: 'console' });
  if (!round) throw new ApiError('SETTLEMENT_EMPTY');
  return round;
}

/**
 * The weekly scheduler: once per KST week (period key = its Monday), for every store and mode, a round of the orders
 * paid before that Monday 00:00 KST whose withdrawal window has ended. Safe to run any number of times: the period
 * key makes a second run of the same week a no-op (also across processes: a unique index backs it).
 */
export async function runWeeklySettlement(deps: Deps, now: Date): Promise<number> {
  const week = kstWeekStart(now);
  const cutoff = kstStartOf(week);
  const work = await repo.storesWithUnsettled(deps.db, new Date(Math.min(cutoff.getTime(), now.getTime() - MIN_WINDOW_MS)));
  let made = 0;
  for (const w of work) {
    try {
      const round = await fillRound(deps, { storeId: w.store_id, mode: w.mode, cutoff, source: 'job', createdBy: 'job', periodKey: week }, SETTLEMENT_BATCH);
      if (round) made++;
    } catch (err) {
      // Another process made this week's round first (the unique index): nothing to do.
      if (!/settlement_rounds_job_period|unique/i.test(String((err as Error).message))) throw err;
    }
  }
  if (made) deps.log.info({ week, rounds: made }, 'weekly settlement');
  return made;
}

function roundView(r: Awaited<ReturnType<typeof findRound>> & {}): SettlementView {
  return {
    id: r.id,
    mode: r.mode,
    cutoff: r.cutoff.toISOString(),
    orderCount: r.order_count,
    gross: r.gross,
    refunds: r.refunds,
    fees: r.fees,
    net: r.net,
    feeRateBps: r.fee_rate_bps,
    source: r.source,
    periodKey: r.period_key,
    createdBy: r.created_by,
    createdAt: r.created_at.toISOString(),
  };
}

function findRound(deps: Pick<Deps, 'db'>, storeId: string, id: string) {
  return repo.findRound(deps.db, storeId, id);
}

export async function getRound(deps: Pick<Deps, 'db'>, storeId: string, id: string): Promise<SettlementWithOrders> {
  const r = await findRound(deps, storeId, id);
  if (!r) throw new ApiError('SETTLEMENT_NOT_FOUND');
  const lines = await repo.roundOrders(deps.db, id);
  return {
    ...roundView(r),
    orders: lines.map((l) => ({ orderId: l.order_id, paidAt: l.paid_at ? l.paid_at.toISOString() : null, gross: l.gross, refunded: l.refunded, fee: l.fee, net: l.net })),
  };
}

export async function listRounds(deps: Pick<Deps, 'db'>, storeId: string, q: PageParams & { mode?: Mode }): Promise<Page<SettlementView>> {
  return listPage(
    q,
    () => repo.countRounds(deps.db, storeId, q.mode),
    (offset, limit) => repo.pageRounds(deps.db, storeId, q.mode, offset, limit),
    roundView,
  );
}

export function registerSettlementTask(deps: Deps & Pick<AppDeps, 'worker'>): void {
  deps.worker.addTask({ name: 'refunds.weekly-settlement', intervalMs: SETTLEMENT_TASK_INTERVAL_MS, run: (now) => runWeeklySettlement(deps, now) });
}
