import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, eventsOf, getSubscription, subscribe } from './factory';
import { TEST_CARDS } from '../../src/payments';
import { runBilling } from '../../src/subscriptions/renewal/service';
import { prorateDifference } from '../../src/subscriptions/model';
import { changePlan } from '../../src/subscriptions/plan-change/service';
import { ApiError } from '../../src/platform/errors';

let t: TestApp;
let s: TestStore;
const PLANS = [
  { id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 },
  { id: 'pro', name: '프로', monthlyPrice: 19_900, yearlyPrice: 199_000 },
];

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

/**
 * The buyer's own plan change (the portal's form calls exactly this): since issue 29 a seller's change that makes the
 * buyer pay more is only an offer (test/subscriptions/seller-consent.test.ts), so the upgrade mechanics below are the
 * buyer's. The answer is shaped like the console's HTTP answer.
 */
const change = async (id: string, body: Record<string, unknown>) => {
  try {
    const r = JSON.parse(JSON.stringify(await changePlan(t.deps, id, body as { planId: string; interval: 'monthly' | 'yearly' }, { actor: 'buyer' })));
    return { statusCode: 200, body: JSON.stringify(r), json: () => r };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const e = { code: err.code, message: err.message, details: err.details };
    return { statusCode: err.statusCode, body: JSON.stringify(e), json: () => e as any };
  }
};

test('prorated difference: (new − old) × time left ÷ period, rounded down; nothing for a cheaper plan or at the end', () => {
  const start = new Date('2026-11-01T00:00:00Z');
  const end = new Date('2026-12-01T00:00:00Z');
  assert.equal(prorateDifference(9_900, 19_900, start, end, new Date('2026-11-11T00:00:00Z')), 6_666);
  assert.equal(prorateDifference(9_900, 19_900, start, end, start), 10_000);
  assert.equal(prorateDifference(9_900, 19_900, start, end, end), 0);
  assert.equal(prorateDifference(19_900, 9_900, start, end, start), 0);
  assert.equal(prorateDifference(1_000_000_000, 2_000_000_000, start, new Date('2027-11-01T00:00:00Z'), new Date('2027-05-02T12:00:00Z')), 500_000_000);
});

