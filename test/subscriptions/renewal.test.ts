import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { createSubscriptionProduct, eventsOf, getSubscription, subscribe } from './factory';
import { Worker } from '../../src/jobs/worker';
import { simulatorFor } from '../../src/payments';
import { billingTask, runBilling } from '../../src/subscriptions/renewal/service';
import { CHARGE_LEASE_MS } from '../../src/subscriptions/model';

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

/** Counts the gateway's billing charges (by idempotency key) while `fn` runs; each call yields once so workers interleave. */
type Call = { idempotencyKey: string; orderId: string; amount: number; customerKey: string };
/** Tests share one database: `only` keeps the calls of one subscription (its id is the gateway's customerKey). */
async function countingCharges<T>(only: string | null, fn: (calls: Call[]) => Promise<T>): Promise<T> {
  const sim = simulatorFor(t.clock);
  const original = sim.chargeBillingKey;
  const calls: Call[] = [];
  sim.chargeBillingKey = async function (input) {
    if (!only || input.customerKey === only) calls.push({ idempotencyKey: input.idempotencyKey, orderId: input.orderId, amount: input.amount, customerKey: input.customerKey });
    await new Promise((r) => setImmediate(r));
    return original.call(this, input);
  };
  try {
    return await fn(calls);
  } finally {
    sim.chargeBillingKey = original;
  }
}

async function renewalOrders(subscriptionId: string) {
  return t.db.selectFrom('orders').selectAll().where('subscription_id', '=', subscriptionId).where('subscription_event', '=', 'renewal').orderBy('period_start').execute();
}

