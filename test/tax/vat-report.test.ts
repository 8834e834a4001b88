import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { refund } from '../refunds/factory';
import { ownerGet, payWith } from './helpers';

// A quarter worked by hand: 2026년 3분기 (2기 예정신고, 2026-07-01 ~ 2026-09-30 KST), every order paid through the
// real checkout on the simulator at a set time, refunds through the refund API. Each line's 세액 is round(합계/11).

let t: TestApp;
let s: TestStore;
const ids: Record<string, string> = {};
const at = (iso: string) => t.clock.set(iso);

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  // Q2: a card sale of 11,000 on 06-28 (세액 1,000), refunded in full on 07-02, in Q3.
  at('2026-06-28T03:00:00Z');
  ids.june = await payWith(t, s, 11_000, 'card');
  // 1. card 33,000 on 07-05: 세액 33,000/11 = 3,000, 공급가액 30,000
  at('2026-07-05T01:00:00Z');
  ids.card1 = await payWith(t, s, 33_000, 'card');
  at('2026-07-02T01:00:00Z'); // the Q2 order's refund, in Q3 (time need not move forward between orders and refunds)
  assert.equal((await refund(t, s.key, ids.june, { reason: '전액 환불' })).statusCode, 200);
  // 2. card 15,500 on 08-10: 15,500/11 = 1,409.09 → 1,409, 공급가액 14,091
  at('2026-08-10T01:00:00Z');
  ids.card2 = await payWith(t, s, 15_500, 'card');
  // 3. 카카오페이 9,900 on 08-20: 900 / 9,000 (an easy pay counts as a card sale)
  at('2026-08-20T01:00:00Z');
  ids.kakao = await payWith(t, s, 9_900, 'kakao_pay');
  // partial refund of 2. on 08-25: −5,000, 세액 5,000/11 = 454.5 → −455, 공급가액 −4,545
  at('2026-08-25T01:00:00Z');
  assert.equal((await refund(t, s.key, ids.card2, { amount: 5_000, reason: '부분 환불' })).statusCode, 200);
  // 4. 계좌이체 12,345 with a 현금영수증 (소득공제) on 09-01: 12,345/11 = 1,122.27 → 1,122, 공급가액 11,223
  at('2026-09-01T01:00:00Z');
  ids.transferReceipt = await payWith(t, s, 12_345, 'transfer', { cashReceiptType: 'income', cashReceiptNumber: '010-1234-5678' });
  // 5. 가상계좌 50,000 with a 현금영수증 (지출증빙), deposited on 09-15: 50,000/11 = 4,545.45 → 4,545, 공급가액 45,455
  at('2026-09-15T01:00:00Z');
  ids.va = await payWith(t, s, 50_000, 'virtual_account', { cashReceiptType: 'expense', cashReceiptNumber: '123-45-67891' });
  // 6. 계좌이체 7,777 without a 현금영수증 on 09-20: 기타 매출, 7,777/11 = 707 exactly, 공급가액 7,070
  at('2026-09-20T01:00:00Z');
  ids.transferPlain = await payWith(t, s, 7_777, 'transfer');
  // 7. card 20,000 at 09-30 23:30 KST (14:30 UTC), the quarter's last half hour: 20,000/11 = 1,818.18 → 1,818, 공급가액 18,182
  at('2026-09-30T14:30:00Z');
  ids.lastHalfHour = await payWith(t, s, 20_000, 'card');
  // 8. card 10,000 at 10-01 00:00 KST (09-30 15:00 UTC): Q4, not Q3. 909 / 9,091
  at('2026-09-30T15:00:00Z');
  ids.october = await payWith(t, s, 10_000, 'card');
  // a partial refund of 4. in the next period (10-05): −2,345 in Q4 as 현금영수증, 2,345/11 = 213.18 → −213, 공급가액 −2,132
  at('2026-10-05T01:00:00Z');
  assert.equal((await refund(t, s.key, ids.transferReceipt, { amount: 2_345, reason: '부분 환불' })).statusCode, 200);
  at('2026-11-01T00:00:00Z');
});
after(async () => {
  await t.close();
});

const fig = (count: number, total: number, supplyAmount: number, vat: number) => ({ count, total, supplyAmount, vat });

