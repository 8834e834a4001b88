import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { createSubscriptionProduct, eventsOf, getSubscription, subscribe } from './factory';
import { TEST_CARDS } from '../../src/payments';
import { runBilling } from '../../src/subscriptions/renewal/service';
import { updateCard } from '../../src/subscriptions/service';
import { DUNNING_RETRY_DAYS } from '../../src/subscriptions/model';

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const DAY = 86_400_000;
const at = (iso: string, plusMs: number) => new Date(new Date(iso).getTime() + plusMs);

async function chargesOf(subscriptionId: string) {
  return t.db.selectFrom('subscription_charges').selectAll().where('subscription_id', '=', subscriptionId).orderBy('attempt').execute();
}

test('the renewal-declining test card: past_due, retries +1, +3, +7 days after the period end, then ended payment_failed with licenses expired', async () => {
  assert.deepEqual([...DUNNING_RETRY_DAYS], [1, 3, 7]);
  const p = await createSubscriptionProduct(t, s, { license: { mode: 'service' } });
  const { subscriptionId, orderId } = await subscribe(t, s, { productId: p.id, cardNumber: TEST_CARDS.renewalDeclined });
  const first = await getSubscription(t, s.key, subscriptionId);
  const end = first.currentPeriodEnd;

  t.clock.set(at(end, 1_000));
  await runBilling(t.deps, t.clock.now());
  let sub = await getSubscription(t, s.key, subscriptionId);
  assert.equal(sub.status, 'past_due');
  assert.equal(sub.currentPeriodStart, end, 'the unpaid period is the current one');
  assert.equal(sub.nextRetryAt, at(end, 1 * DAY).toISOString());
  let failed = (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === subscriptionId && e.change.kind === 'payment_failed');
  assert.equal(failed.length, 1);
  assert.equal(failed[0].change.errorCode, 'REJECT_CARD_PAYMENT');
  assert.equal(failed[0].status, 'past_due');

  // Nothing more happens before the retry is due.
  t.clock.set(at(end, 1 * DAY - 1_000));
  await runBilling(t.deps, t.clock.now());
  assert.equal((await chargesOf(subscriptionId)).length, 1);

  t.clock.set(at(end, 1 * DAY));
  await runBilling(t.deps, t.clock.now());
  sub = await getSubscription(t, s.key, subscriptionId);
  assert.equal(sub.status, 'past_due');
  assert.equal(sub.nextRetryAt, at(end, 3 * DAY).toISOString());

  t.clock.set(at(end, 3 * DAY));
  await runBilling(t.deps, t.clock.now());
  sub = await getSubscription(t, s.key, subscriptionId);
  assert.equal(sub.nextRetryAt, at(end, 7 * DAY).toISOString());
  assert.equal((await eventsOf(t, 'subscription.ended')).filter((e) => e.id === subscriptionId).length, 0);

  t.clock.set(at(end, 7 * DAY));
  await runBilling(t.deps, t.clock.now());
  await runBilling(t.deps, t.clock.now());
  sub = await getSubscription(t, s.key, subscriptionId);
  assert.equal(sub.status, 'ended');
  assert.equal(sub.endReason, 'payment_failed');
  assert.equal(sub.nextRetryAt, null);
  assert.deepEqual((await chargesOf(subscriptionId)).map((c) => [c.attempt, c.status]), [[0, 'failed'], [1, 'failed'], [2, 'failed'], [3, 'failed']]);
  const ended = (await eventsOf(t, 'subscription.ended')).filter((e) => e.id === subscriptionId);
  assert.equal(ended.length, 1);
  assert.equal(ended[0].endReason, 'payment_failed');
  const orders = await t.db.selectFrom('orders').select('id').where('subscription_id', '=', subscriptionId).execute();
  assert.deepEqual(orders.map((o) => o.id), [orderId], 'no renewal order was created');
  const lic = await t.db.selectFrom('licenses').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
  assert.ok(lic.expires_at && lic.expires_at <= t.clock.now(), 'the license has expired');
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('failed renewal → past_due → card update retries at once → active, with the renewal order and extended licenses', async () => {
  const p = await createSubscriptionProduct(t, s, { license: { mode: 'service' } });
  const { subscriptionId, orderId } = await subscribe(t, s, { productId: p.id, cardNumber: TEST_CARDS.renewalDeclined });
  const end = (await getSubscription(t, s.key, subscriptionId)).currentPeriodEnd;
  t.clock.set(at(end, 2 * 3_600_000));
  await runBilling(t.deps, t.clock.now());
  assert.equal((await getSubscription(t, s.key, subscriptionId)).status, 'past_due');

  // A card the gateway refuses to register changes nothing.
  await assert.rejects(updateCard(t.deps, subscriptionId, { authKey: 'sim_auth_1234' }), (e: any) => e.code === 'CARD_UPDATE_FAILED');
  assert.equal((await chargesOf(subscriptionId)).length, 1);

  const r = await updateCard(t.deps, subscriptionId, { authKey: `sim_auth_${TEST_CARDS.success}` });
  assert.equal(r.retry?.status, 'succeeded');
  assert.equal(r.subscription.status, 'active');
  assert.equal(r.subscription.nextRetryAt, null);
  assert.deepEqual(r.subscription.card, { brand: '카드', last4: '4242' });
  assert.equal(r.subscription.currentPeriodStart, end);
  const renewal = await t.db.selectFrom('orders').selectAll().where('subscription_id', '=', subscriptionId).where('subscription_event', '=', 'renewal').execute();
  assert.equal(renewal.length, 1);
  assert.equal(renewal[0].period_start?.toISOString(), end);
  const kinds = (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === subscriptionId).map((e) => e.change.kind);
  // Events written in one millisecond have no order between them: compare as a set.
  assert.deepEqual(kinds.sort(), ['card_updated', 'payment_failed', 'period_renewed']);
  const lic = await t.db.selectFrom('licenses').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
  assert.equal(lic.expires_at?.toISOString(), r.subscription.currentPeriodEnd);

  // The scheduled retry no longer runs.
  t.clock.set(at(end, 1 * DAY));
  await runBilling(t.deps, t.clock.now());
  assert.equal((await chargesOf(subscriptionId)).length, 2);
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('a card update on an active subscription charges nothing; on an ended one it is refused', async () => {
  const p = await createSubscriptionProduct(t, s);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  const r = await updateCard(t.deps, subscriptionId, { authKey: `sim_auth_5555555555554444` });
  assert.equal(r.retry, null);
  assert.equal(r.subscription.card?.last4, '4444');
  assert.equal((await chargesOf(subscriptionId)).length, 0);
  await t.db.updateTable('subscriptions').set({ status: 'ended', end_reason: 'canceled', ended_at: t.clock.now() }).where('id', '=', subscriptionId).execute();
  await assert.rejects(updateCard(t.deps, subscriptionId, { authKey: `sim_auth_${TEST_CARDS.success}` }), (e: any) => e.code === 'ALREADY_ENDED');
  await assert.rejects(updateCard(t.deps, 'sub_missing', { authKey: `sim_auth_${TEST_CARDS.success}` }), (e: any) => e.code === 'SUBSCRIPTION_NOT_FOUND');
});
