import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, payPath, submitPayForm } from '../checkout/factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { updateModeSettings } from '../../src/stores/service';

// The live path against a local server speaking Toss Payments' protocol: the page opens Toss's window, Toss redirects
// back to /toss/success, and the server confirms after checking the order id and amount.

let t: TestApp;
let s: TestStore;
let fake: FakeToss;
let live: string;
let product: any;

before(async () => {
  fake = await startFakeToss({ kind: 'live' });
  // A generous deadline: a loaded machine must not turn Toss's answers into "unknown". The one test whose answer never
  // comes shortens it for its own call (the provider is built per call from the config).
  t = await createTestApp({ config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 10_000 } });
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  live = (await s.newKey({ mode: 'live' })).key;
  product = await createProduct(t, s, { mode: 'live', price: 15_000, stock: 10 });
});
after(async () => {
  await t.close();
  await fake.close();
});

const soldCount = async () => (await t.db.selectFrom('products').select('sold_count').where('id', '=', product.id).executeTakeFirstOrThrow()).sold_count;
const confirms = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/v1/payments/confirm').length;

async function openWindow(fields: Record<string, string> = {}) {
  const session = await createSession(t, live, { productId: product.id, successUrl: 'https://example.com/ok?from=shop', metadata: { ref: 'live-1' } });
  const row = await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow();
  const launch = await submitPayForm(t, session, fields);
  return { session, orderId: row.pending_order_id, launch };
}

