// @slow: starts servers as their own processes and kills them with kill -9 (npm run test:slow)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestDatabase, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, payPath, submitPayForm } from '../checkout/factory';
import { startFakePortOne, type FakePortOne, type FakePortOneCall } from './fake-portone';
import { killAll, settled, startKillServer, type KillServer } from './kill-harness';
import { updateModeSettings } from '../../src/stores/service';
import { ATTEMPT_LOCK_MS } from '../../src/checkout/model';
import { RECONCILE_DELAY_MS as CHECKOUT_RECONCILE_DELAY_MS } from '../../src/checkout/settle';
import { RECONCILE_DELAY_MS as REFUND_RECONCILE_DELAY_MS } from '../../src/refunds/service';
import { STALE_PENDING_MS } from '../../src/refunds/reconcile';

// Issue 42's kill test for PortOne, as toss-kill.test.ts is Toss's: a real server process (kill-server.ts, the app as
// `commerce start` builds it, on PostgreSQL) of a store whose live mode is on PortOne is killed with SIGKILL after
// PortOne has acted — the payment read back PAID for the confirm, the cancel made for a refund — and before the server
// recorded it. A new process on the same database runs its recovery (the pending-attempt sweep and reconciliation for
// the payment, the stale-refund sweep and the refund's reconciliation), its clock moved past their delays, and PortOne
// and our books must agree: one payment and one cancel at PortOne, our order paid once and the refund recorded once.
//
// The test process holds the fake PortOne (written from PortOne's OpenAPI; its `beforeAnswer` hook does the kill, after
// the request took effect) and a console app on the same database for setting up the store and sessions.

const PG = process.env.TEST_DATABASE_URL;
const skip = PG ? false : 'needs PostgreSQL (SIGKILL of a server process sharing a database): set TEST_DATABASE_URL=postgres://…';
const CARD_CHANNEL = 'channel-key-7a1e0c3d-5b2f-4c55-9a3e-0b4c3d2e1f10';

let fake: FakePortOne;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: TestApp;
let s: TestStore;
let live: string;

before(async () => {
  if (!PG) return;
  db = await createTestDatabase();
  t = await createTestApp({ database: db });
  fake = await startFakePortOne({ clock: t.clock });
  (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = fake.baseUrl;
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: fake.apiSecret, portoneWebhookSecret: fake.webhookSecret, portoneChannelKeys: { card: CARD_CHANNEL } });
  live = (await s.newKey({ mode: 'live' })).key;
});
after(async () => {
  if (!PG) return;
  killAll();
  await t?.close();
  await db?.drop();
  await fake?.close();
});

const startServer = (at: Date) =>
  startKillServer({ databaseUrl: db.url!, masterKey: (db as any).testMasterKey as Buffer, at, env: { PORTONE_API_BASE_URL: fake.baseUrl } });

/**
 * Arms the fake: the first request matching `match` is carried out by PortOne as usual, then, before its answer leaves,
 * `server` is killed (and gone). Resolves with that request.
 */
function killAfterPortOne(server: KillServer, match: (c: FakePortOneCall) => boolean): Promise<FakePortOneCall> {
  return new Promise((resolve) => {
    fake.beforeAnswer = async (call) => {
      if (!match(call)) return;
      fake.beforeAnswer = null;
      await server.kill();
      resolve(call);
    };
  });
}

const sessionRow = (id: string) => t.db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const ordersOf = (id: string) => t.db.selectFrom('orders').selectAll().where('id', '=', id).execute();
const eventsOf = (type: string, orderId: string) =>
  t.db.selectFrom('events').select('data').where('store_id', '=', s.storeId).where('type', '=', type).execute().then((rows) => rows.filter((r) => (r.data as any).id === orderId || (r.data as any).order?.id === orderId));
const paidEventsAtPortOne = (paymentId: string) => fake.events.filter((e) => e.paymentEvent.paymentId === paymentId && e.paymentEvent.type === 'PAID').length;
const cancelsAtPortOne = (paymentId: string) => fake.calls.filter((c) => c.op === 'cancel' && c.path.startsWith(`/payments/${encodeURIComponent(paymentId)}/cancel`));

