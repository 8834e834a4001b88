import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { signIn } from '../dashboard/helpers';
import { insertPaidOrder, product, refund } from '../refunds/factory';

// The dashboard's 부가세 page: the same figures as the console API, the drill-down and CSV behind each line, the
// period picker (a custom range is typed with its LAST day), for owners and admins only.

test('dashboard 부가세 page: table by category, months, drill-down, CSV, picker, roles', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '김사장' });
  const s = owner.store;
  const p = await product(t, s, { price: 10_000 });
  // Q3 2026: a card sale of 22,000 (2,000), a 카카오페이 sale of 5,500 (500), a 계좌이체 of 3,300 without 현금영수증 (300),
  // a refund of 11,000 of the card sale on 09-10 (−1,000); a live sale that must not show.
  const card = await insertPaidOrder(t, s.storeId, p.id, { amount: 22_000, paidAt: new Date('2026-07-10T03:00:00Z') });
  const kakao = await insertPaidOrder(t, s.storeId, p.id, { amount: 5_500, method: 'kakao_pay', paidAt: new Date('2026-08-10T03:00:00Z') });
  const transfer = await insertPaidOrder(t, s.storeId, p.id, { amount: 3_300, method: 'transfer', paidAt: new Date('2026-09-01T03:00:00Z') });
  await insertPaidOrder(t, s.storeId, p.id, { amount: 99_000, mode: 'live', paidAt: new Date('2026-08-01T03:00:00Z') });
  t.clock.set('2026-09-10T03:00:00Z');
  assert.equal((await refund(t, s.key, card, { amount: 11_000 })).statusCode, 200);
  t.clock.set('2026-11-01T00:00:00Z');
  const admin = await signIn(t, { store: s, role: 'admin', name: '이관리' });
  const support = await signIn(t, { store: s, role: 'support' });

  await tc.test('the table carries each 신고서 line with 합계, 공급가액 and 세액; the months add up; test mode only', async () => {
    const res = await t.app.inject({ url: '/dashboard/vat?period=2026-Q3', headers: owner.headers });
    assert.equal(res.statusCode, 200, res.body);
    const row = (c: string) => new RegExp(`data-category="${c}"[^]*?</tr>`).exec(res.body)?.[0] ?? '';
    assert.match(row('card'), /판매 2 · 환불 1[^]*16,500원[^]*15,000원[^]*1,500원/);
    assert.match(row('card_and_cash_receipt'), /신용카드·현금영수증 발행분[^]*16,500원/);
    assert.match(row('other'), /3,300원[^]*3,000원[^]*300원/);
    assert.match(row('tax_invoice'), /0원/);
    assert.match(row('overall'), /19,800원[^]*18,000원[^]*1,800원/);
    assert.doesNotMatch(res.body, /99,000원/, 'the live sale is not in the test-mode report');
    assert.match(res.body, /2026년 3분기 \(7월~9월, 2기 예정\)/);
    assert.match(res.body, /<svg class="chart"[^>]*aria-label="월별 매출[^"]*2026-07 22,000원, 2026-08 5,500원, 2026-09 -7,700원/);
    // The refund outweighs September's sales: the month shows its negative total in the table.
    assert.match(res.body, /<td>2026-09<\/td><td class="num">-7,700원<\/td><td class="num wide">-7,000원<\/td><td class="num">-700원<\/td>/);
    assert.match(res.body, /href="\/dashboard\/vat\/lines\?period=2026-Q3&amp;category=card"/);
    assert.match(res.body, /href="\/dashboard\/vat\/export.csv\?period=2026-Q3"/);
    assert.match(res.body, /<a href="\/dashboard\/vat" aria-current="page">부가세<\/a>/);
  });

  await tc.test('the drill-down lists the card line\'s sales and refund with links to the orders', async () => {
    const res = await t.app.inject({ url: '/dashboard/vat/lines?period=2026-Q3&category=card', headers: admin.headers });
    assert.equal(res.statusCode, 200);
    const rows = [...res.body.matchAll(/<tr data-order-id="([^"]+)" data-kind="(\w+)">/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(rows, [[card, 'sale'], [kakao, 'sale'], [card, 'refund']]);
    assert.match(res.body, new RegExp(`href="/dashboard/orders/${card}"`));
    assert.match(res.body, /data-kind="refund">[^]*?-11,000원[^]*?-10,000원[^]*?-1,000원/);
    assert.doesNotMatch(res.body, new RegExp(transfer), 'the 기타 매출 sale is not a card line');
    assert.match(res.body, /1 \/ 1 페이지 · 총 3건/);
  });

  await tc.test('the CSV is the period\'s lines, with a BOM, and its download is audited', async () => {
    const res = await t.app.inject({ url: '/dashboard/vat/export.csv?period=2026-Q3', headers: owner.headers });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-disposition'], 'attachment; filename="vat-test-2026-Q3.csv"');
    assert.ok(res.body.startsWith('\uFEFF일자(KST),구분,주문번호'));
    assert.equal(res.body.trim().split('\r\n').length, 1 + 4);
    const audit = await t.db.selectFrom('audit_log').selectAll().where('store_id', '=', s.storeId).where('action', '=', 'vat.exported').execute();
    assert.equal(audit.length, 1);
  });

  await tc.test('a custom range is typed with its last day included; a wrong one is explained in Korean', async () => {
    const res = await t.app.inject({ url: '/dashboard/vat?period=custom&from=2026-09-01&to=2026-09-01', headers: owner.headers });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /2026-09-01 ~ 2026-09-01/);
    assert.match(new RegExp('data-category="overall"[^]*?</tr>').exec(res.body)![0], /3,300원/);
    const bad = await t.app.inject({ url: '/dashboard/vat?period=custom&from=2026-09-10&to=2026-09-01', headers: owner.headers });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /종료일\(to\)은 시작일\(from\)보다 뒤여야 합니다/);
  });

  await tc.test('support staff neither see the section nor open it', async () => {
    const home = await t.app.inject({ url: '/dashboard/orders', headers: support.headers });
    assert.doesNotMatch(home.body, /href="\/dashboard\/vat"/);
    const res = await t.app.inject({ url: '/dashboard/vat', headers: support.headers });
    assert.equal(res.statusCode, 403);
    const csv = await t.app.inject({ url: '/dashboard/vat/export.csv', headers: support.headers });
    assert.equal(csv.statusCode, 403);
  });
});
