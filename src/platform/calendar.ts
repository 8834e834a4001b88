import * as presets from '@hyunbinseo/holidays-kr/all';
import { computedHolidays, LUNAR_LAST_YEAR } from './calendar-kr';

/**
 * Korean calendar time: dates in KST (UTC+9, no daylight saving), business days (no weekend, no public holiday)
 * and the consumer-law windows built on them. Public holidays come from @hyunbinseo/holidays-kr (the official
 * gazette's yearly lists) for the years it covers; later years are computed from the holiday rules with the Korean
 * lunar calendar (src/platform/calendar-kr.ts), which knows every holiday but election days and one-off 임시공휴일.
 * Past the lunar table only weekends would count as days off: `calendarCoverage` says how far it reaches, and the
 * service warns at start when that is less than the next 12 months (`calendarWarning`).
 */

const KST_OFFSET_MS = 9 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

const GAZETTE: Record<string, readonly string[]> = Object.assign({}, ...Object.values(presets as Record<string, Record<string, readonly string[]>>));
/** The last year the gazette lists (the package) cover. */
export const GAZETTE_LAST_YEAR = Math.max(...Object.keys(GAZETTE).map((d) => Number(d.slice(0, 4))));

const computedYears = new Map<number, Record<string, readonly string[]> | null>();
function holidaysOfYear(year: number): Record<string, readonly string[]> | null {
  if (!computedYears.has(year)) computedYears.set(year, computedHolidays(year));
  return computedYears.get(year)!;
}

/** The last KST date whose holidays are known (from the gazette, then computed). */
export function calendarCoverage(): { gazetteUntil: string; computedUntil: string } {
  return { gazetteUntil: `${GAZETTE_LAST_YEAR}-12-31`, computedUntil: `${Math.max(GAZETTE_LAST_YEAR, LUNAR_LAST_YEAR)}-12-31` };
}

/** A warning to log at start when the holiday calendar does not cover the next 12 months from `now`; null when it does. */
export function calendarWarning(now: Date): string | null {
  const needed = addDays(kstDate(now), 366);
  const { computedUntil } = calendarCoverage();
  if (needed <= computedUntil) return null;
  return `the holiday calendar ends on ${computedUntil}: after it only weekends count as days off (withdrawal windows and statutory auto-approvals would count holidays as business days); update @hyunbinseo/holidays-kr and korean-lunar-calendar`;
}

/** The KST calendar date of an instant, as `YYYY-MM-DD`. */
export function kstDate(t: Date): string {
  return new Date(t.getTime() + KST_OFFSET_MS).toISOString().slice(0, 10);
}

/** The instant a KST calendar day starts (00:00 KST). */
export function kstStartOf(date: string): Date {
  return new Date(Date.parse(`${date}T00:00:00.000Z`) - KST_OFFSET_MS);
}

/** The KST date `n` calendar days after `date`. */
export function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00.000Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** The names of the public holidays on a KST date (empty on an ordinary day). */
export function holidayNames(date: string): readonly string[] {
  const year = Number(date.slice(0, 4));
  if (year <= GAZETTE_LAST_YEAR) return GAZETTE[date] ?? [];
  return holidaysOfYear(year)?.[date] ?? [];
}

/** A KST date that is neither a Saturday, a Sunday nor a public holiday. */
export function isBusinessDay(date: string): boolean {
  const dow = new Date(`${date}T00:00:00.000Z`).getUTCDay();
  return dow !== 0 && dow !== 6 && holidayNames(date).length === 0;
}

/** The first business day on or after `date`. */
export function rollToBusinessDay(date: string): string {
  let d = date;
  while (!isBusinessDay(d)) d = addDays(d, 1);
  return d;
}

/**
 * The end of the withdrawal window of a payment (전자상거래법 제17조): W = max(7, refundDays) days after the payment's
 * KST date (the day of payment is not counted), ending at 24:00 KST; a last day that is a weekend or a public
 * holiday rolls to the next business day. Returns the instant the window closes (00:00 KST of the following day).
 */
export function withdrawalWindowEnd(paidAt: Date, refundDays: number): Date {
  const w = Math.max(7, refundDays);
  const lastDay = rollToBusinessDay(addDays(kstDate(paidAt), w));
  return kstStartOf(addDays(lastDay, 1));
}

/** The KST date of the `n`-th business day after the KST date of `t` (the day of `t` itself is not counted). */
export function nthBusinessDayAfter(t: Date, n: number): string {
  let d = kstDate(t);
  for (let i = 0; i < n; ) {
    d = addDays(d, 1);
    if (isBusinessDay(d)) i++;
  }
  return d;
}

/**
 * The end (24:00 KST) of the `n`-th business day after the KST date of `t` (제18조: refund within 3 business days).
 * The day of `t` itself is not counted.
 */
export function businessDaysAfter(t: Date, n: number): Date {
  return kstStartOf(addDays(nthBusinessDayAfter(t, n), 1));
}

/** An instant on a KST date: `hour`:00 KST. */
export function kstAt(date: string, hour: number): Date {
  return new Date(kstStartOf(date).getTime() + hour * 60 * 60 * 1000);
}
