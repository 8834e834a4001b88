import * as presets from '@hyunbinseo/holidays-kr/all';

/**
 * Korean calendar time: dates in KST (UTC+9, no daylight saving), business days (no weekend, no public holiday)
 * and the consumer-law windows built on them. Public holidays come from @hyunbinseo/holidays-kr (the official
 * gazette's yearly lists); for a year the package does not cover yet, only weekends count as days off.
 */

const KST_OFFSET_MS = 9 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

const HOLIDAYS: Record<string, readonly string[]> = Object.assign({}, ...Object.values(presets as Record<string, Record<string, readonly string[]>>));

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
  return HOLIDAYS[date] ?? [];
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
