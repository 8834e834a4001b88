import KoreanLunarCalendar from 'korean-lunar-calendar';

/**
 * Korean public holidays computed from the rules (관공서의 공휴일에 관한 규정), for the years the official gazette's
 * lists (@hyunbinseo/holidays-kr) do not cover yet. The lunar dates (설날, 부처님 오신 날, 추석) come from
 * korean-lunar-calendar, a conversion table following the Korea Astronomy and Space Science Institute (KASI) standard
 * (the Korean lunar calendar, which can differ from the Chinese one); it covers solar years up to LUNAR_LAST_YEAR.
 *
 * The rules, as in force from 2026 (the gazette lists of 2026 and 2027 are reproduced exactly by them, apart from
 * election days and one-off 임시공휴일, which no rule can foresee; test/platform/calendar.test.ts checks it):
 *   - fixed days: 1월 1일, 3ㆍ1절, 노동절 (5-01), 어린이날, 현충일, 제헌절 (7-17), 광복절, 개천절, 한글날, 기독탄신일;
 *   - lunar: 설날 전날/설날/설날 다음 날 (12-30 or the last day of the 12th month, 1-1, 1-2), 부처님 오신 날 (4-8),
 *     추석 전날/추석/추석 다음 날 (8-14, 8-15, 8-16);
 *   - 대체공휴일: 설날 and 추석 — a day of the three on a Sunday or on another holiday gives the first following day
 *     that is neither a Sunday nor a holiday; 3ㆍ1절, 노동절, 어린이날, 부처님 오신 날, 제헌절, 광복절, 개천절, 한글날 and
 *     기독탄신일 — on a Saturday, a Sunday or another holiday, the first following weekday that is no holiday;
 *     1월 1일 and 현충일 have none.
 */

export const LUNAR_LAST_YEAR = 2049;

type Holidays = Record<string, string[]>;

const pad = (n: number) => String(n).padStart(2, '0');
const iso = (y: number, m: number, d: number) => `${y}-${pad(m)}-${pad(d)}`;
const addDays = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00.000Z`) + n * 86_400_000).toISOString().slice(0, 10);
const dow = (date: string) => new Date(`${date}T00:00:00.000Z`).getUTCDay();

/** The solar date of a lunar date (not a leap month), or null outside the table's range. */
export function lunarToSolar(year: number, month: number, day: number): string | null {
  const c = new KoreanLunarCalendar();
  if (!c.setLunarDate(year, month, day, false)) return null;
  const s = c.getSolarCalendar();
  return iso(s.year, s.month, s.day);
}

const SUBSTITUTE_WEEKEND = ['3ㆍ1절', '노동절', '어린이날', '부처님 오신 날', '제헌절', '광복절', '개천절', '한글날', '기독탄신일'];

/** The public holidays of a solar year by the rules above (without election days and 임시공휴일); null past the lunar table. */
export function computedHolidays(year: number): Holidays | null {
  if (year > LUNAR_LAST_YEAR) return null;
  const seollal = lunarToSolar(year, 1, 1);
  const buddha = lunarToSolar(year, 4, 8);
  const chuseok = lunarToSolar(year, 8, 15);
  if (!seollal || !buddha || !chuseok) return null;
  const out: Holidays = {};
  const add = (date: string, name: string) => (out[date] ??= []).push(name);
  add(iso(year, 1, 1), '1월 1일');
  add(addDays(seollal, -1), '설날 전날');
  add(seollal, '설날');
  add(addDays(seollal, 1), '설날 다음 날');
  add(iso(year, 3, 1), '3ㆍ1절');
  add(iso(year, 5, 1), '노동절');
  add(iso(year, 5, 5), '어린이날');
  add(buddha, '부처님 오신 날');
  add(iso(year, 6, 6), '현충일');
  add(iso(year, 7, 17), '제헌절');
  add(iso(year, 8, 15), '광복절');
  add(addDays(chuseok, -1), '추석 전날');
  add(chuseok, '추석');
  add(addDays(chuseok, 1), '추석 다음 날');
  add(iso(year, 10, 3), '개천절');
  add(iso(year, 10, 9), '한글날');
  add(iso(year, 12, 25), '기독탄신일');

  const base = new Set(Object.keys(out));
  const taken = new Set(base);
  const substitutes: Array<[string, string]> = [];
  const next = (from: string, skipSaturday: boolean) => {
    let d = addDays(from, 1);
    while (taken.has(d) || dow(d) === 0 || (skipSaturday && dow(d) === 6)) d = addDays(d, 1);
    taken.add(d);
    return d;
  };
  // 설날 and 추석: one substitute when any of the three days falls on a Sunday or on another holiday.
  for (const [name, mid] of [['설날', seollal], ['추석', chuseok]] as const) {
    const days = [addDays(mid, -1), mid, addDays(mid, 1)];
    if (days.some((d) => dow(d) === 0 || out[d].length > 1)) substitutes.push([next(days[2], false), `대체공휴일(${name})`]);
  }
  // The others: on a weekend, or sharing the day with another holiday (one substitute per extra holiday that day).
  for (const date of [...base].sort()) {
    const eligible = out[date].filter((n) => SUBSTITUTE_WEEKEND.includes(n));
    if (eligible.length === 0) continue;
    const weekend = dow(date) === 0 || dow(date) === 6;
    const count = weekend ? eligible.length : Math.min(eligible.length, out[date].length - 1);
    for (let i = 0; i < count; i++) substitutes.push([next(date, true), `대체공휴일(${eligible[eligible.length - 1 - i]})`]);
  }
  for (const [d, n] of substitutes) add(d, n);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}