test('two workers and a clock moved past the period end: exactly one charge and one renewal order, with order.paid renewal, period_renewed and extended licenses', async () => {
  const p = await createSubscriptionProduct(t, s, { license: { mode: 'service', maxActivations: 2 } });
  const { subscriptionId, orderId } = await subscribe(t, s, { productId: p.id, metadata: { userId: 'u_9' } });
  const before = await getSubscription(t, s.key, subscriptionId);
  const license = await t.db.selectFrom('licenses').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
  assert.equal(license.expires_at?.toISOString(), before.currentPeriodEnd);

  const log = pino({ level: 'silent' }) as any;
  const w1 = new Worker(t.db, t.clock, log);
  const w2 = new Worker(t.db, t.clock, log);
  w1.addTask(billingTask(t.deps));
  w2.addTask(billingTask(t.deps));

  t.clock.set(new Date(new Date(before.currentPeriodEnd).getTime() + 1_000));
  const calls = await countingCharges(subscriptionId, async (calls) => {
    await Promise.all([w1.runOnce(), w2.runOnce(), w1.runOnce(), w2.runOnce()]);
    await Promise.all([w1.runOnce(), w2.runOnce()]);
    return calls;
  });
  assert.equal(calls.length, 1, JSON.stringify(calls));
  assert.equal(calls[0].amount, 9_900);
  const orders = await renewalOrders(subscriptionId);
  assert.equal(orders.length, 1);
  assert.equal(orders[0].id, calls[0].orderId);
  assert.equal(orders[0].status, 'paid');
  assert.equal(orders[0].period_start?.toISOString(), before.currentPeriodEnd);
  assert.equal(orders[0].period_end?.toISOString(), '2027-01-01T00:00:00.000Z');

  const after = await getSubscription(t, s.key, subscriptionId);
  assert.equal(after.status, 'active');
  assert.equal(after.currentPeriodStart, before.currentPeriodEnd);
  assert.equal(after.currentPeriodEnd, '2027-01-01T00:00:00.000Z');
  assert.equal(after.latestOrderId, orders[0].id);

  const paid = (await eventsOf(t, 'order.paid')).filter((e) => e.id === orders[0].id);
  assert.equal(paid.length, 1);
  assert.equal(paid[0].subscriptionEvent, 'renewal');
  assert.equal(paid[0].subscriptionId, subscriptionId);
  assert.deepEqual(paid[0].metadata, { userId: 'u_9' });
  const updated = (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === subscriptionId);
  assert.equal(updated.length, 1);
  assert.equal(updated[0].change.kind, 'period_renewed');
  assert.equal(updated[0].change.orderId, orders[0].id);
  assert.equal(updated[0].currentPeriodEnd, '2027-01-01T00:00:00.000Z');

  const extended = await t.db.selectFrom('licenses').selectAll().where('id', '=', license.id).executeTakeFirstOrThrow();
  assert.equal(extended.expires_at?.toISOString(), '2027-01-01T00:00:00.000Z');
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('a charge whose worker died at the gateway is retried after its lease with the same idempotency key: one order', async () => {
  const p = await createSubscriptionProduct(t, s);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  const sub = await getSubscription(t, s.key, subscriptionId);
  t.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + 1_000));
  const calls = await countingCharges(subscriptionId, async (calls) => {
    // The first call times out (unknown): the charge stays claimed and nobody else charges it meanwhile.
    simulatorFor(t.clock).injectFailure('chargeBillingKey', 'unknown');
    await runBilling(t.deps, t.clock.now());
    await runBilling(t.deps, t.clock.now());
    assert.equal(calls.length, 1);
    assert.equal((await renewalOrders(subscriptionId)).length, 0);
    t.clock.advance(CHARGE_LEASE_MS + 1);
    await runBilling(t.deps, t.clock.now());
    await runBilling(t.deps, t.clock.now());
    return calls;
  });
  assert.equal(calls.length, 2);
  assert.equal(calls[1].idempotencyKey, calls[0].idempotencyKey);
  assert.equal(calls[1].orderId, calls[0].orderId);
  assert.equal((await renewalOrders(subscriptionId)).length, 1);
  assert.equal((await getSubscription(t, s.key, subscriptionId)).status, 'active');
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('a clock moved three periods ahead renews three times, once per period', async () => {
  const p = await createSubscriptionProduct(t, s);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  t.clock.set('2027-02-01T00:00:01.000Z');
  await countingCharges(subscriptionId, async (calls) => {
    await runBilling(t.deps, t.clock.now());
    await runBilling(t.deps, t.clock.now());
    assert.equal(calls.length, 3);
  });
  const orders = await renewalOrders(subscriptionId);
  assert.deepEqual(
    orders.map((o) => o.period_start?.toISOString()),
    ['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z'],
  );
  assert.equal((await getSubscription(t, s.key, subscriptionId)).currentPeriodEnd, '2027-03-01T00:00:00.000Z');
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('cancelAtPeriodEnd: the period end ends it (subscription.ended, endReason canceled) without charging', async () => {
  const p = await createSubscriptionProduct(t, s, { license: { mode: 'service' } });
  const { subscriptionId, orderId } = await subscribe(t, s, { productId: p.id });
  await t.db.updateTable('subscriptions').set({ cancel_at_period_end: true, canceled_at: t.clock.now() }).where('id', '=', subscriptionId).execute();
  const sub = await getSubscription(t, s.key, subscriptionId);
  t.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + 1_000));
  await countingCharges(subscriptionId, async (calls) => {
    await runBilling(t.deps, t.clock.now());
    assert.equal(calls.length, 0);
  });
  const ended = await getSubscription(t, s.key, subscriptionId);
  assert.equal(ended.status, 'ended');
  assert.equal(ended.endReason, 'canceled');
  assert.equal(ended.endedAt, sub.currentPeriodEnd);
  const ev = (await eventsOf(t, 'subscription.ended')).filter((e) => e.id === subscriptionId);
  assert.equal(ev.length, 1);
  assert.equal(ev[0].endReason, 'canceled');
  assert.equal((await renewalOrders(subscriptionId)).length, 0);
  const lic = await t.db.selectFrom('licenses').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
  assert.ok(lic.expires_at && lic.expires_at <= t.clock.now());
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('a renewal charge that succeeds after the subscription ended meanwhile records the order but does not revive it', async () => {
  const p = await createSubscriptionProduct(t, s);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  const sub = await getSubscription(t, s.key, subscriptionId);
  t.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + 1_000));
  const sim = simulatorFor(t.clock);
  const original = sim.chargeBillingKey;
  // An immediate cancel lands while the renewal is with the gateway.
  sim.chargeBillingKey = async function (input) {
    await t.db.updateTable('subscriptions').set({ status: 'ended', end_reason: 'canceled', ended_at: t.clock.now() }).where('id', '=', subscriptionId).execute();
    return original.call(this, input);
  };
  try {
    await runBilling(t.deps, t.clock.now());
  } finally {
    sim.chargeBillingKey = original;
  }
  const after = await getSubscription(t, s.key, subscriptionId);
  assert.equal(after.status, 'ended');
  assert.equal(after.currentPeriodEnd, sub.currentPeriodEnd);
  assert.equal((await renewalOrders(subscriptionId)).length, 1, 'the money taken is on record for the seller to refund');
  assert.equal((await eventsOf(t, 'subscription.updated')).filter((e) => e.id === subscriptionId).length, 0);
  t.clock.set('2026-11-01T00:00:00.000Z');
});
