import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, subscribe, getSubscription, eventsOf } from './factory';
import { file, act, getRequest, getOrder } from '../refunds/requests/helpers';
import { undoScheduledCancel } from '../../src/subscriptions/cancel/service';
import { acceptOffer } from '../../src/subscriptions/plan-change/offers';

// Issue 29, item 1 and 3: a subscription's state follows the money. Each test first reproduced the defect the issue
// reports (through the HTTP API and the subscription's test clock), then passes with the fix.

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

/** Moves the subscription's test clock to the KST wall time `to` (runs what is due on its clock: renewals, auto-approvals). */
async function advanceTo(subscriptionId: string, to: Date) {
  const row = await t.db.selectFrom('subscriptions').select('test_clock_offset_ms').where('id', '=', subscriptionId).executeTakeFirstOrThrow();
  const minutes = Math.round((to.getTime() - (t.clock.now().getTime() + Number(row.test_clock_offset_ms))) / 60_000);
  const res = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${subscriptionId}/test-clock/advance`, headers: owner(s), payload: { minutes } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function newMonthly(at: Date) {
  t.clock.set(at);
  const p = await createSubscriptionProduct(t, s, { plans: PLANS });
  return subscribe(t, s, { productId: p.id, planId: 'basic', interval: 'monthly' });
}

async function preview(id: string) {
  const res = await t.app.inject({ url: `/v1/subscriptions/${id}/cancel-preview`, headers: bearer(s.key) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const cancel = (id: string, timing: 'immediate' | 'period_end' = 'immediate') =>
  t.app.inject({ method: 'POST', url: `/v1/subscriptions/${id}/cancel`, headers: post(s.key), payload: { timing } });

const ordersOf = (subscriptionId: string) =>
  t.db.selectFrom('orders').select(['id', 'amount', 'status', 'subscription_event']).where('subscription_id', '=', subscriptionId).orderBy('created_at').execute();

const chargesOf = (subscriptionId: string) => t.db.selectFrom('subscription_charges').select(['id', 'kind', 'status']).where('subscription_id', '=', subscriptionId).execute();

test('a statutory request approved ends the subscription (withdrawn) and the renewal never charges again', async () => {
  // The issue: monthly 9,900 bought; clock +2 days; a statutory request (9,900) filed on the receipt page and
  // approved; the order is `refunded` — and the subscription stayed `active` (preview 0 with blockedReason null, an
  // immediate cancel answered 409 SUBSCRIPTION_REFUND_NONE_LEFT), and 25 days later the renewal charged 9,900 again.
  const sub = await newMonthly(kst('2027-03-02T10:00:00'));
  await advanceTo(sub.subscriptionId, kst('2027-03-04T10:00:00'));
  const order = await getOrder({ t, s }, sub.orderId);
  const rr = await file({ t, s }, order);
  assert.equal(rr.statutory, true);
  assert.equal(rr.amount, 9_900);
  const approved = await act({ t, s }, rr.id, 'approve', {});
  assert.equal(approved.statusCode, 200, approved.body);
  assert.equal((await getOrder({ t, s }, sub.orderId)).status, 'refunded');

  const after = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(after.status, 'ended', 'a refunded withdrawal voids the contract');
  assert.equal(after.endReason, 'withdrawn');
  assert.equal(after.endedAt, kst('2027-03-04T10:00:00').toISOString(), 'ended at the subscription\'s own time');
  const ended = (await eventsOf(t, 'subscription.ended')).filter((e) => e.id === sub.subscriptionId);
  assert.equal(ended.length, 1);
  assert.equal(ended[0].endReason, 'withdrawn');
  assert.equal(ended[0].refund.kind, 'withdrawal');
  assert.equal(ended[0].refund.refundRequestId, rr.id);
  // Preview and cancel agree: blocked as ended.
  assert.equal((await preview(sub.subscriptionId)).immediate.blockedReason.code, 'ALREADY_ENDED');
  assert.equal((await cancel(sub.subscriptionId)).json().code, 'ALREADY_ENDED');
  // The licence stops with the contract.
  const lic = await t.db.selectFrom('licenses').select(['status', 'expires_at']).where('subscription_id', '=', sub.subscriptionId).execute();
  for (const l of lic) assert.ok(l.status === 'revoked' || (l.expires_at !== null && l.expires_at <= kst('2027-03-04T10:00:00')), JSON.stringify(l));

  // 25 days later (past the period end 04-02), and two months on: nothing is charged.
  await advanceTo(sub.subscriptionId, kst('2027-03-29T10:00:00'));
  await advanceTo(sub.subscriptionId, kst('2027-05-10T10:00:00'));
  assert.deepEqual((await ordersOf(sub.subscriptionId)).map((o) => [Number(o.amount), o.status]), [[9_900, 'refunded']]);
  assert.equal((await chargesOf(sub.subscriptionId)).length, 0, 'no renewal charge was even claimed');
});

test('a seller\'s full refund inside the window ends it (withdrawn); an upgrade afterwards is refused, never charged as a difference', async () => {
  // The issue: the same after a seller's full refund (POST /v1/orders/{id}/refund); and after the withdrawal an
  // upgrade to pro charged only the 9,999 difference, so the buyer held pro for 9,999 instead of 19,900.
  const sub = await newMonthly(kst('2027-03-02T10:00:00'));
  await advanceTo(sub.subscriptionId, kst('2027-03-04T10:00:00'));
  const refund = await t.app.inject({ method: 'POST', url: `/v1/orders/${sub.orderId}/refund`, headers: post(s.key), payload: {} });
  assert.equal(refund.statusCode, 200, refund.body);
  const after = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(after.status, 'ended');
  assert.equal(after.endReason, 'withdrawn');

  const up = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${sub.subscriptionId}/change-plan`, headers: owner(s), payload: { planId: 'pro', interval: 'monthly' } });
  assert.equal(up.statusCode, 409, up.body);
  assert.equal(up.json().code, 'ALREADY_ENDED');
  await advanceTo(sub.subscriptionId, kst('2027-04-03T10:00:00'));
  assert.deepEqual((await ordersOf(sub.subscriptionId)).map((o) => Number(o.amount)), [9_900], 'no difference, no renewal');
});