/** The `PortOne.requestPayment` argument the launch page carries. */
const requestOf = (page: string): any => JSON.parse(page.match(/var cfg = (\{.*?\});\n/s)![1]).request;

/** A live session on PortOne whose buyer has paid in PortOne's window (LIVE channel): PortOne holds the payment. */
async function paidAtPortOne(price: number, stock?: number) {
  const product = await createProduct(t, s, { mode: 'live', price, ...(stock === undefined ? {} : { stock }) });
  const session = await createSession(t, live, { productId: product.id, successUrl: 'https://example.com/ok' });
  const launch = await submitPayForm(t, session, { method: 'card' });
  assert.equal(launch.statusCode, 200, launch.body.slice(0, 300));
  const paymentId: string = requestOf(launch.body).paymentId;
  assert.equal(paymentId, (await sessionRow(session.id)).pending_order_id, 'our order id is PortOne\'s paymentId');
  assert.equal(fake.browserPay({ paymentId, amount: price, channelType: 'LIVE' }).ok, true);
  return { product, session, paymentId, back: `${payPath(session)}/portone/return?paymentId=${encodeURIComponent(paymentId)}` };
}

test('confirm: killed after PortOne answered the payment PAID, a restarted server records that one payment as the paid order', { skip }, async () => {
  const T0 = t.clock.now();
  const { product, session, paymentId, back } = await paidAtPortOne(15_000, 5);

  // PortOne redirects the buyer to our return URL; the server reads the payment back (PAID) and dies before recording it.
  const a = await startServer(T0);
  const killed = killAfterPortOne(a, (c) => c.op === 'get_payment' && c.path.startsWith(`/payments/${encodeURIComponent(paymentId)}?`));
  const redirect = settled(fetch(`${a.base}${back}`, { redirect: 'manual' }));
  await killed;
  assert.ok((await redirect).error, 'the buyer\'s browser sees the connection drop');
  assert.equal(fake.payments.get(paymentId)?.status, 'PAID', 'PortOne holds the payment');
  assert.deepEqual(await ordersOf(paymentId), [], 'we recorded nothing');
  assert.equal((await sessionRow(session.id)).payment?.state, 'confirming');

  // A new process once the attempt's lock has run out: the sweep hands the payment to reconciliation, which runs
  // RECONCILE_DELAY_MS later and reads the payment back from PortOne by our order id.
  const b = await startServer(new Date(T0.getTime() + ATTEMPT_LOCK_MS + 1_000));
  try {
    await b.run();
    assert.equal((await sessionRow(session.id)).payment?.state, 'unknown');
    await b.advance(CHECKOUT_RECONCILE_DELAY_MS);
    await b.run();

    assert.equal(paidEventsAtPortOne(paymentId), 1, 'one payment at PortOne');
    const [order] = await ordersOf(paymentId);
    assert.ok(order, 'the order is recorded');
    assert.equal(order.status, 'paid');
    assert.equal(order.amount, fake.payments.get(paymentId).amount.total);
    assert.equal(order.amount, 15_000);
    assert.equal(order.provider, 'portone');
    assert.equal(order.provider_payment_key, paymentId);
    assert.equal(order.checkout_session_id, session.id);
    const done = await sessionRow(session.id);
    assert.equal(done.status, 'completed');
    assert.equal(done.order_id, paymentId);
    assert.equal((await t.db.selectFrom('products').select('sold_count').where('id', '=', product.id).executeTakeFirstOrThrow()).sold_count, 1, 'one unit sold: the reservation was kept, not released or taken twice');
    assert.equal((await eventsOf('order.paid', paymentId)).length, 1, 'one order.paid for the seller');
    assert.equal(fake.calls.filter((c) => c.op === 'cancel').length, 0, 'nothing was cancelled at PortOne');

    // The buyer reloading the return URL lands on the shop with the order; nothing more is asked of PortOne.
    const callsBefore = fake.calls.length;
    const reload = await fetch(`${b.base}${back}`, { redirect: 'manual' });
    assert.equal(reload.status, 303);
    assert.equal(new URL(reload.headers.get('location')!).searchParams.get('order_id'), paymentId);
    assert.equal(fake.calls.length, callsBefore);
  } finally {
    await b.stop();
  }
});

