import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { evidenceOf, splitVat, VatAccumulator, lineOf } from '../../src/tax/model';
import { customPeriod, monthsOf, periodChoices, periodInstants, periodOf, quarterOf } from '../../src/tax/periods';

test('세액 is round(합계 × 10/110) per transaction, halves up; 공급가액 = 합계 − 세액; refunds are the mirror image', () => {
  assert.deepEqual(splitVat(11_000), { total: 11_000, supplyAmount: 10_000, vat: 1_000 });
  // 15,500 / 11 = 1,409.09… → 1,409
  assert.deepEqual(splitVat(15_500), { total: 15_500, supplyAmount: 14_091, vat: 1_409 });
  // 5,000 / 11 = 454.54… → 455 (rounded up, not floored)
  assert.deepEqual(splitVat(5_000), { total: 5_000, supplyAmount: 4_545, vat: 455 });
  assert.deepEqual(splitVat(-5_000), { total: -5_000, supplyAmount: -4_545, vat: -455 });
  // 6 / 11 = 0.545… → 1; 5 / 11 = 0.4545… → 0
  assert.equal(splitVat(6).vat, 1);
  assert.equal(splitVat(5).vat, 0);
  assert.deepEqual(splitVat(0), { total: 0, supplyAmount: 0, vat: 0 });
  assert.throws(() => splitVat(10.5), RangeError);
});

test('property: 공급가액 + 세액 = 합계 exactly, the 세액 is the nearest won to 합계/11, and a refund splits as the sale negated', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2_000_000_000 }), (n) => {
      const s = splitVat(n);
      assert.equal(s.supplyAmount + s.vat, n);
      assert.ok(Math.abs(s.vat * 11 - n) <= 5.5, `${n}: ${s.vat}`);
      const r = splitVat(-n);
      assert.equal(r.vat, -s.vat || 0);
      assert.equal(r.supplyAmount, -s.supplyAmount || 0);
    }),
  );
});

test('evidence: cards and easy pays are card sales; transfers and 가상계좌 are 현금영수증 when one was issued, else 기타; other currencies apart', () => {
  const f = { currency: 'KRW', cashReceiptIssued: false, taxInvoiceIssued: false };
  for (const m of ['card', 'kakao_pay', 'naver_pay', 'toss'] as const) assert.equal(evidenceOf({ ...f, method: m }), 'card', m);
  // A card sale keeps its card slip as evidence even if a receipt row existed.
  assert.equal(evidenceOf({ ...f, method: 'card', cashReceiptIssued: true }), 'card');
  for (const m of ['transfer', 'virtual_account'] as const) {
    assert.equal(evidenceOf({ ...f, method: m }), 'other', m);
    assert.equal(evidenceOf({ ...f, method: m, cashReceiptIssued: true }), 'cash_receipt', m);
    assert.equal(evidenceOf({ ...f, method: m, cashReceiptIssued: true, taxInvoiceIssued: true }), 'tax_invoice', m);
  }
  assert.equal(evidenceOf({ ...f, method: 'card', currency: 'USD' }), 'foreign');
});

test('periods: 과세기간 1기 Jan–Jun and 2기 Jul–Dec, quarters, all as KST days [from, to)', () => {
  assert.deepEqual(periodOf('2026-1'), { kind: 'tax_period', code: '2026-1', from: '2026-01-01', to: '2026-07-01', label: '2026년 1기 (1월~6월)' });
  assert.equal(periodOf('2026-2')!.to, '2027-01-01');
  assert.deepEqual([periodOf('2026-Q3')!.from, periodOf('2026-Q3')!.to], ['2026-07-01', '2026-10-01']);
  assert.match(periodOf('2026-Q1')!.label, /1기 예정/);
  assert.equal(periodOf('2026-Q4')!.to, '2027-01-01');
  for (const bad of ['2026-3', '2026-Q5', '2026Q1', '26-1', '']) assert.equal(periodOf(bad), null, bad);
  // 00:00 KST is 15:00 UTC the day before.
  const { start, end } = periodInstants(periodOf('2026-Q3')!);
  assert.equal(start.toISOString(), '2026-06-30T15:00:00.000Z');
  assert.equal(end.toISOString(), '2026-09-30T15:00:00.000Z');
  // 2026-09-30 23:59 KST is still Q3; 2026-10-01 00:00 KST is Q4.
  assert.equal(quarterOf(new Date('2026-09-30T14:59:59.999Z')).code, '2026-Q3');
  assert.equal(quarterOf(new Date('2026-09-30T15:00:00.000Z')).code, '2026-Q4');
  assert.deepEqual(monthsOf(periodOf('2026-2')!), ['2026-07', '2026-08', '2026-09', '2026-10', '2026-11', '2026-12']);
  assert.deepEqual(monthsOf(customPeriod('2026-11-20', '2027-01-02')), ['2026-11', '2026-12', '2027-01']);
  assert.equal(customPeriod('2026-07-01', '2026-10-01').label, '2026-07-01 ~ 2026-09-30');
  // The picker offers no period that has not begun.
  const choices = periodChoices(new Date('2026-08-01T00:00:00Z')).map((p) => p.code);
  assert.deepEqual(choices, ['2026-2', 'Q3', '2026-1', 'Q2', 'Q1'].map((c) => (c.startsWith('Q') ? `2026-${c}` : c)).concat(['2025-2', '2025-Q4', '2025-Q3', '2025-1', '2025-Q2', '2025-Q1']));
});

test('the accumulator: net = sales + refunds per category; 신용카드·현금영수증 발행분 = card + cash_receipt; months cover the period', () => {
  const acc = new VatAccumulator(['2026-07', '2026-08', '2026-09']);
  const base = { currency: 'KRW', taxInvoiceIssued: false, refundId: null };
  acc.add(lineOf({ ...base, kind: 'sale', at: new Date('2026-07-02T00:00:00Z'), orderId: 'o1', amount: 11_000, method: 'card', cashReceiptIssued: false }));
  acc.add(lineOf({ ...base, kind: 'sale', at: new Date('2026-07-03T00:00:00Z'), orderId: 'o2', amount: 5_500, method: 'transfer', cashReceiptIssued: true }));
  acc.add(lineOf({ ...base, kind: 'refund', refundId: 'r1', at: new Date('2026-09-03T00:00:00Z'), orderId: 'o1', amount: 1_100, method: 'card', cashReceiptIssued: false }));
  const t = acc.totals();
  const card = t.categories.find((c) => c.category === 'card')!;
  assert.deepEqual(card.net, { count: 2, total: 9_900, supplyAmount: 9_000, vat: 900 });
  assert.deepEqual(t.cardAndCashReceipt.net, { count: 3, total: 15_400, supplyAmount: 14_000, vat: 1_400 });
  assert.deepEqual(t.overall.refunds, { count: 1, total: -1_100, supplyAmount: -1_000, vat: -100 });
  assert.deepEqual(t.months.map((m) => [m.month, m.net.total]), [['2026-07', 16_500], ['2026-08', 0], ['2026-09', -1_100]]);
});
