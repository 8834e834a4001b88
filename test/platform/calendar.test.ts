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
