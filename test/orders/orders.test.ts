import { productTermsJson } from '../helpers/terms';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, submitPayForm } from '../checkout/factory';
import { TEST_CARDS } from '../../src/payments';
import { jsonb } from '../../src/db';

let t: TestApp;
let s: TestStore;
let a: any;
let b: any;
const ids: string[] = [];

async function buy(productId: string, metadata?: Record<string, string>): Promise<string> {
  const session = await createSession(t, s.key, { productId, successUrl: 'https://example.com/ok', metadata });
  const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
  assert.equal(res.statusCode, 303, res.body);
  t.clock.advance(1000); // distinct creation times: newest-first is by time, not by luck
  return new URL(String(res.headers.location)).searchParams.get('order_id')!;
}

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  a = await createProduct(t, s, { name: '상품 A', price: 1_000 });
  b = await createProduct(t, s, { name: '상품 B', price: 2_000 });
  ids.push(await buy(a.id, { n: '1' }), await buy(b.id), await buy(a.id));
});
after(async () => {
  await t.close();
});

const list = (key: string, q = '') => t.app.inject({ url: `/v1/orders${q}`, headers: bearer(key) });

test('GET /v1/orders lists newest first with the page envelope', async () => {
  const res = await list(s.key);
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.equal(body.total, 3);
  assert.equal(body.page, 1);
  assert.equal(body.limit, 20);
  assert.deepEqual(body.data.map((o: any) => o.id), [...ids].reverse());
  const p2 = (await list(s.key, '?page=2&limit=2')).json();
  assert.deepEqual(p2.data.map((o: any) => o.id), [ids[0]]);
  assert.equal(p2.total, 3);
  assert.equal((await list(s.key, '?sort=createdAt')).statusCode, 400);
  assert.equal((await list(s.key, '?limit=101')).statusCode, 400);
});

test('GET /v1/orders/:id returns every Order field, null where empty', async () => {
  const res = await t.app.inject({ url: `/v1/orders/${ids[0]}`, headers: bearer(s.key) });
  assert.equal(res.statusCode, 200);
  const o = res.json();
  assert.deepEqual(
    Object.keys(o).sort(),
    [
      'id', 'mode', 'productId', 'productName', 'planId', 'billingInterval', 'checkoutSessionId', 'status', 'amount', 'currency', 'method', 'buyerName',
      'buyerEmail', 'buyerPhone', 'metadata', 'coupon', 'periodStart', 'periodEnd', 'paidAt', 'confirmedAt', 'refundedAt', 'refundedAmount', 'refunds', 'createdAt',
      'receiptUrl', 'licenses',
    ].sort(),
  );
  // The receipt link is absolute (sellers put it in e-mails) and carries an unguessable token.
  assert.match(o.receiptUrl, new RegExp(`^http://localhost:3000/receipt/${o.id}\\?t=[0-9a-f]{32}$`));
  assert.equal(o.productName, '상품 A');
  assert.equal(o.amount, 1_000);
  assert.deepEqual(o.metadata, { n: '1' });
  for (const k of ['planId', 'billingInterval', 'coupon', 'periodStart', 'periodEnd', 'confirmedAt', 'refundedAt', 'refundedAmount']) assert.equal(o[k], null, k);
  assert.deepEqual(o.refunds, []);
  assert.match(o.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

test('refunds shows only completed refunds, oldest first; pending ones are not money moved yet', async () => {
  const orderId = ids[1];
  const now = t.clock.now();
  const row = (id: string, amount: number, status: string, at: Date | null, reason: string | null) => ({
    id, order_id: orderId, store_id: s.storeId, mode: 'test' as const, amount, reason, status: status as any,
    provider_idempotency_key: `k_${id}`, error: null, refund_request_id: null, created_at: now, refunded_at: at, updated_at: now,
  });
  await t.db.insertInto('order_refunds').values([
    row('rf_2', 300, 'succeeded', new Date(now.getTime() + 2000), null),
    row('rf_1', 500, 'succeeded', new Date(now.getTime() + 1000), '단순 변심'),
    row('rf_3', 700, 'pending', null, null),
  ]).execute();
  await t.db.updateTable('orders').set({ refunded_amount: 800, refunded_at: new Date(now.getTime() + 2000) }).where('id', '=', orderId).execute();
  const o = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  assert.deepEqual(o.refunds, [
    { amount: 500, currency: 'KRW', at: new Date(now.getTime() + 1000).toISOString(), reason: '단순 변심' },
    { amount: 300, currency: 'KRW', at: new Date(now.getTime() + 2000).toISOString(), reason: null },
  ]);
  assert.equal(o.refundedAmount, 800);
});

test('a key limited to some products sees only their orders; others answer ORDER_NOT_FOUND', async () => {
  const onlyA = (await s.newKey({ productIds: [a.id] })).key;
  const body = (await list(onlyA)).json();
  assert.equal(body.total, 2);
  assert.ok(body.data.every((o: any) => o.productId === a.id));
  const res = await t.app.inject({ url: `/v1/orders/${ids[1]}`, headers: bearer(onlyA) });
  assert.equal(res.statusCode, 404);
  assert.equal(res.json().code, 'ORDER_NOT_FOUND');
});

test('live and test orders are separate, and other stores never see them', async () => {
  const liveProduct = await createProduct(t, s, { mode: 'live' });
  const now = t.clock.now();
  await t.db.insertInto('orders').values({
    id: 'ord_live_0001', store_id: s.storeId, mode: 'live', product_id: liveProduct.id, product_name: '라이브', plan_id: null, billing_interval: null,
    checkout_session_id: null, status: 'paid', amount: 1, currency: 'KRW', method: 'card', buyer_name: 'x', buyer_email: 'x@example.com', buyer_phone: '0100000000',
    metadata: jsonb(null), coupon: jsonb(null), coupon_id: null, period_start: null, period_end: null, paid_at: now, confirmed_at: null, refunded_at: null,
    refunded_amount: null, provider: 'toss', provider_payment_key: 'pk', subscription_id: null, subscription_event: null, settlement_id: null, created_at: now, updated_at: now,
    terms: await productTermsJson(t.db, liveProduct.id),
  }).execute();
  const liveKey = (await s.newKey({ mode: 'live' })).key;
  assert.deepEqual((await list(liveKey)).json().data.map((o: any) => o.id), ['ord_live_0001']);
  assert.ok(!(await list(s.key)).json().data.some((o: any) => o.id === 'ord_live_0001'));
  assert.equal((await t.app.inject({ url: '/v1/orders/ord_live_0001', headers: bearer(s.key) })).statusCode, 404);
  assert.equal((await t.app.inject({ url: `/v1/orders/${ids[0]}`, headers: bearer(liveKey) })).statusCode, 404);
  const other = await createTestStore(t);
  assert.equal((await list(other.key)).json().total, 0);
  assert.equal((await t.app.inject({ url: `/v1/orders/${ids[0]}`, headers: bearer(other.key) })).statusCode, 404);
});

test('reading orders needs orders:read', async () => {
  const k = (await s.newKey({ scopes: ['products:read'] })).key;
  const res = await list(k);
  assert.equal(res.statusCode, 403);
  assert.deepEqual(res.json().details.required, ['orders:read']);
});
