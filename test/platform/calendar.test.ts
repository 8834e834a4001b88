import { test } from 'node:test';
import assert from 'node:assert/strict';
import { businessDaysAfter, holidayNames, isBusinessDay, kstDate, withdrawalWindowEnd } from '../../src/platform/calendar';

test('KST dates: 15:00 UTC is already the next day in Korea', () => {
  assert.equal(kstDate(new Date('2026-11-01T14:59:59.999Z')), '2026-11-01');
  assert.equal(kstDate(new Date('2026-11-01T15:00:00.000Z')), '2026-11-02');
});

test('weekends and public holidays (추석 2026) are not business days', () => {
  assert.deepEqual(holidayNames('2026-09-25'), ['추석']);
  assert.equal(isBusinessDay('2026-09-24'), false); // 추석 전날 (Thursday)
  assert.equal(isBusinessDay('2026-09-26'), false); // Saturday and 추석 다음 날
  assert.equal(isBusinessDay('2026-09-27'), false); // Sunday
  assert.equal(isBusinessDay('2026-09-28'), true);
  assert.equal(isBusinessDay('2026-11-23'), true);
});

test('3 business days after a request skip the 추석 holidays and the weekend', () => {
  // Wednesday 2026-09-23 10:00 KST → Mon 28 (1), Tue 29 (2), Wed 30 (3) → ends 24:00 KST on the 30th
  assert.equal(businessDaysAfter(new Date('2026-09-23T01:00:00Z'), 3).toISOString(), '2026-09-30T15:00:00.000Z');
  // An ordinary week: Monday → Thursday 24:00 KST
  assert.equal(businessDaysAfter(new Date('2026-11-23T01:00:00Z'), 3).toISOString(), '2026-11-26T15:00:00.000Z');
});

test('the withdrawal window is max(7, refundDays) days, ending 24:00 KST, rolled past weekends and holidays', () => {
  // Paid Sunday 2026-11-01 09:00 KST: 7 days → Sunday 11-08 → rolls to Monday 11-09, closes 11-10 00:00 KST
  assert.equal(withdrawalWindowEnd(new Date('2026-11-01T00:00:00Z'), 7).toISOString(), '2026-11-09T15:00:00.000Z');
  // refundDays below 7 still gives 7; paid Monday 11-02 → Monday 11-09
  assert.equal(withdrawalWindowEnd(new Date('2026-11-02T00:00:00Z'), 3).toISOString(), '2026-11-09T15:00:00.000Z');
  // A longer agreed period replaces the 7 days: 14 → Monday 11-16
  assert.equal(withdrawalWindowEnd(new Date('2026-11-02T00:00:00Z'), 14).toISOString(), '2026-11-16T15:00:00.000Z');
  // Paid Saturday 2026-09-19 → 09-26 (Saturday, 추석 다음 날) → Monday 09-28
  assert.equal(withdrawalWindowEnd(new Date('2026-09-19T03:00:00Z'), 7).toISOString(), '2026-09-28T15:00:00.000Z');
});

// Issue 29: the gazette lists (@hyunbinseo/holidays-kr) end in 2027; later years are computed from the holiday rules
// and the Korean lunar calendar (src/platform/calendar-kr.ts), so holidays never turn into business days.
import * as gazette from '@hyunbinseo/holidays-kr/all';
import { computedHolidays, lunarToSolar } from '../../src/platform/calendar-kr';
import { calendarCoverage, calendarWarning } from '../../src/platform/calendar';

/** What no rule can foresee: election days and one-off temporary holidays. */
const unforeseeable = (name: string) => /선거|임시공휴일/.test(name);

test('the computed calendar reproduces the gazette\'s lists of 2026 and 2027 exactly (but elections and 임시공휴일)', () => {
  for (const year of [2026, 2027]) {
    const listed = (gazette as unknown as Record<string, Record<string, readonly string[]>>)[`y${year}`];
    const expected = Object.fromEntries(Object.entries(listed).map(([d, ns]) => [d, ns.filter((n) => !unforeseeable(n))]).filter(([, ns]) => ns.length > 0));
    assert.deepEqual(computedHolidays(year), expected, String(year));
  }
});

test('before 노동절 and 제헌절 returned (2026), the lunar holidays and substitutes of 2023–2025 match the gazette too', () => {
  for (const year of [2023, 2024, 2025]) {
    const listed = (gazette as unknown as Record<string, Record<string, readonly string[]>>)[`y${year}`];
    const computed = computedHolidays(year)!;
    for (const [date, names] of Object.entries(listed)) {
      for (const n of names.filter((x) => !unforeseeable(x))) assert.ok(computed[date]?.includes(n), `${year}: ${date} ${n}`);
    }
  }
});

test('years after the gazette: 설날 2028, 추석 2029 and 부처님 오신 날 2030 are holidays, with their substitutes', () => {
  // 설날 2028 on the Korean (KASI) calendar: lunar 1-1 = 2028-01-27 (Thursday; China's is a day earlier);
  // 추석 2029: lunar 8-15 = 2029-09-22 (Saturday).
  assert.equal(lunarToSolar(2028, 1, 1), '2028-01-27');
  assert.deepEqual(holidayNames('2028-01-27'), ['설날']);
  assert.equal(isBusinessDay('2028-01-26'), false);
  assert.equal(isBusinessDay('2028-01-28'), false);
  // 추석 2028 (10-03) shares its day with 개천절: one substitute each, Thu 10-05 and Fri 10-06.
  assert.deepEqual(holidayNames('2028-10-05'), ['대체공휴일(추석)']);
  assert.deepEqual(holidayNames('2028-10-06'), ['대체공휴일(개천절)']);
  assert.equal(lunarToSolar(2029, 8, 15), '2029-09-22');
  // 추석 2029 is Fri 09-21 – Sun 09-23: the Sunday gives Monday 09-24 as 대체공휴일(추석).
  assert.deepEqual(holidayNames('2029-09-24'), ['대체공휴일(추석)']);
  // 부처님 오신 날 2030 (lunar 4-8) and a fixed day on a weekend: 광복절 2032 is a Sunday → Monday 08-16.
  const buddha2030 = lunarToSolar(2030, 4, 8)!;
  assert.ok(holidayNames(buddha2030).includes('부처님 오신 날'));
  assert.deepEqual(holidayNames('2032-08-16'), ['대체공휴일(광복절)']);
  // A statutory auto-approval counted across 설날 2028 skips it: filed Monday 01-24 → Tue 01-25 (1), Mon 01-31 (2), Tue 02-01 (3).
  assert.equal(businessDaysAfter(new Date('2028-01-24T01:00:00Z'), 3).toISOString(), '2028-02-01T15:00:00.000Z');
});

test('coverage: computed holidays reach 2049; the start-up warning fires only when the next 12 months are not covered', () => {
  assert.equal(calendarCoverage().gazetteUntil, '2027-12-31');
  assert.equal(calendarCoverage().computedUntil, '2049-12-31');
  assert.equal(calendarWarning(new Date('2026-11-28T00:00:00Z')), null);
  assert.equal(calendarWarning(new Date('2048-12-30T00:00:00Z')), null);
  assert.match(calendarWarning(new Date('2049-06-01T00:00:00Z'))!, /holiday calendar ends on 2049-12-31/);
});
