import { kstDate, kstStartOf } from '../platform/calendar';

/**
 * Periods of the 부가세 report, all in Korean time (KST, UTC+9, no daylight saving), each a half-open range of KST
 * calendar days [from, to): `to` is the first day NOT included, so consecutive periods never share an instant.
 *
 * What the law fixes (부가가치세법):
 *   - 제5조 ① 과세기간 of a 일반과세자: 1기 = 1월 1일 ~ 6월 30일, 2기 = 7월 1일 ~ 12월 31일;
 *   - 제48조 ① 예정신고기간: 1기 1월 1일 ~ 3월 31일, 2기 7월 1일 ~ 9월 30일 (a corporation files them; most individuals
 *     are sent a 예정고지 instead, 제48조 ③), and 제49조 ① the 확정신고 covers the whole 과세기간, filed within 25 days
 *     of its end. The report therefore offers each 과세기간 and each calendar quarter (Q1 and Q3 are the 예정신고
 *     periods; Q2 and Q4 are what a 확정신고 adds to them), and any custom range.
 */

export type PeriodKind = 'tax_period' | 'quarter' | 'custom';

export interface VatPeriod {
  kind: PeriodKind;
  /** `2026-1` / `2026-2` (과세기간), `2026-Q3` (quarter), or null for a custom range. */
  code: string | null;
  /** First KST day included (YYYY-MM-DD). */
  from: string;
  /** First KST day NOT included (YYYY-MM-DD). */
  to: string;
  /** Korean label, e.g. `2026년 2기 (7월~12월)`. */
  label: string;
}

const pad = (n: number) => String(n).padStart(2, '0');
const monthStart = (y: number, m: number) => (m > 12 ? `${y + 1}-${pad(m - 12)}-01` : `${y}-${pad(m)}-01`);

export const PERIOD_CODE = /^(\d{4})-(1|2|Q[1-4])$/;

/** A 과세기간 (half 1 or 2) or quarter (Q1..Q4) from its code, or null when the code is not one. */
export function periodOf(code: string): VatPeriod | null {
  const m = PERIOD_CODE.exec(code);
  if (!m) return null;
  const y = Number(m[1]);
  if (y < 2000 || y > 2999) return null;
  if (m[2] === '1' || m[2] === '2') {
    const h = Number(m[2]);
    const first = h === 1 ? 1 : 7;
    return { kind: 'tax_period', code, from: monthStart(y, first), to: monthStart(y, first + 6), label: `${y}년 ${h}기 (${first}월~${first + 5}월)` };
  }
  const q = Number(m[2].slice(1));
  const first = (q - 1) * 3 + 1;
  const note = q === 1 ? '1기 예정' : q === 3 ? '2기 예정' : q === 2 ? '1기 확정분' : '2기 확정분';
  return { kind: 'quarter', code, from: monthStart(y, first), to: monthStart(y, first + 3), label: `${y}년 ${q}분기 (${first}월~${first + 2}월, ${note})` };
}

/** A custom range of KST days [from, to). */
export function customPeriod(from: string, to: string): VatPeriod {
  const last = kstDate(new Date(kstStartOf(to).getTime() - 1));
  return { kind: 'custom', code: null, from, to, label: `${from} ~ ${last}` };
}

/** The quarter holding an instant (KST): the report's default period. */
export function quarterOf(t: Date): VatPeriod {
  const d = kstDate(t);
  const q = Math.floor((Number(d.slice(5, 7)) - 1) / 3) + 1;
  return periodOf(`${d.slice(0, 4)}-Q${q}`)!;
}

/**
 * The periods a picker offers around an instant: this year's and last year's 과세기간 and quarters, newest first,
 * none starting after the instant (a period not begun has nothing to report).
 */
export function periodChoices(now: Date): VatPeriod[] {
  const y = Number(kstDate(now).slice(0, 4));
  const today = kstDate(now);
  const out: VatPeriod[] = [];
  for (const year of [y, y - 1]) {
    for (const c of ['2', 'Q4', 'Q3', '1', 'Q2', 'Q1']) {
      const p = periodOf(`${year}-${c}`)!;
      if (p.from <= today) out.push(p);
    }
  }
  return out;
}

/** The instants bounding a period: [start, end). */
export function periodInstants(p: Pick<VatPeriod, 'from' | 'to'>): { start: Date; end: Date } {
  return { start: kstStartOf(p.from), end: kstStartOf(p.to) };
}

/** The KST months a period touches (`YYYY-MM`), in order: the chart's bars. */
export function monthsOf(p: Pick<VatPeriod, 'from' | 'to'>): string[] {
  const out: string[] = [];
  let y = Number(p.from.slice(0, 4));
  let m = Number(p.from.slice(5, 7));
  while (`${y}-${pad(m)}-01` < p.to) {
    out.push(`${y}-${pad(m)}`);
    m += 1;
    if (m > 12) {
      m = 1;
      y += 1;
    }
  }
  return out;
}

/** The KST month (`YYYY-MM`) of an instant. */
export const kstMonth = (t: Date): string => kstDate(t).slice(0, 7);