test('a seller\'s full refund after the window ends it now with endReason refunded; a partial refund leaves it running', async () => {
  // Decision (docs/manual/08-subscriptions.md): outside the window it is no withdrawal, but nothing is paid for the
  // period any more; it ends now (`refunded`) rather than at the period end, so no service runs unpaid and no
  // upgrade can charge a difference on a price already returned.
  const sub = await newMonthly(kst('2027-03-02T10:00:00'));
  await advanceTo(sub.subscriptionId, kst('2027-03-15T10:00:00'));
  const part = await t.app.inject({ method: 'POST', url: `/v1/orders/${sub.orderId}/refund`, headers: post(s.key), payload: { amount: 1_000 } });
  assert.equal(part.statusCode, 200, part.body);
  assert.equal((await getSubscription(t, s.key, sub.subscriptionId)).status, 'active', 'a partial refund changes nothing');
  const rest = await t.app.inject({ method: 'POST', url: `/v1/orders/${sub.orderId}/refund`, headers: post(s.key), payload: {} });
  assert.equal(rest.statusCode, 200, rest.body);
  const after = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(after.status, 'ended');
  assert.equal(after.endReason, 'refunded');
  await advanceTo(sub.subscriptionId, kst('2027-04-05T10:00:00'));
  assert.equal((await ordersOf(sub.subscriptionId)).length, 1);
});

