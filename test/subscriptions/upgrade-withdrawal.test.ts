import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, subscribe, getSubscription, eventsOf } from './factory';
import { file, act, getOrder } from '../refunds/requests/helpers';

// Issue 29 (follow-up): an upgrade's difference order withdrawn on its own. Before the fix the subscription kept the
// upgraded plan: a basic 9,900 buyer who upgraded to pro (difference 9,354 on 2027-03-04) and withdrew the difference
// order held pro, and the renewal on 04-02 charged 19,900, having paid basic for the period. 제17조/제18조: the withdrawal
// voids the upgrade contract; the subscription goes back to what it was before it, as sold then.

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const kst = (v: string) => new Date(`${v}+09:00`);
const PLANS = [
  { id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 },
  { id: 'pro', name: '프로', monthlyPrice: 19_900, yearlyPrice: 199_000 },
];

async function advanceTo(subscriptionId: string, to: Date) {
  const row = await t.db.selectFrom('subscriptions').select('test_clock_offset_ms').where('id', '=', subscriptionId).executeTakeFirstOrThrow();
  const minutes = Math.round((to.getTime() - (t.clock.now().getTime() + Number(row.test_clock_offset_ms))) / 60_000);
  const res = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${subscriptionId}/test-clock/advance`, headers: owner(s), payload: { minutes } });
  assert.equal(res.statusCode, 200, res.body);
}

/** The buyer's portal: its path and the page as it reads now. */
async function portal(subscriptionId: string) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId, returnUrl: 'https://example.com/account' } });
  assert.equal(res.statusCode, 200, res.body);
  const path = new URL(res.json().url).pathname;
  const page = (await t.app.inject({ url: path })).body;
  return { path, page };
}

/** The buyer upgrades to pro in the portal (their own change: a difference order is charged at once). */
async function upgradeInPortal(subscriptionId: string) {
  const { path, page } = await portal(subscriptionId);
  const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec(page)![1];
  const res = await t.app.inject({
    method: 'POST',
    url: `${path}/subscriptions/${subscriptionId}/plan`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ plan: 'pro:monthly', csrf }).toString(),
  });
  assert.equal(res.statusCode, 303, res.body);
  const sub = await getSubscription(t, s.key, subscriptionId);
  assert.equal(sub.planId, 'pro', 'the upgrade took effect');
  const diff = await t.db.selectFrom('orders').select(['id', 'amount']).where('subscription_id', '=', subscriptionId).where('subscription_event', '=', 'difference').executeTakeFirstOrThrow();
  return { id: diff.id, amount: Number(diff.amount) };
}

async function newMonthly(at: Date) {
  t.clock.set(at);
  const p = await createSubscriptionProduct(t, s, { plans: PLANS, license: { mode: 'service' } });
  return subscribe(t, s, { productId: p.id, planId: 'basic', interval: 'monthly' });
}

const ordersOf = (subscriptionId: string) =>
  t.db.selectFrom('orders').select(['amount', 'status', 'subscription_event', 'plan_id']).where('subscription_id', '=', subscriptionId).orderBy('created_at').execute();
const rowOf = (subscriptionId: string) => t.db.selectFrom('subscriptions').select(['terms', 'recurring_consent', 'pending_plan']).where('id', '=', subscriptionId).executeTakeFirstOrThrow();

test('a statutory withdrawal of the difference order alone returns the subscription to basic; the renewal charges 9,900', async () => {
  const sub = await newMonthly(kst('2027-03-02T10:00:00'));
  const before = await rowOf(sub.subscriptionId);
  await advanceTo(sub.subscriptionId, kst('2027-03-04T10:00:00'));
  const diff = await upgradeInPortal(sub.subscriptionId);
  // (19,900 − 9,900) × 29 days left ÷ 31, rounded down.
  assert.equal(diff.amount, 9_354);

  // Two days later the buyer withdraws the upgrade on the difference order's receipt page (statutory, 9,354).
  await advanceTo(sub.subscriptionId, kst('2027-03-06T10:00:00'));
  const rr = await file({ t, s }, await getOrder({ t, s }, diff.id));
  assert.equal(rr.statutory, true);
  assert.equal(rr.amount, 9_354);
  const approved = await act({ t, s }, rr.id, 'approve', {});
  assert.equal(approved.statusCode, 200, approved.body);

  const after = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(after.status, 'active', 'the base order still pays for the period');
  assert.equal(after.planId, 'basic', 'back on the plan before the upgrade');
  assert.equal(after.billingInterval, 'monthly');
  assert.equal(after.amount, 9_900, 'the renewal price as sold then');
  // The terms and the recurring consent are those of the basic sale again (the cancel preview's M, the consent text).
  const row = await rowOf(sub.subscriptionId);
  assert.deepEqual(row.terms, before.terms);
  assert.deepEqual(row.recurring_consent, before.recurring_consent);

  // One subscription.updated in the refund's transaction says what happened.
  const told = (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === sub.subscriptionId && e.change.kind === 'plan_change_withdrawn');
  assert.equal(told.length, 1);
  assert.equal(told[0].planId, 'basic');
  assert.equal(told[0].change.orderId, diff.id);
  assert.equal(told[0].change.refundRequestId, rr.id);
  assert.equal(told[0].change.statutory, true);
  assert.deepEqual(told[0].change.from, { planId: 'pro', billingInterval: 'monthly', amount: 19_900 });
  assert.deepEqual(told[0].change.to, { planId: 'basic', billingInterval: 'monthly', amount: 9_900 });

  // The licence runs on to the period end the base order paid for.
  const lic = await t.db.selectFrom('licenses').select(['status', 'expires_at']).where('subscription_id', '=', sub.subscriptionId).execute();
  assert.ok(lic.length >= 1);
  for (const l of lic) {
    assert.equal(l.status, 'active');
    assert.equal(l.expires_at?.toISOString(), kst('2027-04-02T10:00:00').toISOString());
  }

  // The portal shows the earlier plan and price.
  const { page } = await portal(sub.subscriptionId);
  assert.match(page, /베이직(?:<\/span>)? · [^<]* 9,900원/);

  // The renewal on 04-02 charges basic's 9,900 (before the fix: 19,900 for pro).
  await advanceTo(sub.subscriptionId, kst('2027-04-02T10:01:00'));
  const orders = await ordersOf(sub.subscriptionId);
  assert.deepEqual(
    orders.map((o) => [o.subscription_event, o.plan_id, Number(o.amount), o.status]),
    [
      ['initial', 'basic', 9_900, 'paid'],
      ['difference', 'pro', 9_354, 'refunded'],
      ['renewal', 'basic', 9_900, 'paid'],
    ],
  );
  const renewed = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(renewed.planId, 'basic');
  assert.equal(renewed.currentPeriodEnd, kst('2027-05-02T10:00:00').toISOString());
});

test('a seller\'s full refund of the difference order outside its window also voids the upgrade; a partial one does not', async () => {
  const sub = await newMonthly(kst('2027-03-02T10:00:00'));
  await advanceTo(sub.subscriptionId, kst('2027-03-04T10:00:00'));
  const diff = await upgradeInPortal(sub.subscriptionId);
  await advanceTo(sub.subscriptionId, kst('2027-03-20T10:00:00'));
  const part = await t.app.inject({ method: 'POST', url: `/v1/orders/${diff.id}/refund`, headers: post(s.key), payload: { amount: 1_000 } });
  assert.equal(part.statusCode, 200, part.body);
  assert.equal((await getSubscription(t, s.key, sub.subscriptionId)).planId, 'pro', 'a partial refund is a discount, the upgrade stands');
  const rest = await t.app.inject({ method: 'POST', url: `/v1/orders/${diff.id}/refund`, headers: post(s.key), payload: {} });
  assert.equal(rest.statusCode, 200, rest.body);
  const after = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(after.status, 'active');
  assert.equal(after.planId, 'basic');
  assert.equal(after.amount, 9_900);
  const told = (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === sub.subscriptionId && e.change.kind === 'plan_change_withdrawn');
  assert.equal(told.length, 1);
  assert.equal(told[0].change.statutory, false, 'outside the window: the seller\'s refund, not a 청약철회');
  await advanceTo(sub.subscriptionId, kst('2027-04-02T10:01:00'));
  assert.deepEqual((await ordersOf(sub.subscriptionId)).map((o) => Number(o.amount)), [9_900, 9_354, 9_900]);
});

test('withdrawing the difference order and then the base order ends the subscription as a withdrawal; nothing renews', async () => {
  const sub = await newMonthly(kst('2027-03-02T10:00:00'));
  await advanceTo(sub.subscriptionId, kst('2027-03-03T10:00:00'));
  const diff = await upgradeInPortal(sub.subscriptionId);
  await advanceTo(sub.subscriptionId, kst('2027-03-04T10:00:00'));
  const first = await t.app.inject({ method: 'POST', url: `/v1/orders/${diff.id}/refund`, headers: post(s.key), payload: {} });
  assert.equal(first.statusCode, 200, first.body);
  assert.equal((await getSubscription(t, s.key, sub.subscriptionId)).planId, 'basic');
  const rr = await file({ t, s }, await getOrder({ t, s }, sub.orderId));
  assert.equal(rr.statutory, true);
  assert.equal((await act({ t, s }, rr.id, 'approve', {})).statusCode, 200);
  const end = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(end.status, 'ended');
  assert.equal(end.endReason, 'withdrawn');
  await advanceTo(sub.subscriptionId, kst('2027-04-05T10:00:00'));
  assert.equal((await ordersOf(sub.subscriptionId)).length, 2, 'no renewal');
});

test('an upgrade paid before migration 075 (no recorded previous terms): the migration recovers plan and price from its plan_changed event, the terms come from the period\'s own order', async () => {
  const sub = await newMonthly(kst('2027-03-02T10:00:00'));
  const before = await rowOf(sub.subscriptionId);
  await advanceTo(sub.subscriptionId, kst('2027-03-04T10:00:00'));
  const diff = await upgradeInPortal(sub.subscriptionId);
  // As an upgrade recorded before the migration left it; then the migration's backfill runs over it.
  await t.db.updateTable('subscription_charges').set({ previous: sql`null` }).where('order_id', '=', diff.id).execute();
  const migration = readFileSync(new URL('../../src/db/migrations/075_upgrade_previous_terms.sql', import.meta.url), 'utf8');
  const backfill = migration.slice(migration.indexOf('update subscription_charges'));
  await sql.raw(backfill).execute(t.db);
  const charge = await t.db.selectFrom('subscription_charges').select('previous').where('order_id', '=', diff.id).executeTakeFirstOrThrow();
  assert.deepEqual(charge.previous, { planId: 'basic', interval: 'monthly', amount: 9_900 });

  const refund = await t.app.inject({ method: 'POST', url: `/v1/orders/${diff.id}/refund`, headers: post(s.key), payload: {} });
  assert.equal(refund.statusCode, 200, refund.body);
  const after = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(after.planId, 'basic');
  assert.equal(after.amount, 9_900);
  const base = await t.db.selectFrom('orders').select('terms').where('id', '=', sub.orderId).executeTakeFirstOrThrow();
  assert.deepEqual((await rowOf(sub.subscriptionId)).terms, base.terms, 'the terms the basic order was sold under');
  assert.deepEqual((await rowOf(sub.subscriptionId)).terms, before.terms);
});

test('a later upgrade stands on the withdrawn one: withdrawing the first returns to basic, withdrawing the second afterwards changes nothing more', async () => {
  t.clock.set(kst('2027-03-02T10:00:00'));
  const p = await createSubscriptionProduct(t, s, { plans: [...PLANS, { id: 'max', name: '맥스', monthlyPrice: 29_900, yearlyPrice: 299_000 }] });
  const sub = await subscribe(t, s, { productId: p.id, planId: 'basic', interval: 'monthly' });
  await advanceTo(sub.subscriptionId, kst('2027-03-03T10:00:00'));
  const toPro = await upgradeInPortal(sub.subscriptionId);
  await advanceTo(sub.subscriptionId, kst('2027-03-05T10:00:00'));
  const { path, page } = await portal(sub.subscriptionId);
  const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec(page)![1];
  const up = await t.app.inject({ method: 'POST', url: `${path}/subscriptions/${sub.subscriptionId}/plan`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ plan: 'max:monthly', csrf }).toString() });
  assert.equal(up.statusCode, 303, up.body);
  assert.equal((await getSubscription(t, s.key, sub.subscriptionId)).planId, 'max');
  const toMax = await t.db.selectFrom('orders').select('id').where('subscription_id', '=', sub.subscriptionId).where('subscription_event', '=', 'difference').where('plan_id', '=', 'max').executeTakeFirstOrThrow();

  await advanceTo(sub.subscriptionId, kst('2027-03-06T10:00:00'));
  assert.equal((await t.app.inject({ method: 'POST', url: `/v1/orders/${toPro.id}/refund`, headers: post(s.key), payload: {} })).statusCode, 200);
  const first = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(first.planId, 'basic', 'max was priced from pro: it falls with it');
  assert.equal(first.amount, 9_900);
  assert.equal((await t.app.inject({ method: 'POST', url: `/v1/orders/${toMax.id}/refund`, headers: post(s.key), payload: {} })).statusCode, 200);
  const second = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(second.planId, 'basic', 'not back to pro, which was withdrawn');
  assert.equal(second.amount, 9_900);
  const told = (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === sub.subscriptionId && e.change.kind === 'plan_change_withdrawn');
  assert.equal(told.length, 1);
});
