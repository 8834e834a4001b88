import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { acceptOffer } from '../../src/subscriptions/plan-change/offers';
import { createSubscriptionProduct, subscribe } from './factory';
import { licenseOf, nonce } from '../licenses/factory';
import { buy, file, act, getRequest, product as oneTimeProduct } from '../refunds/requests/helpers';

// Issue 19: the terms a buyer was sold under are the contract (전자상거래법 제17조). Each test sells first, then the
// seller edits the product, then time passes on the subscription's own test clock, and the buyer's refund is what
// the sale's terms give. Each of these reproduced a defect while terms were read from the live product.

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

const patchProduct = (id: string, body: Record<string, unknown>) =>
  t.app.inject({ method: 'PATCH', url: `/admin/v1/products/${id}`, headers: owner(s), payload: body }).then((r) => {
    assert.equal(r.statusCode, 200, r.body);
    return r.json();
  });

/** Moves the subscription's test clock to the KST wall time `to` (the service clock stays where it is). */
async function advanceTo(subscriptionId: string, to: Date) {
  const now = await t.db.selectFrom('subscriptions').select('test_clock_offset_ms').where('id', '=', subscriptionId).executeTakeFirstOrThrow();
  const subNow = t.clock.now().getTime() + Number(now.test_clock_offset_ms);
  const minutes = Math.round((to.getTime() - subNow) / 60_000);
  const res = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${subscriptionId}/test-clock/advance`, headers: owner(s), payload: { minutes } });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().testClock.frozenTime, to.toISOString());
  return res.json();
}

async function preview(id: string) {
  const res = await t.app.inject({ url: `/v1/subscriptions/${id}/cancel-preview`, headers: bearer(s.key) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().immediate;
}

function cancel(id: string) {
  return t.app.inject({ method: 'POST', url: `/v1/subscriptions/${id}/cancel`, headers: post(s.key), payload: { timing: 'immediate' } });
}

const PLANS = [
  { id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 },
  { id: 'pro', name: '프로', monthlyPrice: 19_900, yearlyPrice: 199_000 },
];

test('raising the monthly list price after a yearly sale leaves that subscriber\'s clawback at the sold price: worked example 3 still refunds 56,727', async () => {
  t.clock.set(kst('2027-01-10T10:00:00'));
  const p = await createSubscriptionProduct(t, s, { refundPolicy: { clawbackDisclosed: true } });
  const sub = await subscribe(t, s, { productId: p.id, interval: 'yearly' });
  await patchProduct(p.id, { pricing: { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 19_900, yearlyPrice: 99_000 }] } });
  // 3 full month-cycles and 19 days of a 30-day cycle (u = 109), on the subscription's clock.
  await advanceTo(sub.subscriptionId, kst('2027-04-28T12:00:00'));
  const im = await preview(sub.subscriptionId);
  assert.equal(im.usedDays, 109);
  assert.equal(im.deduction, 29_975);
  assert.equal(im.clawback, 5_995, 'floor(9,900 × 109 / 30) − 29,975 at the sold monthly price, not 19,900');
  assert.equal(im.refundAmount, 56_727);
  const c = await cancel(sub.subscriptionId);
  assert.equal(c.statusCode, 200, c.body);
  assert.equal(c.json().refundAmount, 56_727);
  // The cancel's end time is the subscription's own time, not the service clock's.
  assert.equal(c.json().subscription.endedAt, kst('2027-04-28T12:00:00').toISOString());
  assert.equal(c.json().subscription.canceledAt, kst('2027-04-28T12:00:00').toISOString());
});

test('switching clawbackDisclosed on after a sale takes no clawback from that buyer (62,123, not 56,727); a later sale gets the new terms', async () => {
  t.clock.set(kst('2027-01-10T10:00:00'));
  const p = await createSubscriptionProduct(t, s);
  const sold = await subscribe(t, s, { productId: p.id, interval: 'yearly' });
  await patchProduct(p.id, { refundPolicy: { clawbackDisclosed: true } });
  const later = await subscribe(t, s, { productId: p.id, interval: 'yearly' });
  await advanceTo(sold.subscriptionId, kst('2027-04-28T12:00:00'));
  await advanceTo(later.subscriptionId, kst('2027-04-28T12:00:00'));
  const a = await preview(sold.subscriptionId);
  assert.equal(a.clawback, 0);
  assert.equal(a.penalty, 6_902);
  assert.equal(a.refundAmount, 62_123);
  const b = await preview(later.subscriptionId);
  assert.equal(b.clawback, 5_995);
  assert.equal(b.refundAmount, 56_727);
  assert.equal((await cancel(sold.subscriptionId)).json().refundAmount, 62_123);
});

test('marking a trial and the usage restriction after a sale does not take the right of withdrawal from a buyer who used the licence: statutory, and the seller cannot reject', async () => {
  t.clock.set(kst('2026-11-02T10:00:00'));
  const p = await createSubscriptionProduct(t, s, { license: { mode: 'service' } });
  const sub = await subscribe(t, s, { productId: p.id });
  await patchProduct(p.id, { refundPolicy: { trialOffered: true, usageRestrictionMarked: true } });
  // The licence is activated on day 2 of the subscription's clock: "used" is judged on that clock.
  await advanceTo(sub.subscriptionId, kst('2026-11-03T10:00:00'));
  const lic = await licenseOf(t, sub.orderId);
  const activated = await t.app.inject({ method: 'POST', url: '/v1/licenses/activate', payload: { key: lic.key, productId: p.id, nonce: nonce() } });
  assert.equal(activated.statusCode, 200, activated.body);
  const activation = await t.db.selectFrom('license_activations').select('activated_at').where('license_id', '=', lic.id).executeTakeFirstOrThrow();
  assert.equal(activation.activated_at.toISOString(), kst('2026-11-03T10:00:00').toISOString(), 'the activation is stamped with the subscription\'s time');
  await advanceTo(sub.subscriptionId, kst('2026-11-04T10:00:00'));
  const im = await preview(sub.subscriptionId);
  assert.equal(im.reason, 'statutory_full', 'used, but no trial/restriction was disclosed at sale');
  assert.equal(im.statutory, true);
  assert.equal(im.refundAmount, 9_900);

  // The same holds for the buyer's refund request from the receipt: statutory, so the seller cannot reject it.
  const order = (await t.app.inject({ url: `/v1/orders/${sub.orderId}`, headers: bearer(s.key) })).json();
  const rr = await file({ t, s }, order, { reason: '생각과 달라요' });
  assert.equal(rr.statutory, true);
  const rejected = await act({ t, s }, rr.id, 'reject', { reason: '이미 사용함' });
  assert.equal(rejected.statusCode, 409, rejected.body);
  assert.equal(rejected.json().code, 'REFUND_STATUTORY_LOCKED');
});

test('shortening refundDays 14 → 7 after a sale keeps that buyer\'s 14-day window (subscription on its test clock, and a one-time order)', async () => {
  t.clock.set(kst('2026-11-02T10:00:00'));
  const p = await createSubscriptionProduct(t, s, { refundPolicy: { refundDays: 14 } });
  const sub = await subscribe(t, s, { productId: p.id });
  await patchProduct(p.id, { refundPolicy: { refundDays: 7 } });
  await advanceTo(sub.subscriptionId, kst('2026-11-11T10:00:00'));
  const im = await preview(sub.subscriptionId);
  assert.equal(im.reason, 'initial_full', 'day 10 of a 14-day window');
  assert.equal(im.statutory, true);
  assert.equal(im.refundAmount, 9_900);

  const one = await oneTimeProduct({ t, s }, { refundPolicy: { refundDays: 14 } });
  const order = await buy({ t, s }, one.id);
  await patchProduct(one.id, { refundPolicy: { refundDays: 7 } });
  t.clock.set(kst('2026-11-11T10:00:00'));
  const rr = await file({ t, s }, order);
  assert.equal(rr.statutory, true, 'day 9 of the 14 days sold');
  assert.equal((await act({ t, s }, rr.id, 'hold', { reason: '확인 중' })).json().code, 'REFUND_STATUTORY_LOCKED');
});

test('upgrade basic yearly → pro yearly: the basic order\'s clawback uses basic\'s monthly price, capped at M×N − P; the difference order\'s part is a statutory request, locked and approved on its own', async () => {
  t.clock.set(kst('2027-01-10T10:00:00'));
  const p = await createSubscriptionProduct(t, s, { plans: PLANS, refundPolicy: { clawbackDisclosed: true } });
  const sub = await subscribe(t, s, { productId: p.id, interval: 'yearly' });
  // The upgrade on 2027-04-20 10:00 KST, 100 days into the year 2027-01-10 → 2028-01-10 (365 days).
  await advanceTo(sub.subscriptionId, kst('2027-04-20T10:00:00'));
  // The seller's upgrade is an offer (issue 29); the buyer accepts it, which runs the upgrade then.
  const changed = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${sub.subscriptionId}/change-plan`, headers: owner(s), payload: { planId: 'pro', interval: 'yearly' } });
  assert.equal(changed.statusCode, 200, changed.body);
  assert.equal(changed.json().timing, 'awaiting_consent');
  assert.equal((await acceptOffer(t.deps, sub.subscriptionId, changed.json().offer.id)).timing, 'now');
  const difference = await t.db.selectFrom('orders').select(['id', 'amount']).where('subscription_id', '=', sub.subscriptionId).where('id', '!=', sub.orderId).executeTakeFirstOrThrow();
  // Difference: floor((199,000 − 99,000) × 265 / 365) = floor(72,602.7…) = 72,602.
  assert.equal(Number(difference.amount), 72_602);

  // Two days later the buyer cancels from the portal. On the subscription's clock: 2027-04-22 10:00 KST.
  await advanceTo(sub.subscriptionId, kst('2027-04-22T10:00:00'));
  const im = await preview(sub.subscriptionId);
  const basic = im.breakdown.find((b: { orderId: string }) => b.orderId === sub.orderId);
  const diff = im.breakdown.find((b: { orderId: string }) => b.orderId === difference.id);
  // The basic order (P = 99,000, M = 9,900 as sold, N = 12): 3 full month-cycles (01-10 → 04-10) and 13 days of the
  // 30-day cycle 04-10 → 05-10, u = 3 × 30 + 13 = 103.
  //   deduction = floor(99,000 × 103 / (12 × 30)) = floor(28,325) = 28,325
  //   clawback = min(max(floor(9,900 × 103 / 30) − 28,325, 0), 9,900 × 12 − 99,000) = min(33,990 − 28,325, 19,800) = 5,665
  //   R = 99,000 − 28,325 − 5,665 = 65,010; penalty floor(65,010 × 10%) = 6,501; refund 58,509
  // (read with pro's 19,900 as M, as before issue 19: clawback min(68,323 − 28,325, 19,900 × 12 − 99,000) = 39,998,
  // R = 30,677, penalty 3,067, refund 27,610).
  assert.equal(basic.amount, 58_509);
  // The difference order is inside its own 7-day window and unused: all of it, 72,602.
  assert.equal(diff.amount, 72_602);
  assert.equal(im.clawback, 5_665);
  assert.equal(im.refundAmount, 58_509 + 72_602);
  assert.equal(im.requiresApproval, true, 'the basic order\'s prorated part needs the seller');

  const portal = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId: sub.subscriptionId, returnUrl: 'https://example.com/account' } });
  const path = new URL(portal.json().url).pathname;
  const page = (await t.app.inject({ url: path })).body;
  const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec(page)![1];
  const res = await t.app.inject({
    method: 'POST',
    url: `${path}/subscriptions/${sub.subscriptionId}/cancel`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ timing: 'immediate', csrf }).toString(),
  });
  assert.ok(res.statusCode < 400, res.body);
  const requests = await t.db.selectFrom('refund_requests').select(['id', 'order_id', 'amount', 'statutory', 'auto_approve_at', 'requested_at']).where('subscription_id', '=', sub.subscriptionId).execute();
  assert.equal(requests.length, 2);
  const forDiff = requests.find((r) => r.order_id === difference.id)!;
  const forBasic = requests.find((r) => r.order_id === sub.orderId)!;
  assert.equal(forDiff.statutory, true);
  assert.equal(Number(forDiff.amount), 72_602);
  assert.equal(forDiff.requested_at.toISOString(), kst('2027-04-22T10:00:00').toISOString(), 'filed at the subscription\'s time');
  // Filed Thursday 2027-04-22: business days Fri 04-23, Mon 04-26, Tue 04-27 → 12:00 KST on Tuesday.
  assert.equal(forDiff.auto_approve_at!.toISOString(), kst('2027-04-27T12:00:00').toISOString());
  assert.equal(forBasic.statutory, false);
  // The seller's part has the seller's deadline: 12:00 KST on the fifth business day (Fri 23, Mon 26, Tue 27, Wed 28,
  // Thu 29), before the period being refunded ends; undecided (or held) then, it is approved.
  assert.equal(forBasic.auto_approve_at!.toISOString(), kst('2027-04-29T12:00:00').toISOString());
  assert.equal(Number(forBasic.amount), 58_509);

  const rejected = await act({ t, s }, forDiff.id, 'reject', { reason: '정책상 불가' });
  assert.equal(rejected.statusCode, 409, rejected.body);
  assert.equal(rejected.json().code, 'REFUND_STATUTORY_LOCKED');
  // The seller may decide the basic order's request; the statutory one is approved on the subscription's clock.
  assert.equal((await act({ t, s }, forBasic.id, 'hold', { reason: '확인 중' })).statusCode, 200);
  await advanceTo(sub.subscriptionId, kst('2027-04-27T11:59:00'));
  assert.equal((await getRequest({ t, s }, forDiff.id)).status, 'requested');
  await advanceTo(sub.subscriptionId, kst('2027-04-27T12:01:00'));
  const approved = await getRequest({ t, s }, forDiff.id);
  assert.equal(approved.status, 'approved');
  assert.equal((await getRequest({ t, s }, forBasic.id)).status, 'held');
  const diffOrder = (await t.app.inject({ url: `/v1/orders/${difference.id}`, headers: bearer(s.key) })).json();
  assert.equal(diffOrder.refundedAmount, 72_602);
});