test('the hand-worked quarter: 2026-Q3 by category, with the Q2 sale\'s refund in Q3 and the Q3 sale\'s refund left to Q4', async () => {
  const res = await ownerGet(t, s, '/admin/v1/tax/vat-report?mode=test&period=2026-Q3');
  assert.equal(res.statusCode, 200, res.body);
  const r = res.json();
  assert.deepEqual(r.period, { kind: 'quarter', code: '2026-Q3', from: '2026-07-01', to: '2026-10-01', label: '2026년 3분기 (7월~9월, 2기 예정)' });
  const cat = (c: string) => r.categories.find((x: any) => x.category === c);
  assert.deepEqual(r.categories.map((c: any) => c.category), ['tax_invoice', 'card', 'cash_receipt', 'other', 'foreign']);
  // card: 33,000 + 15,500 + 9,900 + 20,000 = 78,400; 세액 3,000 + 1,409 + 900 + 1,818 = 7,127; 공급가액 71,273
  assert.deepEqual(cat('card').sales, fig(4, 78_400, 71_273, 7_127));
  // refunds: −11,000 (−1,000) of the June order and −5,000 (−455) of 2.
  assert.deepEqual(cat('card').refunds, fig(2, -16_000, -14_545, -1_455));
  assert.deepEqual(cat('card').net, fig(6, 62_400, 56_728, 5_672));
  // 현금영수증: 12,345 + 50,000 = 62,345; 세액 1,122 + 4,545 = 5,667; the 10-05 refund is not in Q3
  assert.deepEqual(cat('cash_receipt').sales, fig(2, 62_345, 56_678, 5_667));
  assert.deepEqual(cat('cash_receipt').refunds, fig(0, 0, 0, 0));
  assert.deepEqual(cat('other').net, fig(1, 7_777, 7_070, 707));
  // No 세금계산서 is issued by this service yet; nothing is foreign.
  assert.deepEqual(cat('tax_invoice').net, fig(0, 0, 0, 0));
  assert.deepEqual(cat('foreign').net, fig(0, 0, 0, 0));
  // 신용카드·현금영수증 발행분 = card + 현금영수증: 62,400 + 62,345 = 124,745; 세액 5,672 + 5,667 = 11,339
  assert.deepEqual(r.cardAndCashReceipt.net, fig(8, 124_745, 113_406, 11_339));
  // All: 124,745 + 7,777 = 132,522; 세액 11,339 + 707 = 12,046; 공급가액 120,476
  assert.deepEqual(r.overall.net, fig(9, 132_522, 120_476, 12_046));
  // By month: July 33,000 − 11,000; August 15,500 + 9,900 − 5,000; September 12,345 + 50,000 + 7,777 + 20,000
  assert.deepEqual(r.months, [
    { month: '2026-07', net: fig(2, 22_000, 20_000, 2_000) },
    { month: '2026-08', net: fig(3, 20_400, 18_546, 1_854) },
    { month: '2026-09', net: fig(4, 90_122, 81_930, 8_192) },
  ]);
});

test('the next quarter carries the October sale and the refund of the September 현금영수증 sale, in its category', async () => {
  const r = (await ownerGet(t, s, '/admin/v1/tax/vat-report?mode=test&period=2026-Q4')).json();
  const cat = (c: string) => r.categories.find((x: any) => x.category === c);
  assert.deepEqual(cat('card').net, fig(1, 10_000, 9_091, 909));
  assert.deepEqual(cat('cash_receipt').refunds, fig(1, -2_345, -2_132, -213));
  // 2기 (July–December) is the two quarters together, to the won.
  const half = (await ownerGet(t, s, '/admin/v1/tax/vat-report?mode=test&period=2026-2')).json();
  assert.deepEqual(half.overall.net, fig(11, 132_522 + 10_000 - 2_345, 120_476 + 9_091 - 2_132, 12_046 + 909 - 213));
  // A custom range [2026-09-30, 2026-10-01) holds only the sale of the last half hour.
  const day = (await ownerGet(t, s, '/admin/v1/tax/vat-report?mode=test&from=2026-09-30&to=2026-10-01')).json();
  assert.deepEqual(day.overall.net, fig(1, 20_000, 18_182, 1_818));
  assert.equal(day.period.label, '2026-09-30 ~ 2026-09-30');
});

