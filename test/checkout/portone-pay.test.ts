import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { updateModeSettings } from '../../src/stores/service';
import { startFakePortOne, type FakePortOne } from '../payments/fake-portone';
import { createProduct, createSession, payPath, submitPayForm } from './factory';

// Issue 42, end to end: a store on PortOne (settings saved through the service, its secret verified at the fake PortOne
// written from PortOne's documentation); the buyer's form opens PortOne's window for the session's order id and amount;
// the fake PortOne takes the payment as the PG's window would; the return URL confirms it by reading it back.

let t: TestApp;
let fake: FakePortOne;
let s: TestStore;
let p: any;
const CARD_CHANNEL = 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00';

before(async () => {
  t = await createTestApp();
  fake = await startFakePortOne({ clock: t.clock });
  (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = fake.baseUrl;
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'test', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: fake.apiSecret, portoneWebhookSecret: fake.webhookSecret, portoneChannelKeys: { card: CARD_CHANNEL } });
  p = await createProduct(t, s, { price: 12_000 });
});
after(async () => {
  await t.close();
  await fake.close();
});

/** The `PortOne.requestPayment` argument the launch page carries (its inline config). */
function requestOf(page: string): any {
  const m = page.match(/var cfg = (\{.*?\});\n/s);
  assert.ok(m, 'the launch page carries its PortOne request');
  return JSON.parse(m[1]).request;
}

const orderRows = (sessionId: string) => t.db.selectFrom('orders').selectAll().where('checkout_session_id', '=', sessionId).execute();

test('pay page → PortOne window → return: the order is paid once under double submits, for the amount PortOne holds', async () => {
  const session = await createSession(t, s.key, { productId: p.id });
  const launch = await submitPayForm(t, session, { method: 'card' });
  assert.equal(launch.statusCode, 200, launch.body);
  const request = requestOf(launch.body);
  assert.equal(request.storeId, fake.storeId);
  assert.equal(request.channelKey, CARD_CHANNEL);
  assert.equal(request.totalAmount, 12_000);
  assert.equal(request.currency, 'CURRENCY_KRW');
  assert.equal(request.payMethod, 'CARD');
  assert.equal(new URL(request.redirectUrl).pathname, `${payPath(session)}/portone/return`);

  // The PG's window takes the payment at PortOne (the browser SDK), then the buyer comes back, twice at once.
  assert.equal(fake.browserPay({ paymentId: request.paymentId, amount: 12_000 }).ok, true);
  const back = `${payPath(session)}/portone/return?paymentId=${encodeURIComponent(request.paymentId)}`;
  const [a, b] = await Promise.all([t.app.inject({ url: back }), t.app.inject({ url: back })]);
  // The one that finds the other's confirm in flight answers 202 (the page that waits for it); neither is an error.
  for (const r of [a, b]) assert.ok([200, 202, 303].includes(r.statusCode), `${r.statusCode} ${r.body.slice(0, 300)}`);
  assert.ok([a, b].some((r) => [200, 303].includes(r.statusCode)));
  const again = await t.app.inject({ url: back });
  // A reload after the order exists: the completed page (as Toss's return does), never a second confirm.
  assert.ok(again.statusCode === 303 || /이미 결제가 완료되었습니다/.test(again.body), String(again.statusCode));

  const orders = await orderRows(session.id);
  assert.equal(orders.length, 1, 'one order');
  assert.equal(orders[0].id, request.paymentId, "our order id is PortOne's paymentId");
  assert.equal(orders[0].status, 'paid');
  assert.equal(orders[0].provider, 'portone');
  assert.equal(Number(orders[0].amount), 12_000);
  const paidEvents = await t.db.selectFrom('events').select('data').where('type', '=', 'order.paid').where('store_id', '=', s.storeId).execute();
  assert.equal(paidEvents.filter((e) => (e.data as any).id === request.paymentId).length, 1, 'one order.paid');
  assert.equal(fake.payments.get(request.paymentId).status, 'PAID', 'not cancelled');
});

test('a payment PortOne took for another amount is refused, no order, and PortOne cancels it', async () => {
  const session = await createSession(t, s.key, { productId: p.id });
  const request = requestOf((await submitPayForm(t, session, { method: 'card' })).body);
  // A tampered window (the browser's request edited) pays 100원 for the 12,000원 order.
  assert.equal(fake.browserPay({ paymentId: request.paymentId, amount: 100 }).ok, true);
  const res = await t.app.inject({ url: `${payPath(session)}/portone/return?paymentId=${encodeURIComponent(request.paymentId)}&amount=12000` });
  assert.equal(res.statusCode, 422, res.body.slice(0, 300));
  assert.match(res.body, /금액/);
  assert.equal((await orderRows(session.id)).length, 0, 'no order');
  assert.equal(fake.payments.get(request.paymentId).status, 'CANCELLED', 'the mismatched payment is cancelled in full');
});

test('a return naming another paymentId, or PortOne\'s failure code, pays nothing', async () => {
  const session = await createSession(t, s.key, { productId: p.id });
  const request = requestOf((await submitPayForm(t, session, { method: 'card' })).body);
  const other = await t.app.inject({ url: `${payPath(session)}/portone/return?paymentId=ord_someone_else` });
  assert.equal(other.statusCode, 422);
  const closed = await t.app.inject({ url: `${payPath(session)}/portone/return?paymentId=${encodeURIComponent(request.paymentId)}&code=FAILURE_TYPE_PG&message=${encodeURIComponent('사용자가 결제를 취소했습니다')}` });
  assert.equal(closed.statusCode, 422);
  assert.match(closed.body, /사용자가 결제를 취소했습니다/);
  assert.equal((await orderRows(session.id)).length, 0);
});

test('a method without a channel key does not open PortOne\'s window', async () => {
  const session = await createSession(t, s.key, { productId: p.id });
  const res = await submitPayForm(t, session, { method: 'transfer' });
  assert.equal(res.statusCode, 503);
  assert.match(res.body, /결제수단을 아직 연결하지 않았습니다/);
});
