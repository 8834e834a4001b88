import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, eventsOf, subscribe } from './factory';
import { TEST_CARDS } from '../../src/payments';

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const advance = (store: TestStore, id: string, body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${id}/test-clock/advance`, headers: owner(store), payload: body });

test('advancing a test subscription past its period end renews it at once, with order.paid renewal and period_renewed; the service clock does not move', async () => {
  const p = await createSubscriptionProduct(t, s);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  const serviceNow = t.clock.now().toISOString();
  const res = await advance(s, subscriptionId, { days: 31 });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.equal(body.processed, 1);
  assert.equal(body.testClock.frozenTime, '2026-12-02T00:00:00.000Z');
  assert.equal(body.subscription.status, 'active');
  assert.equal(body.subscription.currentPeriodStart, '2026-12-01T00:00:00.000Z');
  assert.equal(body.subscription.currentPeriodEnd, '2027-01-01T00:00:00.000Z');
  assert.equal(t.clock.now().toISOString(), serviceNow);
  const paid = (await eventsOf(t, 'order.paid')).filter((e) => e.subscriptionId === subscriptionId && e.subscriptionEvent === 'renewal');
  assert.equal(paid.length, 1);
  assert.equal(paid[0].paidAt, '2026-12-02T00:00:00.000Z');
  assert.equal((await eventsOf(t, 'subscription.updated')).filter((e) => e.id === subscriptionId && e.change.kind === 'period_renewed').length, 1);
  // Advancing a little more runs nothing new.
  const again = (await advance(s, subscriptionId, { hours: 1 })).json();
  assert.equal(again.processed, 0);
});

test('with the failing test card, advancing shows the failed renewal, the dunning retries and the end (payment_failed)', async () => {
  const p = await createSubscriptionProduct(t, s);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id, cardNumber: TEST_CARDS.renewalDeclined });
  let body = (await advance(s, subscriptionId, { days: 30, hours: 1 })).json();
  assert.equal(body.subscription.status, 'past_due');
  assert.equal(body.subscription.nextRetryAt, '2026-12-02T00:00:00.000Z');
  body = (await advance(s, subscriptionId, { days: 8 })).json();
  assert.equal(body.subscription.status, 'ended');
  assert.equal(body.subscription.endReason, 'payment_failed');
  const ended = (await eventsOf(t, 'subscription.ended')).filter((e) => e.id === subscriptionId);
  assert.equal(ended.length, 1);
  const failed = (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === subscriptionId && e.change.kind === 'payment_failed');
  assert.equal(failed.length, 3, 'the period-end charge and the +1, +3 day retries failed before the +7 day one ended it');
  // An ended subscription's clock still moves (its refund requests and receipts follow it), but nothing renews.
  const again = await advance(s, subscriptionId, { days: 40 });
  assert.equal(again.statusCode, 200, again.body);
  assert.equal(again.json().processed, 0);
  assert.equal(again.json().subscription.status, 'ended');
  assert.equal((await eventsOf(t, 'order.paid')).filter((e) => e.subscriptionId === subscriptionId && e.subscriptionEvent === 'renewal').length, 0);
});

test('a scheduled period-end cancellation ends the subscription when the test clock reaches the period end', async () => {
  const p = await createSubscriptionProduct(t, s);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  await t.db.updateTable('subscriptions').set({ cancel_at_period_end: true, canceled_at: t.clock.now() }).where('id', '=', subscriptionId).execute();
  const body = (await advance(s, subscriptionId, { days: 30 })).json();
  assert.equal(body.subscription.status, 'ended');
  assert.equal(body.subscription.endReason, 'canceled');
  assert.equal((await eventsOf(t, 'subscription.ended')).filter((e) => e.id === subscriptionId).length, 1);
});

test('refusals: another store (SUBSCRIPTION_NOT_FOUND), a live subscription (TEST_MODE_ONLY), a zero or backwards move (VALIDATION_FAILED), no owner token', async () => {
  const p = await createSubscriptionProduct(t, s);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  const other = await createTestStore(t);
  const r1 = await advance(other, subscriptionId, { days: 1 });
  assert.equal(r1.statusCode, 404);
  assert.equal(r1.json().code, 'SUBSCRIPTION_NOT_FOUND');
  for (const body of [{}, { days: 0 }, { days: -1 }, { days: 1, seconds: 5 }]) {
    const r = await advance(s, subscriptionId, body);
    assert.equal(r.statusCode, 400, JSON.stringify(body));
    assert.equal(r.json().code, 'VALIDATION_FAILED');
  }
  const r3 = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${subscriptionId}/test-clock/advance`, payload: { days: 1 } });
  assert.equal(r3.statusCode, 401);
  await t.db.updateTable('subscriptions').set({ mode: 'live' }).where('id', '=', subscriptionId).execute();
  const r2 = await advance(s, subscriptionId, { days: 1 });
  assert.equal(r2.statusCode, 409);
  assert.equal(r2.json().code, 'TEST_MODE_ONLY');
  const row = await t.db.selectFrom('subscriptions').select('test_clock_offset_ms').where('id', '=', subscriptionId).executeTakeFirstOrThrow();
  assert.equal(Number(row.test_clock_offset_ms), 0);
});

test('the console lists (mode test by default, filters) and reads its store\'s subscriptions; another store\'s are not found', async () => {
  const store = await createTestStore(t);
  const p = await createSubscriptionProduct(t, store);
  const a = await subscribe(t, store, { productId: p.id, buyerEmail: 'a@example.com' });
  t.clock.advance(1_000);
  const b = await subscribe(t, store, { productId: p.id, buyerEmail: 'b@example.com' });
  const list = await t.app.inject({ url: '/admin/v1/subscriptions', headers: owner(store) });
  assert.equal(list.statusCode, 200, list.body);
  assert.deepEqual(list.json().data.map((x: any) => x.id), [b.subscriptionId, a.subscriptionId]);
  const filtered = (await t.app.inject({ url: '/admin/v1/subscriptions?buyerEmail=A@example.com&status=active', headers: owner(store) })).json();
  assert.deepEqual(filtered.data.map((x: any) => x.id), [a.subscriptionId]);
  assert.equal((await t.app.inject({ url: '/admin/v1/subscriptions?mode=live', headers: owner(store) })).json().total, 0);
  const one = await t.app.inject({ url: `/admin/v1/subscriptions/${a.subscriptionId}`, headers: owner(store) });
  assert.equal(one.json().buyerEmail, 'a@example.com');
  const foreign = await t.app.inject({ url: `/admin/v1/subscriptions/${a.subscriptionId}`, headers: owner(s) });
  assert.equal(foreign.statusCode, 404);
  assert.equal(foreign.json().code, 'SUBSCRIPTION_NOT_FOUND');
});