const success = (session: any, q: Record<string, string>) => t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams(q)}` });

test('live mode: the form has no card field; submitting opens Toss\'s payment window (SDK v2) for the amount and reserved order id', async () => {
  const { session, orderId, launch } = await openWindow();
  const form = await t.app.inject({ url: payPath(session) });
  assert.equal(form.statusCode, 200);
  assert.ok(!form.body.includes('name="cardNumber"'));
  assert.equal(launch.statusCode, 200, launch.body);
  assert.ok(launch.body.includes('<script src="https://js.tosspayments.com/v2/standard"'));
  assert.ok(launch.body.includes(`"clientKey":"${fake.clientKey}"`));
  assert.ok(launch.body.includes(`"orderId":"${orderId}"`));
  assert.ok(launch.body.includes('"amount":{"currency":"KRW","value":15000}'));
  assert.ok(launch.body.includes(`"successUrl":"http://localhost:3000/pay/${session.id}/toss/success"`));
  assert.ok(launch.body.includes('"customerMobilePhone":"01012345678"'));
  assert.ok(!launch.body.includes(fake.secretKey), 'the secret key never reaches the browser');
  const csp = String(launch.headers['content-security-policy']);
  const nonce = /'nonce-([^']+)'/.exec(csp)![1];
  assert.ok(launch.body.includes(`nonce="${nonce}"`));
  assert.equal(confirms(), 0, 'nothing is confirmed before Toss redirects back');

  const kakao = await openWindow({ method: 'kakao_pay' });
  assert.ok(kakao.launch.body.includes('"card":{"flowMode":"DIRECT","easyPay":"KAKAOPAY"}'));
});

test('success redirect: the server confirms with Basic auth, then redirects to successUrl; the order is live with metadata', async () => {
  const { session, orderId } = await openWindow({ method: 'kakao_pay' });
  const before = confirms();
  const res = await success(session, { paymentKey: 'tpk_kakaopay_0001', orderId, amount: '15000' });
  assert.equal(res.statusCode, 303, res.body);
  const to = new URL(String(res.headers.location));
  assert.equal(to.searchParams.get('from'), 'shop');
  assert.equal(to.searchParams.get('order_id'), orderId);
  assert.equal(to.searchParams.get('session_id'), session.id);
  assert.equal(confirms(), before + 1);
  const call = fake.calls.filter((c) => c.path === '/v1/payments/confirm').at(-1)!;
  assert.deepEqual(call.body, { paymentKey: 'tpk_kakaopay_0001', orderId, amount: 15000 });
  assert.equal(call.headers.authorization, `Basic ${Buffer.from(`${fake.secretKey}:`).toString('base64')}`);

  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(live) })).json();
  assert.equal(order.mode, 'live');
  assert.equal(order.status, 'paid');
  assert.equal(order.method, 'kakao_pay');
  assert.deepEqual(order.metadata, { ref: 'live-1' });
  // a reload of Toss's success URL does not confirm again and lands on the shop again
  const reload = await success(session, { paymentKey: 'tpk_kakaopay_0001', orderId, amount: '15000' });
  assert.equal(reload.statusCode, 303);
  assert.equal(confirms(), before + 1);
  // test keys never see live orders
  assert.equal((await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).statusCode, 404);
});

test('a redirect whose amount or orderId differs from the session is refused without confirming', async () => {
  const { session, orderId } = await openWindow();
  const before = confirms();
  const tampered = await success(session, { paymentKey: 'tpk_amount', orderId, amount: '1000' });
  assert.equal(tampered.statusCode, 422);
  assert.match(tampered.body, /결제 금액이 변경되었습니다/);
  const otherOrder = await success(session, { paymentKey: 'tpk_order', orderId: 'ord_someone_else', amount: '15000' });
  assert.equal(otherOrder.statusCode, 422);
  assert.match(otherOrder.body, /일치하지 않아/);
  assert.equal(confirms(), before);
  assert.equal((await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', session.id).execute()).length, 0);
});

test('decline: Toss\'s refusal is shown on the form, the stock is released, and a later payment succeeds', async () => {
  const { session, orderId } = await openWindow();
  const sold = await soldCount();
  fake.setMode('decline');
  try {
    const res = await success(session, { paymentKey: 'tpk_declined', orderId, amount: '15000' });
    assert.equal(res.statusCode, 422);
    assert.ok(res.body.includes('class="banner error"'));
    assert.equal(await soldCount(), sold);
  } finally {
    fake.setMode('ok');
  }
  const ok = await success(session, { paymentKey: 'tpk_second_try', orderId, amount: '15000' });
  assert.equal(ok.statusCode, 303);
  assert.equal(await soldCount(), sold + 1);
});

test('fail redirect (buyer closed the window) re-renders the form with the buyer\'s input and a message', async () => {
  const { session, orderId } = await openWindow({ buyerName: '이몽룡' });
  const res = await t.app.inject({ url: `${payPath(session)}/toss/fail?${new URLSearchParams({ code: 'PAY_PROCESS_CANCELED', message: '사용자에 의해 결제가 취소되었습니다.', orderId })}` });
  assert.equal(res.statusCode, 422);
  assert.match(res.body, /결제를 취소했습니다/);
  assert.match(res.body, /value="이몽룡"/);
  const other = await t.app.inject({ url: `${payPath(session)}/toss/fail?code=REJECT_CARD_COMPANY&message=${encodeURIComponent('<b>카드사 거절</b>')}` });
  assert.ok(other.body.includes('&lt;b&gt;카드사 거절&lt;/b&gt;'), 'the gateway text is escaped');
});

test('a 5xx from Toss leaves the outcome unknown: "확인 중", the unit held; reconciliation releases it when Toss has no payment', async () => {
  const { session, orderId } = await openWindow();
  const sold = await soldCount();
  fake.setMode('error500');
  let res;
  try {
    res = await success(session, { paymentKey: 'tpk_error500', orderId, amount: '15000' });
  } finally {
    fake.setMode('ok');
  }
  assert.equal(res.statusCode, 202);
  assert.match(res.body, /결제 결과를 확인하고 있습니다/);
  assert.equal(await soldCount(), sold + 1);
  t.clock.advance(61_000);
  try {
    await t.deps.worker.runOnce();
  } finally {
    t.clock.advance(-61_000);
  }
  assert.equal(await soldCount(), sold, 'released: Toss never registered the payment');
  assert.equal((await t.app.inject({ url: payPath(session) })).statusCode, 200);
});

test('timeout: Toss took the payment but the answer never came → "확인 중", then reconciliation finds it and records the order', async () => {
  const { session, orderId } = await openWindow();
  fake.setMode('lost_answer');
  let res;
  t.deps.config.tossTimeoutMs = 300; // the answer never comes: the deadline only decides how long this test waits
  try {
    res = await success(session, { paymentKey: 'tpk_lost_answer', orderId, amount: '15000' });
  } finally {
    fake.setMode('ok');
    t.deps.config.tossTimeoutMs = 10_000;
  }
  assert.equal(res.statusCode, 202);
  assert.equal(fake.payments.get('tpk_lost_answer')?.status, 'DONE', 'the gateway did charge');
  assert.equal((await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', session.id).execute()).length, 0);
  t.clock.advance(61_000);
  try {
    await t.deps.worker.runOnce();
  } finally {
    t.clock.advance(-61_000);
  }
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(live) })).json();
  assert.equal(order.status, 'paid');
  assert.equal(order.amount, 15_000);
  const page = await t.app.inject({ url: payPath(session) });
  assert.equal(page.statusCode, 409, 'the buyer now sees the completed page');
});