test('a period already refunded in full (no end recorded) : the preview shows 0 without blockedReason and the cancel ends it without a refund', async () => {
  // The issue: preview 0 with blockedReason null, while the immediate cancel answered 409 SUBSCRIPTION_REFUND_NONE_LEFT
  // (no way for the buyer to end it now). Reached here as data left before the fix: the order refunded, the
  // subscription still active.
  const sub = await newMonthly(kst('2027-03-02T10:00:00'));
  await t.db.updateTable('orders').set({ status: 'refunded', refunded_amount: 9_900 }).where('id', '=', sub.orderId).execute();
  const p = (await preview(sub.subscriptionId)).immediate;
  assert.equal(p.refundAmount, 0);
  assert.equal(p.blockedReason, null);
  const r = await cancel(sub.subscriptionId);
  assert.equal(r.statusCode, 200, r.body);
  assert.equal(r.json().refundAmount, 0);
  assert.equal(r.json().subscription.status, 'ended');
  assert.equal(r.json().subscription.endReason, 'canceled');
});

/** Opens the portal for the subscription and posts its immediate cancel form; returns the confirmation page. */
async function portalCancel(subscriptionId: string) {
  const portal = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId, returnUrl: 'https://example.com/account' } });
  assert.equal(portal.statusCode, 200, portal.body);
  const path = new URL(portal.json().url).pathname;
  const page = (await t.app.inject({ url: path })).body;
  const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec(page)![1];
  const res = await t.app.inject({
    method: 'POST',
    url: `${path}/subscriptions/${subscriptionId}/cancel`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ timing: 'immediate', csrf }).toString(),
  });
  assert.ok(res.statusCode < 400, res.body);
  const shown = res.statusCode === 303 ? await t.app.inject({ url: new URL(String(res.headers.location), 'http://x').pathname + new URL(String(res.headers.location), 'http://x').search }) : res;
  return { path, page: shown.body };
}

