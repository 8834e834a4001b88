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

/** Payments dated after now (a test clock moved ahead): the days after today, and what laterToday found in today. */
async function futureTestClockPaid(deps: Deps, storeId: string, mode: Mode, today: string, later: { paid: number; orders: number }) {
  const after = await repo.paidAfterDay(deps.db, storeId, mode, today);
  return { amount: after.amount + later.paid, orders: after.orders + later.orders };
}

const WINDOWS = [
  { window: 'today' as const, days: 1 },
  { window: '7d' as const, days: 7 },
  { window: '30d' as const, days: 30 },
];

/**
 * The figures of Home for one store and mode, at the clock's now. The windows and the chart come from the per-day
 * figures (at most 30 days × 8 rows, whatever the number of orders), less what a test clock dated later today.
 */
export async function homeFigures(deps: Deps, storeId: string, mode: Mode): Promise<HomeFigures> {
  const now = deps.clock.now();
  const today = kstDate(now);
  const start = addDays(today, -29);
  const days = new Map((await repo.dailyFigures(deps.db, storeId, mode, start, today)).map((d) => [d.day, d]));
  const later = await repo.laterToday(deps.db, storeId, mode, now, kstStartOf(addDays(today, 1)));
  const dayOf = (day: string) => {
    const d = days.get(day) ?? { paid: 0, orders: 0, refunds: 0, newSubscriptions: 0 };
    if (day !== today) return d;
    return { paid: d.paid - later.paid, orders: d.orders - later.orders, refunds: d.refunds - later.refunds, newSubscriptions: d.newSubscriptions - later.newSubscriptions };
  };
  const daily = Array.from({ length: 30 }, (_, i) => addDays(start, i)).map((day) => ({ day, ...dayOf(day) }));
  const windows: WindowFigures[] = WINDOWS.map((w) => {
    const inWindow = daily.slice(30 - w.days);
    const sum = (k: 'paid' | 'orders' | 'refunds' | 'newSubscriptions') => inWindow.reduce((s, d) => s + d[k], 0);
    return { window: w.window, paid: sum('paid'), refunds: sum('refunds'), net: sum('paid') - sum('refunds'), orders: sum('orders'), newSubscriptions: sum('newSubscriptions') };
  });
  const active = await repo.activeSubscriptions(deps.db, storeId, mode);
  const monthly = active.filter((a) => a.interval === 'monthly').reduce((s, a) => s + a.amount, 0);
  const yearly = active.filter((a) => a.interval === 'yearly').reduce((s, a) => s + a.amount, 0);
  const waiting = await repo.waitingRefundRequests(deps.db, storeId, mode, 5);
  return {
    windows,
    activeSubscriptions: active.reduce((s, a) => s + a.count, 0),
    mrr: monthly + Math.floor(yearly / 12),
    waitingRequests: { total: waiting.length ? Number(waiting[0].total_count) : 0, items: waiting },
    failingEndpoints: await repo.failingEndpoints(deps.db, storeId, mode),
    daily: daily.map((d) => ({ day: d.day, amount: d.paid })),
    future: await futureTestClockPaid(deps, storeId, mode, today, later),
  };
}