test('the drill-down lists the lines behind each figure, oldest first, paginated; their sums are the figures', async () => {
  const res = await ownerGet(t, s, '/admin/v1/tax/vat-report/lines?mode=test&period=2026-Q3&category=card&limit=4');
  assert.equal(res.statusCode, 200, res.body);
  const p1 = res.json();
  assert.equal(p1.total, 6);
  assert.deepEqual(p1.data.map((l: any) => [l.kind, l.orderId, l.total, l.vat]), [
    ['refund', ids.june, -11_000, -1_000],
    ['sale', ids.card1, 33_000, 3_000],
    ['sale', ids.card2, 15_500, 1_409],
    ['sale', ids.kakao, 9_900, 900],
  ]);
  assert.equal(p1.data[0].date, '2026-07-02');
  assert.match(p1.data[0].refundId, /^rf_/);
  const p2 = (await ownerGet(t, s, '/admin/v1/tax/vat-report/lines?mode=test&period=2026-Q3&category=card&limit=4&page=2')).json();
  assert.deepEqual(p2.data.map((l: any) => [l.kind, l.orderId, l.total]), [['refund', ids.card2, -5_000], ['sale', ids.lastHalfHour, 20_000]]);
  const all = [...p1.data, ...p2.data];
  assert.equal(all.reduce((a: number, l: any) => a + l.total, 0), 62_400);
  assert.equal(all.reduce((a: number, l: any) => a + l.vat, 0), 5_672);
  const other = (await ownerGet(t, s, '/admin/v1/tax/vat-report/lines?mode=test&period=2026-Q3&category=other')).json();
  assert.deepEqual(other.data.map((l: any) => [l.orderId, l.method, l.supplyAmount]), [[ids.transferPlain, 'transfer', 7_070]]);
  const refunds = (await ownerGet(t, s, '/admin/v1/tax/vat-report/lines?mode=test&period=2026-Q3&kind=refund')).json();
  assert.equal(refunds.total, 2);
});

test('the CSV: UTF-8 with a BOM, one row per sale or refund, columns that sum to the report', async () => {
  const res = await ownerGet(t, s, '/admin/v1/tax/vat-report.csv?mode=test&period=2026-Q3');
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
  assert.equal(res.headers['content-disposition'], 'attachment; filename="vat-test-2026-Q3.csv"');
  assert.equal(res.rawPayload.subarray(0, 3).toString('hex'), 'efbbbf', 'starts with the UTF-8 byte-order mark');
  const lines = res.body.replace(/^\uFEFF/, '').split('\r\n').filter(Boolean);
  assert.equal(lines[0], '일자(KST),구분,주문번호,환불번호,결제 수단,분류,합계(공급대가),공급가액,세액,시각(UTC)');
  assert.equal(lines.length, 1 + 9);
  const rows = lines.slice(1).map((l) => l.split(','));
  assert.deepEqual(rows[0].slice(0, 9), ['2026-07-02', '환불', ids.june, rows[0][3], '카드', '신용카드 (간편결제 포함)', '-11000', '-10000', '-1000']);
  const sum = (i: number) => rows.reduce((a, r) => a + Number(r[i]), 0);
  assert.deepEqual([sum(6), sum(7), sum(8)], [132_522, 120_476, 12_046]);
  assert.ok(rows.some((r) => r[0] === '2026-09-30' && r[2] === ids.lastHalfHour), 'the 23:30 KST sale is dated by its KST day');
  assert.ok(rows.some((r) => r[2] === ids.va && r[4] === '가상계좌' && r[5] === '현금영수증'));
});

test('test and live mode are never mixed; refused periods answer VALIDATION_FAILED in Korean; the owner token is required', async () => {
  const live = (await ownerGet(t, s, '/admin/v1/tax/vat-report?mode=live&period=2026-Q3')).json();
  assert.deepEqual(live.overall.net, fig(0, 0, 0, 0));
  const other = await createTestStore(t);
  const theirs = (await ownerGet(t, other, '/admin/v1/tax/vat-report?mode=test&period=2026-Q3')).json();
  assert.equal(theirs.overall.sales.count, 0, 'another store sees none of these orders');
  for (const [q, field, msg] of [
    ['period=2026-Q5', 'period', /2026-Q1~Q4/],
    ['period=2026-Q3&from=2026-07-01&to=2026-08-01', 'period', /하나만/],
    ['from=2026-07-01', 'to', /함께/],
    ['from=2026-02-30&to=2026-03-01', 'from', /실제 날짜/],
    ['from=2026-07-01&to=2026-07-01', 'to', /뒤여야/],
    ['from=2025-01-01&to=2026-07-01', 'to', /1년/],
  ] as const) {
    const res = await ownerGet(t, s, `/admin/v1/tax/vat-report?mode=test&${q}`);
    assert.equal(res.statusCode, 400, q);
    assert.equal(res.json().code, 'VALIDATION_FAILED', q);
    assert.equal(res.json().details.fields[0].field, field, q);
    assert.match(res.json().details.fields[0].message, msg, q);
  }
  // Without a period: the current quarter (the clock is at 2026-11-01).
  assert.equal((await ownerGet(t, s, '/admin/v1/tax/vat-report?mode=test')).json().period.code, '2026-Q4');
  for (const url of ['/admin/v1/tax/vat-report?mode=test', '/admin/v1/tax/vat-report/lines?mode=test', '/admin/v1/tax/vat-report.csv?mode=test']) {
    const res = await t.app.inject({ url });
    assert.equal(res.statusCode, 401, url);
    assert.equal(res.json().code, 'ADMIN_UNAUTHORIZED', url);
  }
});
