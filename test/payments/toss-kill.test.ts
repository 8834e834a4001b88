// @slow: starts servers as their own processes and kills them with kill -9 (npm run test:slow)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestDatabase, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, createSubscriptionProduct, payPath, submitPayForm } from '../checkout/factory';
import { startFakeToss, type FakeToss } from './fake-toss';
import { killAll, settled, startKillServer, type KillServer } from './kill-harness';
import { updateModeSettings } from '../../src/stores/service';
import { ATTEMPT_LOCK_MS } from '../../src/checkout/model';
import { RECONCILE_DELAY_MS as CHECKOUT_RECONCILE_DELAY_MS } from '../../src/checkout/settle';
import { RECONCILE_DELAY_MS as REFUND_RECONCILE_DELAY_MS } from '../../src/refunds/service';
import { STALE_PENDING_MS } from '../../src/refunds/reconcile';
import { CHARGE_LEASE_MS } from '../../src/subscriptions/model';

// Kill tests: a real server process (test/payments/kill-server.ts: the app as `commerce start` builds it, on
// PostgreSQL) is killed with SIGKILL after Toss has acted on a confirm, a cancel or a billing charge and before the
// server has recorded Toss's answer. A new process on the same database then runs its recovery (sweeps and
// reconciliation jobs, with its clock moved past their delays instead of waiting), and Toss and our books must agree:
// exactly one payment or cancel at Toss, and our order, refund or subscription showing exactly that.
//
// The test process holds the fake Toss (its `beforeAnswer` hook does the kill) and a console app on the same database
// for setting up stores and sessions; it never runs background work itself.

const PG = process.env.TEST_DATABASE_URL;
const skip = PG ? false : 'needs PostgreSQL (SIGKILL of a server process sharing a database): set TEST_DATABASE_URL=postgres://…';

let fake: FakeToss;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: TestApp;
let s: TestStore;
let live: string;

before(async () => {
  if (!PG) return;
  fake = await startFakeToss({ kind: 'live' });
  db = await createTestDatabase();
  t = await createTestApp({ database: db, config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 10_000 } });
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  live = (await s.newKey({ mode: 'live' })).key;
});
after(async () => {
  if (!PG) return;
  killAll();
  await t?.close();
  await db?.drop();
  await fake?.close();
});

type Server = KillServer;

/** Starts a server process on the test database with its clock at `at`. */
const startServer = (at: Date): Promise<Server> =>
  startKillServer({ databaseUrl: db.url!, masterKey: (db as any).testMasterKey as Buffer, at, env: { TOSS_API_BASE_URL: fake.baseUrl, TOSS_TIMEOUT_MS: '10000' } });

type Call = FakeToss['calls'][number];

/**
 * Arms the fake: the first request matching `match` is carried out by Toss as usual, then, before its answer leaves,
 * `server` is killed (and gone) — the moment between Toss's work and our record of it. Resolves with that request.
 */
