import { addDays, kstDate } from '../../platform/calendar';

/**
 * Counting the days of a subscription period in KST calendar days, as the cancel preview (./model.ts) measures use:
 * days between dates, calendar months (the day clamped to the month's end), used days of a monthly period and the
 * month cycles of a yearly one, and a window's last day for Korean texts.
 */

const DAY_MS = 86_400_000;

/** Whole days between two KST dates (`YYYY-MM-DD`), b − a. */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
}

/** The KST date `months` calendar months after `date`, the day clamped to the target month's last day (Jan 31 + 1 → Feb 28/29). */
export function addMonthsDate(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number);
  const total = y * 12 + (m - 1) + months;
  const ty = Math.floor(total / 12);
  const tm = total % 12;
  const last = new Date(Date.UTC(ty, tm + 1, 0)).getUTCDate();
  return new Date(Date.UTC(ty, tm, Math.min(d, last))).toISOString().slice(0, 10);
}

/**
 * Used time of a period counted by month (yearly plans): k full month-cycles elapsed, Dm days in the current
 * cycle, d days used in it (today included), u = k × Dm + d, capped at N × Dm.
 */
export function monthCycleUse(periodStart: Date, now: Date, months: number): { k: number; dm: number; d: number; u: number } {
  const start = kstDate(periodStart);
  const today = kstDate(now);
  let k = 0;
  while (k + 1 < months && addMonthsDate(start, k + 1) <= today) k++;
  const cycleStart = addMonthsDate(start, k);
  const dm = daysBetween(cycleStart, addMonthsDate(start, k + 1));
  const d = Math.min(Math.max(daysBetween(cycleStart, today) + 1, 0), dm);
  const u = Math.min(k * dm + d, months * dm);
  return { k, dm, d, u };
}

/** Days of a period in KST dates: used = start to today inclusive (capped at the total); total = days in the period. */
export function periodDays(periodStart: Date, periodEnd: Date, now: Date): { usedDays: number; totalDays: number } {
  const start = kstDate(periodStart);
  const totalDays = Math.max(daysBetween(start, kstDate(periodEnd)), 1);
  const usedDays = Math.min(Math.max(daysBetween(start, kstDate(now)) + 1, 0), totalDays);
  return { usedDays, totalDays };
}

/** Last KST date of a window (for Korean texts: "N월 N일까지"). */
export function windowLastDay(windowEndsAt: Date): string {
  return addDays(kstDate(windowEndsAt), -1);
}
