import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer } from '../helpers/app';
import { signIn, postForm } from './helpers';
import { insertPaidOrder, insertActiveRequest, refundRows } from '../refunds/factory';
import { createProduct } from '../checkout/factory';

/** The hidden per-render idempotency key of the order page's refund form. */
const idemOf = (body: string) => /name="idem" value="([^"]+)"/.exec(body)?.[1] ?? '';

async function auditOf(t: { db: any }, storeId: string, action: string) {
  return t.db.selectFrom('audit_log').selectAll().where('store_id', '=', storeId).where('action', '=', action).orderBy('created_at').execute();
}

test('dashboard orders: search, CSV, detail and refunds with the API\'s rules, audited, guarded by role', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '김사장' });
  const storeId = owner.storeId;
  const p = await createProduct(t, owner.store, { name: '전자책', price: 15_000 });
  const order = await insertPaidOrder(t, storeId, p.id, { amount: 15_000 });
  await t.db.updateTable('orders').set({ buyer_name: '=HYPERLINK("evil")', buyer_email: 'kim@example.com' }).where('id', '=', order).execute();
  const support = await signIn(t, { store: owner.store, role: 'support', name: '이지원' });
  const developer = await signIn(t, { store: owner.store, role: 'developer', name: '박개발' });

  await tc.test('the list finds an order by e-mail part and by id; another filter leaves it out', async () => {
    const hit = await t.app.inject({ url: '/dashboard/orders?q=KIM%40example', headers: owner.headers });
    assert.equal(hit.statusCode, 200);
    assert.match(hit.body, new RegExp(`data-order-id="${order}"`));
    const miss = await t.app.inject({ url: '/dashboard/orders?status=refunded', headers: owner.headers });
    assert.doesNotMatch(miss.body, new RegExp(order));
    assert.match(miss.body, /조건에 맞는 주문이 없습니다/);
  });

  await tc.test('CSV export: BOM, header, the formula-looking name defused, and the export is audited', async () => {
    const res = await t.app.inject({ url: '/dashboard/orders/export.csv?q=kim', headers: support.headers });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /text\/csv; charset=utf-8/);
    assert.match(String(res.headers['content-disposition']), /attachment; filename="orders-test-\d{8}\.csv"/);
    assert.ok(res.body.startsWith('\uFEFF주문번호,'));
    assert.ok(res.body.includes(`"'=HYPERLINK(""evil"")"`), res.body);
    const entries = await auditOf(t, storeId, 'orders.exported');
    assert.equal(entries.length, 1);
    assert.equal(entries[0].actor_name, '이지원');
  });

  await tc.test('a developer cannot open orders or refund (403 page); nothing moves', async () => {
    const list = await t.app.inject({ url: '/dashboard/orders', headers: developer.headers });
    assert.equal(list.statusCode, 403);
    assert.match(list.body, /접근 권한이 없습니다/);
    const detail = await t.app.inject({ url: `/dashboard/orders/${order}`, headers: owner.headers });
    const res = await postForm(t, developer, `/dashboard/orders/${order}/refund`, { amount: '1000', idem: idemOf(detail.body) });
    assert.equal(res.statusCode, 403);
    assert.equal((await refundRows(t, order)).length, 0);
  });

  await tc.test('refund form: a bad amount or one above what is left answers the API\'s Korean message on the page, with what was typed kept', async () => {
    const page = await t.app.inject({ url: `/dashboard/orders/${order}`, headers: support.headers });
    assert.equal(page.statusCode, 200);
    const over = await postForm(t, support, `/dashboard/orders/${order}/refund`, { amount: '20,000', reason: '너무 많이', idem: idemOf(page.body) });
    assert.equal(over.statusCode, 400);
    assert.match(over.body, /환불 금액이 남은 환불 가능 금액보다 큽니다/);
    assert.match(over.body, /value="20,000"/);
    const zero = await postForm(t, support, `/dashboard/orders/${order}/refund`, { amount: '0', idem: idemOf(page.body) });
    assert.equal(zero.statusCode, 400);
    const text = await postForm(t, support, `/dashboard/orders/${order}/refund`, { amount: '만원', idem: idemOf(page.body) });
    assert.equal(text.statusCode, 400);
    assert.match(text.body, /원 단위 정수/);
    const noKey = await postForm(t, support, `/dashboard/orders/${order}/refund`, { amount: '1000' });
    assert.equal(noKey.statusCode, 400);
    assert.equal((await refundRows(t, order)).filter((r) => r.status === 'succeeded').length, 0);
  });

  await tc.test('a partial refund by support: 303 to the order, the refund recorded as console, audited with the member\'s name', async () => {
    const page = await t.app.inject({ url: `/dashboard/orders/${order}`, headers: support.headers });
    const idem = idemOf(page.body);
    const res = await postForm(t, support, `/dashboard/orders/${order}/refund`, { amount: '5,000', reason: '일부 환불', idem });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, `/dashboard/orders/${order}?done=refunded`);
    const rows = await refundRows(t, order);
    assert.deepEqual(rows.map((r) => [r.amount, r.status, r.source]), [[5_000, 'succeeded', 'console']]);
    const entries = await auditOf(t, storeId, 'order.refunded');
    assert.equal(entries.length, 1);
    assert.equal(entries[0].actor_name, '이지원');
    assert.equal(entries[0].target_id, order);
    assert.equal(entries[0].details.amount, 5_000);
    assert.equal(entries[0].ip, '127.0.0.1');

    // The same form sent again (double click, reload): no second refund, no second audit entry.
    const again = await postForm(t, support, `/dashboard/orders/${order}/refund`, { amount: '5,000', reason: '일부 환불', idem });
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, `/dashboard/orders/${order}?done=replayed`);
    assert.equal((await refundRows(t, order)).length, 1);
    assert.equal((await auditOf(t, storeId, 'order.refunded')).length, 1);
    const shown = await t.app.inject({ url: String(again.headers.location), headers: support.headers });
    assert.match(shown.body, /이미 처리되었습니다/);
    assert.match(shown.body, /5,000원/);
  });

  await tc.test('two copies of one form at the same moment refund once', async () => {
    const page = await t.app.inject({ url: `/dashboard/orders/${order}`, headers: owner.headers });
    const idem = idemOf(page.body);
    const [a, b] = await Promise.all([
      postForm(t, owner, `/dashboard/orders/${order}/refund`, { amount: '1000', idem }),
      postForm(t, owner, `/dashboard/orders/${order}/refund`, { amount: '1000', idem }),
    ]);
    assert.deepEqual([a.statusCode, b.statusCode], [303, 303]);
    const rows = (await refundRows(t, order)).filter((r) => r.amount === 1000);
    assert.equal(rows.length, 1);
  });

  await tc.test('an open refund request blocks a direct refund with REFUND_REQUEST_PENDING\'s message', async () => {
    const other = await insertPaidOrder(t, storeId, p.id, { amount: 3_000 });
    await insertActiveRequest(t, storeId, other, 3_000);
    const page = await t.app.inject({ url: `/dashboard/orders/${other}`, headers: owner.headers });
    const res = await postForm(t, owner, `/dashboard/orders/${other}/refund`, { amount: '', idem: idemOf(page.body) });
    assert.equal(res.statusCode, 409);
    assert.match(res.body, /처리 중인 환불 요청이 있습니다/);
  });

  await tc.test('a form without the CSRF token is refused and refunds nothing', async () => {
    const page = await t.app.inject({ url: `/dashboard/orders/${order}`, headers: owner.headers });
    const before = (await refundRows(t, order)).length;
    const res = await postForm(t, owner, `/dashboard/orders/${order}/refund`, { amount: '1000', idem: idemOf(page.body) }, { csrf: false });
    assert.equal(res.statusCode, 403);
    assert.equal((await refundRows(t, order)).length, before);
  });

  await tc.test('another store\'s order is not found from this dashboard', async () => {
    const s2 = await createTestStore(t);
    const p2 = await createProduct(t, s2, { name: '남의 상품', price: 1000 });
    const theirs = await insertPaidOrder(t, s2.storeId, p2.id, { amount: 1000 });
    const res = await t.app.inject({ url: `/dashboard/orders/${theirs}`, headers: owner.headers });
    assert.equal(res.statusCode, 404);
    const api = await t.app.inject({ url: `/v1/orders/${theirs}`, headers: bearer(s2.key) });
    assert.equal(api.json().refundedAmount, null);
  });

  await tc.test('the detail shows payments, refunds, licenses and the order\'s events', async () => {
    const res = await t.app.inject({ url: `/dashboard/orders/${order}`, headers: owner.headers });
    assert.equal(res.statusCode, 200);
    for (const h of ['결제', '환불', '라이선스', '이벤트와 웹훅 전송']) assert.match(res.body, new RegExp(`>${h}</h2>`));
    assert.match(res.body, /order\.refunded/);
    const en = await t.app.inject({ url: `/dashboard/orders/${order}`, headers: { cookie: `${owner.headers.cookie}; lang=en` } });
    assert.match(en.body, />Events and webhook deliveries</);
  });
  await tc.test("the detail names the order's gateway from the provider's traits (issue 42), in the dashboard's language", async () => {
    const gatewayRow = (body: string) => /<dt>결제대행<\/dt><dd>([^<]*)<\/dd>/.exec(body)?.[1];
    const simulated = await t.app.inject({ url: `/dashboard/orders/${order}`, headers: owner.headers });
    assert.equal(gatewayRow(simulated.body), '테스트 결제 (시뮬레이터)');
    const viaToss = await insertPaidOrder(t, storeId, p.id, { amount: 9_000, provider: 'toss', paymentKey: 'tgen_detail_label' });
    const toss = await t.app.inject({ url: `/dashboard/orders/${viaToss}`, headers: owner.headers });
    assert.equal(toss.statusCode, 200);
    assert.equal(gatewayRow(toss.body), '토스페이먼츠');
    const en = await t.app.inject({ url: `/dashboard/orders/${viaToss}`, headers: { cookie: `${owner.headers.cookie}; lang=en` } });
    assert.match(en.body, /<dt>Gateway<\/dt><dd>Toss Payments<\/dd>/);
  });
});