function killAfterToss(server: Server, match: (c: Call) => boolean): Promise<Call> {
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
const tossPaymentsFor = (orderId: string) => [...fake.payments.values()].filter((p) => p.orderId === orderId);

test('confirm: killed after Toss approved the payment, a restarted server records that one payment as the paid order', { skip }, async () => {
  const T0 = t.clock.now();
  const product = await createProduct(t, s, { mode: 'live', price: 15_000, stock: 5 });
  const session = await createSession(t, live, { productId: product.id, successUrl: 'https://example.com/ok' });
  const orderId = (await sessionRow(session.id)).pending_order_id;
  assert.equal((await submitPayForm(t, session)).statusCode, 200, 'Toss\'s payment window opens');

  // Toss's window redirects the buyer to our success URL; the server confirms at Toss and dies before recording it.
  const a = await startServer(T0);
  const paymentKey = 'tpk_kill_confirm_0001';
  const killed = killAfterToss(a, (c) => c.method === 'POST' && c.path === '/v1/payments/confirm');
  const redirect = settled(fetch(`${a.base}${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '15000' })}`, { redirect: 'manual' }));
  const confirmCall = await killed;
  assert.ok((await redirect).error, 'the buyer\'s browser sees the connection drop');
  assert.equal(fake.payments.get(paymentKey)?.status, 'DONE', 'Toss approved the payment');
  assert.deepEqual(await ordersOf(orderId), [], 'we recorded nothing');
  assert.equal((await sessionRow(session.id)).payment?.state, 'confirming');

  // A new process once the attempt's lock has run out: the sweep hands the payment to reconciliation, which runs
  // RECONCILE_DELAY_MS later, looks the payment up at Toss and confirms it again with the same Idempotency-Key.
  const b = await startServer(new Date(T0.getTime() + ATTEMPT_LOCK_MS + 1_000));
  try {
    await b.run();
    assert.equal((await sessionRow(session.id)).payment?.state, 'unknown');
    await b.advance(CHECKOUT_RECONCILE_DELAY_MS);
    await b.run();

    const atToss = tossPaymentsFor(orderId);
    assert.equal(atToss.length, 1, 'one payment at Toss');
    const [order] = await ordersOf(orderId);
    assert.ok(order, 'the order is recorded');
    assert.equal(order.status, 'paid');
    assert.equal(order.amount, atToss[0].totalAmount);
    assert.equal(order.amount, 15_000);
    assert.equal(order.provider, 'toss');
    assert.equal(order.provider_payment_key, paymentKey);
    assert.equal(order.checkout_session_id, session.id);
    const done = await sessionRow(session.id);
    assert.equal(done.status, 'completed');
    assert.equal(done.order_id, orderId);
    assert.equal((await t.db.selectFrom('products').select('sold_count').where('id', '=', product.id).executeTakeFirstOrThrow()).sold_count, 1, 'one unit sold: the reservation was kept, not released or taken twice');
    assert.equal((await eventsOf('order.paid', orderId)).length, 1, 'one order.paid for the seller');
    const confirms = fake.calls.filter((c) => c.method === 'POST' && c.path === '/v1/payments/confirm' && c.body?.orderId === orderId);
    assert.ok(confirms.every((c) => c.headers['idempotency-key'] === confirmCall.headers['idempotency-key']), 'every confirm of this payment used the one Idempotency-Key');

    // The buyer reloading the success URL lands on the shop with the order; nothing more is asked of Toss.
    const callsBefore = fake.calls.length;
    const reload = await fetch(`${b.base}${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '15000' })}`, { redirect: 'manual' });
    assert.equal(reload.status, 303);
    assert.equal(new URL(reload.headers.get('location')!).searchParams.get('order_id'), orderId);
    assert.equal(fake.calls.length, callsBefore);
  } finally {
    await b.stop();
  }
});

test('cancel: killed after Toss canceled part of a payment, a restarted server records that one cancel as the refund', { skip }, async () => {
  const T0 = t.clock.now();
  const product = await createProduct(t, s, { mode: 'live', price: 15_000 });
  const session = await createSession(t, live, { productId: product.id, successUrl: 'https://example.com/ok' });
  const orderId = (await sessionRow(session.id)).pending_order_id;
  assert.equal((await submitPayForm(t, session)).statusCode, 200);
  const paymentKey = 'tpk_kill_cancel_0001';
  const paid = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '15000' })}` });
  assert.equal(paid.statusCode, 303, paid.body);

  // The seller refunds 4,000원 through the API; Toss cancels it and the server dies before recording it.
  const a = await startServer(T0);
  const killed = killAfterToss(a, (c) => c.method === 'POST' && c.path === `/v1/payments/${paymentKey}/cancel`);
  const idem = 'kill-refund-0001';
  const refundCall = () =>
    fetch(`${a.base}/v1/orders/${orderId}/refund`, {
      method: 'POST',
      headers: { ...post(live, idem), 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 4_000, reason: '고객 요청' }),
    });
  const request = settled(refundCall());
  const cancelCall = await killed;
  assert.ok((await request).error, 'the seller\'s call sees the connection drop');
  assert.equal(fake.payments.get(paymentKey).cancels.length, 1, 'Toss canceled');
  assert.equal(fake.payments.get(paymentKey).balanceAmount, 11_000);
  const [pending] = await t.db.selectFrom('order_refunds').selectAll().where('order_id', '=', orderId).execute();
  assert.equal(pending.status, 'pending', 'we recorded only the intent');
  assert.equal(cancelCall.headers['idempotency-key'], pending.provider_idempotency_key);
  assert.equal((await ordersOf(orderId))[0].refunded_amount, null);

  // A new process once the refund counts as stale: the sweep marks it unknown, and reconciliation RECONCILE_DELAY_MS
  // later finds Toss's canceled total = ours + this refund, so it records the refund without asking Toss to cancel again.
  const b = await startServer(new Date(T0.getTime() + STALE_PENDING_MS + 1_000));
  const cancelCalls = () => fake.calls.filter((c) => c.method === 'POST' && c.path === `/v1/payments/${paymentKey}/cancel`).length;
  // The seller retrying the cut call with the same Idempotency-Key learns the refund's state and asks Toss nothing.
  const retry = () => fetch(`${b.base}/v1/orders/${orderId}/refund`, { method: 'POST', headers: { ...post(live, idem), 'content-type': 'application/json' }, body: JSON.stringify({ amount: 4_000, reason: '고객 요청' }) });
  try {
    const early = await retry();
    assert.equal(early.status, 502);
    assert.deepEqual(await early.json().then((e) => [e.code, e.details.refundId]), ['PG_REFUND_AMBIGUOUS', pending.id]);
    assert.equal(cancelCalls(), 1);

    await b.run();
    assert.equal((await t.db.selectFrom('order_refunds').select('status').where('id', '=', pending.id).executeTakeFirstOrThrow()).status, 'unknown');
    await b.advance(REFUND_RECONCILE_DELAY_MS);
    await b.run();

    const atToss = fake.payments.get(paymentKey);
    assert.equal(atToss.cancels.length, 1, 'one cancel at Toss');
    assert.equal(cancelCalls(), 1, 'Toss was not asked to cancel again');
    const refund = await t.db.selectFrom('order_refunds').selectAll().where('id', '=', pending.id).executeTakeFirstOrThrow();
    assert.equal(refund.status, 'succeeded');
    assert.equal(refund.amount, atToss.cancels[0].cancelAmount);
    const [order] = await ordersOf(orderId);
    assert.equal(order.status, 'paid', 'partly refunded');
    assert.equal(order.refunded_amount, atToss.totalAmount - atToss.balanceAmount);
    assert.equal(order.refunded_amount, 4_000);
    assert.equal((await eventsOf('order.refunded', orderId)).length, 1, 'one order.refunded for the seller');
    const late = await retry();
    assert.equal(late.status, 200);
    const lateBody = await late.json();
    assert.equal(lateBody.refund.id, pending.id);
    assert.equal(lateBody.refund.status, 'succeeded');
    assert.equal(lateBody.order.refundedAmount, 4_000);
    assert.equal(cancelCalls(), 1);

    // Our books match Toss's: refunding the rest cancels exactly what Toss still holds.
    const rest = await fetch(`${b.base}/v1/orders/${orderId}/refund`, { method: 'POST', headers: { ...post(live), 'content-type': 'application/json' }, body: '{}' });
    assert.equal(rest.status, 200, await rest.clone().text());
    assert.equal((await rest.json()).refund.amount, 11_000);
    assert.equal(atToss.status, 'CANCELED');
    assert.equal(atToss.balanceAmount, 0);
    const [after] = await ordersOf(orderId);
    assert.equal(after.status, 'refunded');
    assert.equal(after.refunded_amount, 15_000);
  } finally {
    await b.stop();
  }
});

test('billing charge: killed after Toss charged a renewal, a restarted server records that one charge and renews the subscription', { skip }, async () => {
  const product = await createSubscriptionProduct(t, s, { mode: 'live' });
  const session = await createSession(t, live, { productId: product.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
  assert.equal((await submitPayForm(t, session)).statusCode, 200, 'Toss\'s billing-auth window opens');
  const subscriptionId = `sub_${session.id.slice(3)}`;
  const started = await t.app.inject({ url: `${payPath(session)}/toss/billing-success?${new URLSearchParams({ authKey: 'auth_kill_0001', customerKey: subscriptionId })}` });
  assert.equal(started.statusCode, 303, started.body);
  const sub = await t.db.selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).executeTakeFirstOrThrow();
  assert.equal(sub.status, 'active');

  // The billing run at the period end charges the card at Toss; the server dies before recording the charge.
  const at = new Date(sub.current_period_end.getTime() + 1_000);
  const a = await startServer(at);
  const killed = killAfterToss(a, (c) => c.method === 'POST' && /^\/v1\/billing\/[^/]+$/.test(c.path));
  const run = settled(a.run());
  const chargeCall = await killed;
  assert.match(String((await run).error), /server process ended/, 'the billing run never finished');
  const renewalOrderId: string = chargeCall.body.orderId;
  assert.equal(tossPaymentsFor(renewalOrderId)[0]?.status, 'DONE', 'Toss charged the renewal');
  const [claimed] = await t.db.selectFrom('subscription_charges').selectAll().where('subscription_id', '=', subscriptionId).execute();
  assert.equal(claimed.status, 'charging', 'we recorded only the claim');
  assert.equal(claimed.order_id, renewalOrderId);
  assert.deepEqual(await ordersOf(renewalOrderId), []);

  // A new process once the charge's lease has run out: the billing run takes the charge over and asks Toss again
  // with the same Idempotency-Key and orderId, which answers the charge already made.
  const b = await startServer(new Date(at.getTime() + CHARGE_LEASE_MS + 1_000));
  try {
    await b.run();

    const atToss = tossPaymentsFor(renewalOrderId);
    assert.equal(atToss.length, 1, 'one renewal charge at Toss');
    const charges = fake.calls.filter((c) => c.method === 'POST' && c.path === chargeCall.path && c.body?.orderId === renewalOrderId);
    assert.ok(charges.every((c) => c.headers['idempotency-key'] === chargeCall.headers['idempotency-key']), 'every attempt of this charge used the one Idempotency-Key');
    const [order] = await ordersOf(renewalOrderId);
    assert.ok(order, 'the renewal order is recorded');
    assert.equal(order.status, 'paid');
    assert.equal(order.amount, atToss[0].totalAmount);
    assert.equal(order.amount, 9_900);
    assert.equal(order.provider_payment_key, atToss[0].paymentKey);
    assert.equal(order.subscription_id, subscriptionId);
    assert.equal(order.subscription_event, 'renewal');
    const charge = await t.db.selectFrom('subscription_charges').selectAll().where('id', '=', claimed.id).executeTakeFirstOrThrow();
    assert.equal(charge.status, 'succeeded');
    const renewed = await t.db.selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).executeTakeFirstOrThrow();
    assert.equal(renewed.status, 'active');
    assert.equal(renewed.current_period_start.getTime(), sub.current_period_end.getTime(), 'renewed for the next period');
    assert.equal(renewed.latest_order_id, renewalOrderId);
    assert.equal((await eventsOf('order.paid', renewalOrderId)).length, 1, 'one order.paid for the seller');

    // Another billing run charges nothing more.
    const before = fake.payments.size;
    await b.run();
    assert.equal(fake.payments.size, before);
    assert.equal((await t.db.selectFrom('subscription_charges').select('id').where('subscription_id', '=', subscriptionId).execute()).length, 1);
  } finally {
    await b.stop();
  }
});