async function upgradedYearly() {
  t.clock.set(kst('2027-01-10T10:00:00'));
  const p = await createSubscriptionProduct(t, s, { plans: PLANS, refundPolicy: { clawbackDisclosed: true } });
  const sub = await subscribe(t, s, { productId: p.id, interval: 'yearly' });
  await advanceTo(sub.subscriptionId, kst('2027-04-20T10:00:00'));
  // The seller's upgrade is an offer the buyer accepts (a dearer change needs their consent), which runs it then.
  const changed = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${sub.subscriptionId}/change-plan`, headers: owner(s), payload: { planId: 'pro', interval: 'yearly' } });
  assert.equal(changed.statusCode, 200, changed.body);
  assert.equal((await acceptOffer(t.deps, sub.subscriptionId, changed.json().offer.id)).timing, 'now');
  const difference = await t.db.selectFrom('orders').select(['id', 'amount']).where('subscription_id', '=', sub.subscriptionId).where('id', '!=', sub.orderId).executeTakeFirstOrThrow();
  await advanceTo(sub.subscriptionId, kst('2027-04-22T10:00:00'));
  return { ...sub, differenceId: difference.id };
}

test('a portal cancel whose refund awaits the seller keeps the service; rejected, it runs to its period end and nothing is lost', async () => {
  // The issue: an immediate portal cancel whose refund needed the seller's approval ended the subscription at once;
  // the seller then rejected the request (46,850) and the buyer lost about seven paid months, while the statutory
  // part (61,643) auto-approved. Same shape here (yearly basic upgraded to pro, cancelled two days later): the basic
  // order's prorated part 58,509 awaits the seller, the difference order's 72,602 is statutory.
  const sub = await upgradedYearly();
  const { page } = await portalCancel(sub.subscriptionId);
  const running = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(running.status, 'active', 'not ended before the seller decides');
  assert.equal(running.cancelAtPeriodEnd, true, 'no renewal while the decision is open');
  // The confirmation names every part: refunded at once (none here), what auto-approves and by when, what awaits.
  assert.match(page, /72,602원/);
  assert.match(page, /2027년 4월 27일/);
  assert.match(page, /58,509원/);
  assert.match(page, /판매자/);

  // While the refund is undecided the cancel cannot be undone (decided together).
  await assert.rejects(undoScheduledCancel(t.deps, sub.subscriptionId), { code: 'REFUND_REQUEST_PENDING' });
  const requests = await t.db.selectFrom('refund_requests').select(['id', 'order_id', 'statutory']).where('subscription_id', '=', sub.subscriptionId).execute();
  const forBasic = requests.find((r) => r.order_id === sub.orderId)!;
  const forDiff = requests.find((r) => r.order_id === sub.differenceId)!;
  // The statutory part auto-approves on the subscription's clock (Tue 2027-04-27 12:00 KST); the service runs on.
  await advanceTo(sub.subscriptionId, kst('2027-04-27T12:01:00'));
  const auto = await getRequest({ t, s }, forDiff.id);
  assert.equal(auto.status, 'approved');
  // Item 6: the automatic approval is dated on the subscription's clock, never before its request.
  assert.equal(auto.decidedAt, kst('2027-04-27T12:01:00').toISOString());
  assert.ok(auto.decidedAt >= auto.requestedAt);
  assert.equal((await getSubscription(t, s.key, sub.subscriptionId)).status, 'active');

  const rejected = await act({ t, s }, forBasic.id, 'reject', { reason: '사용 기록이 있어 환불이 어렵습니다' });
  assert.equal(rejected.statusCode, 200, rejected.body);
  const kept = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(kept.status, 'active', 'the buyer keeps what they paid for');
  assert.equal(kept.cancelAtPeriodEnd, true);
  assert.equal(kept.currentPeriodEnd, kst('2028-01-10T10:00:00').toISOString());
  const told = (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === sub.subscriptionId && e.change.kind === 'cancel_refund_rejected');
  assert.equal(told.length, 1);
  const mails = await t.db.selectFrom('mail_outbox').select(['kind', 'recipient', 'data']).where('kind', '=', 'refund_request_decided').execute();
  assert.ok(mails.length >= 1, 'the buyer is told by mail');
  // It ends at its period end as cancelled, with no charge.
  await advanceTo(sub.subscriptionId, kst('2028-01-10T10:01:00'));
  const end = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(end.status, 'ended');
  assert.equal(end.endReason, 'canceled');
  assert.equal((await ordersOf(sub.subscriptionId)).length, 2, 'no renewal');
});

test('a portal cancel awaiting the seller: approved, it ends then (canceled)', async () => {
  const sub = await upgradedYearly();
  await portalCancel(sub.subscriptionId);
  const requests = await t.db.selectFrom('refund_requests').select(['id', 'order_id']).where('subscription_id', '=', sub.subscriptionId).execute();
  const forBasic = requests.find((r) => r.order_id === sub.orderId)!;
  const forDiff = requests.find((r) => r.order_id === sub.differenceId)!;
  // The seller approves the basic part first: the statutory part is still undecided, so the service runs on.
  assert.equal((await act({ t, s }, forBasic.id, 'approve', {})).statusCode, 200);
  assert.equal((await getSubscription(t, s.key, sub.subscriptionId)).status, 'active');
  assert.equal((await act({ t, s }, forDiff.id, 'approve', {})).statusCode, 200);
  const end = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(end.status, 'ended');
  assert.equal(end.endReason, 'canceled');
  assert.equal(end.endedAt, kst('2027-04-22T10:00:00').toISOString());
});

test('the API\'s timing immediate keeps its meaning: a seller\'s cancel ends now and refunds at once', async () => {
  const sub = await upgradedYearly();
  const r = await cancel(sub.subscriptionId);
  assert.equal(r.statusCode, 200, r.body);
  assert.equal(r.json().subscription.status, 'ended');
  assert.equal(r.json().refundAmount, 58_509 + 72_602);
});
