import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, createSubscriptionProduct, formPost, payPath, submitPayForm } from '../checkout/factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { updateModeSettings } from '../../src/stores/service';

// 계좌이체 (Toss 퀵계좌이체): test mode through the simulator's approval page (the bank app's stand-in), live mode
// through Toss's payment window with method TRANSFER, confirmed like a card; refunds go back through Toss's cancel.

let t: TestApp;
let s: TestStore;
let fake: FakeToss;
let live: string;
let liveProduct: any;
let testProduct: any;

before(async () => {
  fake = await startFakeToss({ kind: 'live' });
  t = await createTestApp({ config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 10_000 } });
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  live = (await s.newKey({ mode: 'live' })).key;
  liveProduct = await createProduct(t, s, { mode: 'live', price: 33_000, stock: 5 });
  testProduct = await createProduct(t, s, { price: 12_000, stock: 5 });
});
after(async () => {
  await t.close();
  await fake.close();
});

const refund = (key: string, orderId: string, body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/v1/orders/${orderId}/refund`, headers: post(key), payload: body });

test('test mode: 계좌이체 is offered, goes through the simulated bank approval, is paid and refunded', async () => {
  const session = await createSession(t, s.key, { productId: testProduct.id, successUrl: 'https://example.com/ok' });
  const form = await t.app.inject({ url: payPath(session) });
  assert.match(form.body, /name="method" value="transfer"/);
  assert.match(form.body, /계좌이체/);
  const submitted = await submitPayForm(t, session, { method: 'transfer' });
  assert.equal(submitted.statusCode, 303, submitted.body);
  assert.equal(submitted.headers.location, `${payPath(session)}/approve`);
  const approval = await t.app.inject({ url: `${payPath(session)}/approve` });
  assert.match(approval.body, /계좌이체 결제 승인/);
  assert.match(approval.body, /계좌이체 승인 화면/);
  const approved = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
  assert.equal(approved.statusCode, 303, approved.body);
  const orderId = new URL(String(approved.headers.location)).searchParams.get('order_id')!;
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  assert.equal(order.status, 'paid');
  assert.equal(order.method, 'transfer');
  assert.equal(order.amount, 12_000);

  const r = await refund(s.key, orderId, { amount: 2_000, reason: '일부 환불' });
  assert.equal(r.statusCode, 200, r.body);
  const full = await refund(s.key, orderId, { reason: '나머지 환불' });
  assert.equal(full.statusCode, 200, full.body);
  assert.equal(full.json().order.status, 'refunded');
  assert.equal(full.json().order.refundedAmount, 12_000);
});

test('a subscription cannot be paid by 계좌이체: the form says to pick a card (nothing to charge at renewal)', async () => {
  const sub = await createSubscriptionProduct(t, s);
  const session = await createSession(t, s.key, { productId: sub.id, planId: 'basic', interval: 'monthly' });
  const res = await submitPayForm(t, session, { method: 'transfer', cardNumber: '' });
  assert.equal(res.statusCode, 422);
  assert.match(res.body, /계좌이체·가상계좌로는 구독할 수 없으니/);
});

test('live: 계좌이체 opens Toss\'s window with method TRANSFER; the success redirect confirms it; the refund is Toss\'s cancel', async () => {
  const session = await createSession(t, live, { productId: liveProduct.id, successUrl: 'https://example.com/ok' });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id;
  const launch = await submitPayForm(t, session, { method: 'transfer' });
  assert.equal(launch.statusCode, 200, launch.body);
  assert.ok(launch.body.includes('"method":"TRANSFER"'), 'Toss SDK v2: requestPayment({ method: "TRANSFER", … })');
  assert.ok(launch.body.includes('"transfer":{"cashReceipt":{"type":"미발행"},"useEscrow":false}'), 'no 현금영수증 asked: 미발행');
  assert.ok(!launch.body.includes('"card":'), 'no card options for a transfer');

  const paymentKey = 'tpk_transfer_0001';
  fake.requestPayment({ paymentKey, orderId, amount: 33_000 });
  const res = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '33000' })}` });
  assert.equal(res.statusCode, 303, res.body);
  const confirm = fake.calls.filter((c) => c.path === '/v1/payments/confirm').at(-1)!;
  assert.deepEqual(confirm.body, { paymentKey, orderId, amount: 33_000 });
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(live) })).json();
  assert.equal(order.status, 'paid');
  assert.equal(order.method, 'transfer', 'Toss answered method 계좌이체');

  const part = await refund(live, orderId, { amount: 3_000, reason: '부분 환불' });
  assert.equal(part.statusCode, 200, part.body);
  const cancel = fake.calls.filter((c) => c.path === `/v1/payments/${paymentKey}/cancel`).at(-1)!;
  assert.equal(cancel.body.cancelAmount, 3_000);
  assert.equal(cancel.body.refundReceiveAccount, undefined, 'a transfer is refunded to the account it came from: no refund account');
  assert.equal(fake.payments.get(paymentKey).balanceAmount, 30_000);
  const rest = await refund(live, orderId, { reason: '전액 환불' });
  assert.equal(rest.statusCode, 200, rest.body);
  assert.equal(fake.payments.get(paymentKey).status, 'CANCELED');
  assert.equal(rest.json().order.status, 'refunded');
});