test('cancel: killed after PortOne cancelled part of a payment, a restarted server records that one cancel as the refund', { skip }, async () => {
  const T0 = t.clock.now();
  const { paymentId, back } = await paidAtPortOne(15_000);
  const paid = await t.app.inject({ url: back });
  assert.equal(paid.statusCode, 303, paid.body.slice(0, 300));
  assert.equal((await ordersOf(paymentId))[0]?.status, 'paid');

  // The seller refunds 4,000원 through the API; PortOne cancels it and the server dies before recording it.
  const a = await startServer(T0);
  const killed = killAfterPortOne(a, (c) => c.op === 'cancel');
  const idem = 'portone-kill-refund-0001';
  const refundCall = (base: string) =>
    fetch(`${base}/v1/orders/${paymentId}/refund`, { method: 'POST', headers: { ...post(live, idem), 'content-type': 'application/json' }, body: JSON.stringify({ amount: 4_000, reason: '고객 요청' }) });
  const request = settled(refundCall(a.base));
  await killed;
  assert.ok((await request).error, 'the seller\'s call sees the connection drop');
  const atPortOne = fake.payments.get(paymentId);
  assert.equal(atPortOne.status, 'PARTIAL_CANCELLED', 'PortOne cancelled');
  assert.equal(atPortOne.cancellations.length, 1);
  const [pending] = await t.db.selectFrom('order_refunds').selectAll().where('order_id', '=', paymentId).execute();
  assert.equal(pending.status, 'pending', 'we recorded only the intent');
  assert.equal((await ordersOf(paymentId))[0].refunded_amount, null);

  // A new process once the refund counts as stale: the sweep marks it unknown, and reconciliation RECONCILE_DELAY_MS
  // later finds PortOne's cancelled total = ours + this refund, so it records the refund without cancelling again.
  const b = await startServer(new Date(T0.getTime() + STALE_PENDING_MS + 1_000));
  try {
    const early = await refundCall(b.base);
    assert.equal(early.status, 502);
    assert.deepEqual(await early.json().then((e) => [e.code, e.details.refundId]), ['PG_REFUND_AMBIGUOUS', pending.id]);
    assert.equal(cancelsAtPortOne(paymentId).length, 1);

    await b.run();
    assert.equal((await t.db.selectFrom('order_refunds').select('status').where('id', '=', pending.id).executeTakeFirstOrThrow()).status, 'unknown');
    await b.advance(REFUND_RECONCILE_DELAY_MS);
    await b.run();

    assert.equal(atPortOne.cancellations.length, 1, 'one cancel at PortOne');
    assert.equal(cancelsAtPortOne(paymentId).length, 1, 'PortOne was not asked to cancel again');
    const refund = await t.db.selectFrom('order_refunds').selectAll().where('id', '=', pending.id).executeTakeFirstOrThrow();
    assert.equal(refund.status, 'succeeded');
    assert.equal(refund.amount, atPortOne.cancellations[0].totalAmount);
    const [order] = await ordersOf(paymentId);
    assert.equal(order.status, 'paid', 'partly refunded');
    assert.equal(order.refunded_amount, 4_000);
    assert.equal(order.refunded_amount, atPortOne.amount.cancelled);
    assert.equal((await eventsOf('order.refunded', paymentId)).length, 1, 'one order.refunded for the seller');
    const late = await refundCall(b.base);
    assert.equal(late.status, 200);
    const lateBody = await late.json();
    assert.equal(lateBody.refund.id, pending.id);
    assert.equal(lateBody.refund.status, 'succeeded');
    assert.equal(cancelsAtPortOne(paymentId).length, 1);

    // Our books match PortOne's: refunding the rest cancels exactly what PortOne still holds.
    const rest = await fetch(`${b.base}/v1/orders/${paymentId}/refund`, { method: 'POST', headers: { ...post(live), 'content-type': 'application/json' }, body: '{}' });
    assert.equal(rest.status, 200, await rest.clone().text());
    assert.equal((await rest.json()).refund.amount, 11_000);
    assert.equal(atPortOne.status, 'CANCELLED');
    const [after] = await ordersOf(paymentId);
    assert.equal(after.status, 'refunded');
    assert.equal(after.refunded_amount, 15_000);
  } finally {
    await b.stop();
  }
});
