import type { AppDeps } from '../deps';
import { addDays, kstDate, kstStartOf } from '../platform/calendar';
import type { Mode } from '../platform/tables';
import * as repo from './home-repo';

type Deps = Pick<AppDeps, 'db' | 'clock'>;

export interface WindowFigures {
  /** `today` = since KST midnight; `7d`/`30d` = the last 7/30 KST calendar days, today included. */
  window: 'today' | '7d' | '30d';
  paid: number;
  refunds: number;
  net: number;
  orders: number;
  newSubscriptions: number;
}

export interface HomeFigures {
  windows: WindowFigures[];
  activeSubscriptions: number;
  /** Monthly recurring revenue: monthly plans at their amount, yearly plans at 1/12 (rounded down to the won). */
  mrr: number;
  waitingRequests: { total: number; items: Awaited<ReturnType<typeof repo.waitingRefundRequests>> };
  failingEndpoints: Awaited<ReturnType<typeof repo.failingEndpoints>>;
  /** 30 KST days, oldest first, every day present (0 without payments). */
  daily: Array<{ day: string; amount: number }>;
  /** Test-clock payments dated after now: in no figure until then (see home-repo's definition of paid). */
  future: { amount: number; orders: number };
}

const WINDOWS = [
  { window: 'today' as const, days: 1 },
  { window: '7d' as const, days: 7 },
  { window: '30d' as const, days: 30 },
];

/** The figures of Home for one store and mode, at the clock's now. */
export async function homeFigures(deps: Deps, storeId: string, mode: Mode): Promise<HomeFigures> {
  const now = deps.clock.now();
  const today = kstDate(now);
  const windows: WindowFigures[] = [];
  for (const w of WINDOWS) {
    const from = kstStartOf(addDays(today, 1 - w.days));
    const paid = await repo.paidSince(deps.db, storeId, mode, from, now);
    const refunds = await repo.refundsSince(deps.db, storeId, mode, from, now);
    const newSubscriptions = await repo.subscriptionsStartedSince(deps.db, storeId, mode, from, now);
    windows.push({ window: w.window, paid: paid.amount, refunds, net: paid.amount - refunds, orders: paid.orders, newSubscriptions });
  }
  const active = await repo.activeSubscriptions(deps.db, storeId, mode);
  const monthly = active.filter((a) => a.interval === 'monthly').reduce((s, a) => s + a.amount, 0);
  const yearly = active.filter((a) => a.interval === 'yearly').reduce((s, a) => s + a.amount, 0);
  const waiting = await repo.waitingRefundRequests(deps.db, storeId, mode, 5);
  const start = addDays(today, -29);
  const perDay = new Map((await repo.paidPerDay(deps.db, storeId, mode, kstStartOf(start), now)).map((d) => [d.day, d.amount]));
  const daily = Array.from({ length: 30 }, (_, i) => {
    const day = addDays(start, i);
    return { day, amount: perDay.get(day) ?? 0 };
  });
  return {
    windows,
    activeSubscriptions: active.reduce((s, a) => s + a.count, 0),
    mrr: monthly + Math.floor(yearly / 12),
    waitingRequests: { total: waiting.length ? Number(waiting[0].total_count) : 0, items: waiting },
    failingEndpoints: await repo.failingEndpoints(deps.db, storeId, mode),
    daily,
    future: await repo.futureTestClockPaid(deps.db, storeId, mode, now),
  };
}