test('an upgrade takes effect now and charges the prorated difference (order.paid difference, plan_changed); the next renewal charges the new price', async () => {
  const p = await createSubscriptionProduct(t, s, { plans: PLANS });
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  t.clock.set('2026-11-11T00:00:00.000Z');
  const res = await change(subscriptionId, { planId: 'pro', interval: 'monthly' });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.equal(body.timing, 'now');
  assert.equal(body.amount, 6_666);
  assert.equal(body.subscription.planId, 'pro');
  assert.equal(body.subscription.amount, 19_900);
  assert.equal(body.subscription.latestOrderId, body.orderId);
  assert.equal(body.subscription.currentPeriodEnd, '2026-12-01T00:00:00.000Z', 'the period does not move');
  const order = await t.db.selectFrom('orders').selectAll().where('id', '=', body.orderId).executeTakeFirstOrThrow();
  assert.equal(order.subscription_event, 'difference');
  assert.equal(Number(order.amount), 6_666);
  assert.equal(order.plan_id, 'pro');
  const paid = (await eventsOf(t, 'order.paid')).filter((e) => e.id === body.orderId);
  assert.equal(paid.length, 1);
  assert.equal(paid[0].subscriptionEvent, 'difference');
  const upd = (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === subscriptionId && e.change.kind === 'plan_changed');
  assert.equal(upd.length, 1);
  assert.equal(upd[0].change.timing, 'now');
  assert.deepEqual(upd[0].change.to, { planId: 'pro', billingInterval: 'monthly', amount: 19_900 });

  // Choosing it again is refused; the renewal charges the new price.
  const again = await change(subscriptionId, { planId: 'pro', interval: 'monthly' });
  assert.equal(again.statusCode, 400);
  assert.equal(again.json().code, 'PLAN_CHANGE_INVALID');
  t.clock.set('2026-12-01T00:00:01.000Z');
  await runBilling(t.deps, t.clock.now());
  const renewal = await t.db.selectFrom('orders').selectAll().where('subscription_id', '=', subscriptionId).where('subscription_event', '=', 'renewal').executeTakeFirstOrThrow();
  assert.equal(Number(renewal.amount), 19_900);
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('two upgrades at the same instant (basic → pro → max) are two changes: each charged its own difference, never a 5xx', async () => {
  const p = await createSubscriptionProduct(t, s, { plans: [...PLANS, { id: 'max', name: '맥스', monthlyPrice: 29_900, yearlyPrice: 299_000 }] });
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  t.clock.set('2026-11-11T00:00:00.000Z');
  const first = await change(subscriptionId, { planId: 'pro', interval: 'monthly' });
  assert.equal(first.statusCode, 200, first.body);
  const second = await change(subscriptionId, { planId: 'max', interval: 'monthly' });
  assert.equal(second.statusCode, 200, second.body);
  assert.equal(second.json().subscription.planId, 'max');
  assert.equal(second.json().amount, 6_666, '(29,900 − 19,900) × 20/30');
  assert.notEqual(second.json().orderId, first.json().orderId);
  const diffs = await t.db.selectFrom('orders').select(['amount', 'plan_id']).where('subscription_id', '=', subscriptionId).where('subscription_event', '=', 'difference').orderBy('created_at').execute();
  assert.deepEqual(diffs.map((o) => [Number(o.amount), o.plan_id]), [[6_666, 'pro'], [6_666, 'max']]);
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('a downgrade waits for the next renewal (plan_change_scheduled, pendingPlanChange), which charges the cheaper price and switches the plan', async () => {
  const p = await createSubscriptionProduct(t, s, { plans: PLANS });
  const { subscriptionId } = await subscribe(t, s, { productId: p.id, planId: 'pro' });
  const res = await change(subscriptionId, { planId: 'basic', interval: 'monthly' });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.equal(body.timing, 'next_renewal');
  assert.equal(body.orderId, null);
  assert.equal(body.amount, 0);
  assert.equal(body.subscription.planId, 'pro');
  assert.deepEqual(body.subscription.pendingPlanChange, { planId: 'basic', billingInterval: 'monthly', amount: 9_900, currency: 'KRW', effectiveAt: '2026-12-01T00:00:00.000Z' });
  const sched = (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === subscriptionId && e.change.kind === 'plan_change_scheduled');
  assert.equal(sched.length, 1);
  assert.equal(sched[0].change.timing, 'next_renewal');
  t.clock.set('2026-12-01T00:00:01.000Z');
  await runBilling(t.deps, t.clock.now());
  const sub = await getSubscription(t, s.key, subscriptionId);
  assert.equal(sub.planId, 'basic');
  assert.equal(sub.amount, 9_900);
  assert.equal(sub.pendingPlanChange, null);
  const renewal = await t.db.selectFrom('orders').selectAll().where('subscription_id', '=', subscriptionId).where('subscription_event', '=', 'renewal').executeTakeFirstOrThrow();
  assert.equal(Number(renewal.amount), 9_900);
  assert.equal(renewal.plan_id, 'basic');
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('choosing the current plan again undoes a scheduled downgrade', async () => {
  const p = await createSubscriptionProduct(t, s, { plans: PLANS });
  const { subscriptionId } = await subscribe(t, s, { productId: p.id, planId: 'pro' });
  await change(subscriptionId, { planId: 'basic', interval: 'yearly' });
  const res = (await change(subscriptionId, { planId: 'pro', interval: 'monthly' })).json();
  assert.equal(res.timing, 'unscheduled');
  assert.equal(res.subscription.pendingPlanChange, null);
  assert.equal(res.subscription.amount, 19_900);
});

test('a declined difference charge changes nothing (402 SUBSCRIPTION_PAYMENT_FAILED); unknown plans and intervals are refused', async () => {
  const p = await createSubscriptionProduct(t, s, { plans: [...PLANS, { id: 'lite', name: '라이트', monthlyPrice: 4_900, yearlyPrice: null }] });
  const { subscriptionId } = await subscribe(t, s, { productId: p.id, cardNumber: TEST_CARDS.renewalDeclined });
  const res = await change(subscriptionId, { planId: 'pro', interval: 'monthly' });
  assert.equal(res.statusCode, 402, res.body);
  assert.equal(res.json().code, 'SUBSCRIPTION_PAYMENT_FAILED');
  const sub = await getSubscription(t, s.key, subscriptionId);
  assert.equal(sub.planId, 'basic');
  assert.equal(sub.amount, 9_900);
  const orders = await t.db.selectFrom('orders').select('id').where('subscription_id', '=', subscriptionId).execute();
  assert.equal(orders.length, 1);

  const unknown = await change(subscriptionId, { planId: 'nope', interval: 'monthly' });
  assert.equal(unknown.statusCode, 400);
  assert.equal(unknown.json().code, 'VALIDATION_FAILED');
  assert.equal(unknown.json().details.fields[0].field, 'planId');
  const noYearly = await change(subscriptionId, { planId: 'lite', interval: 'yearly' });
  assert.equal(noYearly.json().details.fields[0].field, 'interval');
  const other = await createTestStore(t);
  const foreign = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${subscriptionId}/change-plan`, headers: owner(other), payload: { planId: 'pro', interval: 'monthly' } });
  assert.equal(foreign.json().code, 'SUBSCRIPTION_NOT_FOUND');
});
