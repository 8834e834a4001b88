import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post, bearer, type TestApp, type TestStore } from '../helpers/app';
import { createSubscriptionProduct, subscribe, getSubscription, eventsOf } from './factory';

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

/** Subscribes at `at`, then opens a portal session at `now` (default: `at`). */
async function open(o: { at: Date; now?: Date; email?: string }) {
  t.clock.set(o.at);
  const product = await createSubscriptionProduct(t, s);
  const sub = await subscribe(t, s, { productId: product.id, buyerEmail: o.email ?? `b${Math.random().toString(36).slice(2)}@example.com` });
  if (o.now) t.clock.set(o.now);
  const res = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId: sub.subscriptionId, returnUrl: 'https://example.com/account' } });
  assert.equal(res.statusCode, 200, res.body);
  const path = new URL(res.json().url).pathname;
  return { ...sub, path };
}

const csrfOf = (page: string) => /name="csrf" value="([A-Za-z0-9]+)"/.exec(page)![1];
const form = (t: TestApp, url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: new URLSearchParams(fields).toString() });

test('the portal shows both cancel options side by side with the previewed refund, the orders and the way back', async () => {
  const p = await open({ at: kst('2026-11-02T10:00:00'), now: kst('2026-11-04T10:00:00') });
  const res = await t.app.inject({ url: p.path });
  assert.equal(res.statusCode, 200);
  const page = res.body;
  assert.match(page, /<html lang="ko">/);
  // The seller's business details (전자상거래법 표시 의무) stand in the footer of the portal as on every hosted page.
  assert.match(page, /<footer class="biz"[\s\S]*사업자등록번호 123-45-67891[\s\S]*<\/footer>/);
  assert.match(page, /기간 종료 시 해지/);
  assert.match(page, /지금 해지하고 환불받기/);
  assert.match(page, /data-refund-amount="9900">환불 예정 9,900원/);
  assert.match(page, new RegExp(`data-order-id="${p.orderId}"`));
  assert.match(page, /href="https:\/\/example.com\/account"/);
  assert.match(page, /\/receipt\//);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.match(String(res.headers['content-security-policy']), /form-action 'self'/);
});

test('forms are CSRF-safe: a POST without the page\'s secret or from a foreign origin changes nothing', async () => {
  const p = await open({ at: kst('2026-11-02T10:00:00') });
  const page = (await t.app.inject({ url: p.path })).body;
  const action = `${p.path}/subscriptions/${p.subscriptionId}/cancel`;
  assert.equal((await form(t, action, { timing: 'immediate' })).statusCode, 403);
  assert.equal((await form(t, action, { timing: 'immediate', csrf: 'x'.repeat(32) })).statusCode, 403);
  assert.equal((await form(t, action, { timing: 'immediate', csrf: csrfOf(page) }, { origin: 'https://evil.example.org' })).statusCode, 403);
  assert.equal((await getSubscription(t, s.key, p.subscriptionId)).status, 'active');
  // Another buyer's subscription cannot be named through this session.
  const other = await open({ at: kst('2026-11-02T10:00:00') });
  assert.equal((await form(t, `${p.path}/subscriptions/${other.subscriptionId}/cancel`, { timing: 'immediate', csrf: csrfOf(page) })).statusCode, 404);
  assert.equal((await getSubscription(t, s.key, other.subscriptionId)).status, 'active');
});

test('cancel now with refund: refunds the previewed amount, ends the subscription, offers the way back to returnUrl', async () => {
  const p = await open({ at: kst('2026-11-02T10:00:00'), now: kst('2026-11-03T10:00:00') });
  const page = (await t.app.inject({ url: p.path })).body;
  const res = await form(t, `${p.path}/subscriptions/${p.subscriptionId}/cancel`, { timing: 'immediate', csrf: csrfOf(page) }, { origin: 'http://localhost:3000' });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(res.body, /구독이 해지되었습니다/);
  assert.match(res.body, /9,900원이 환불되었습니다/);
  assert.match(res.body, /href="https:\/\/example.com\/account"/);
  assert.equal((await getSubscription(t, s.key, p.subscriptionId)).status, 'ended');
  const order = (await t.app.inject({ url: `/v1/orders/${p.orderId}`, headers: bearer(s.key) })).json();
  assert.equal(order.refundedAmount, 9_900);
});

test('a buyer\'s immediate cancel that needs approval files a refund request for the previewed amount instead of refunding', async () => {
  const p = await open({ at: kst('2026-12-01T10:00:00'), now: kst('2026-12-12T11:00:00') });
  const page = (await t.app.inject({ url: p.path })).body;
  assert.match(page, /판매자 승인 후 환불됩니다/);
  assert.match(page, /환불 예정 5,462원/);
  const res = await form(t, `${p.path}/subscriptions/${p.subscriptionId}/cancel`, { timing: 'immediate', csrf: csrfOf(page) });
  assert.equal(res.statusCode, 200, res.body);
  // Issue 29: the service runs until the seller decides; the confirmation names the part that awaits the seller.
  assert.match(res.body, /해지 요청이 접수되었습니다/);
  assert.match(res.body, /판매자 확인 후 환불/);
  assert.match(res.body, /5,462원/);
  const sub = await getSubscription(t, s.key, p.subscriptionId);
  assert.equal(sub.status, 'active');
  assert.equal(sub.cancelAtPeriodEnd, true);
  const requests = await t.db.selectFrom('refund_requests').select(['order_id', 'subscription_id', 'status', 'amount', 'statutory']).where('subscription_id', '=', p.subscriptionId).execute();
  assert.deepEqual(requests, [{ order_id: p.orderId, subscription_id: p.subscriptionId, status: 'requested', amount: 5_462, statutory: false }]);
  const refunds = await t.db.selectFrom('order_refunds').select('id').where('order_id', '=', p.orderId).execute();
  assert.equal(refunds.length, 0);
});

test('cancel at period end, then undo it from the portal (cancel_scheduled, then cancel_unscheduled)', async () => {
  const p = await open({ at: kst('2026-11-02T10:00:00') });
  let page = (await t.app.inject({ url: p.path })).body;
  const res = await form(t, `${p.path}/subscriptions/${p.subscriptionId}/cancel`, { timing: 'period_end', csrf: csrfOf(page) });
  assert.equal(res.statusCode, 200);
  assert.match(res.body, /해지가 예약되었습니다/);
  assert.equal((await getSubscription(t, s.key, p.subscriptionId)).cancelAtPeriodEnd, true);
  t.clock.advance(1_000);
  page = (await t.app.inject({ url: p.path })).body;
  assert.match(page, /해지될 예정입니다/);
  assert.match(page, /지금 해지하고 환불받기/);
  const undo = await form(t, `${p.path}/subscriptions/${p.subscriptionId}/resume`, { csrf: csrfOf(page) });
  assert.equal(undo.statusCode, 303);
  assert.equal((await getSubscription(t, s.key, p.subscriptionId)).cancelAtPeriodEnd, false);
  const kinds = (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === p.subscriptionId).map((e) => e.change.kind);
  assert.deepEqual(kinds.slice(-2), ['cancel_scheduled', 'cancel_unscheduled']);
  // A second period-end request from the page shows ALREADY_CANCELED as a message, not an error page.
  await form(t, `${p.path}/subscriptions/${p.subscriptionId}/cancel`, { timing: 'period_end', csrf: csrfOf(page) });
  const twice = await form(t, `${p.path}/subscriptions/${p.subscriptionId}/cancel`, { timing: 'period_end', csrf: csrfOf(page) });
  assert.equal(twice.statusCode, 303);
  assert.match(new URL(String(twice.headers.location), 'http://x').searchParams.get('error')!, /이미 기간 종료 시 해지가 예약되어 있습니다/);
});

test('card update from the portal (test mode) stores the new card', async () => {
  const p = await open({ at: kst('2026-11-02T10:00:00') });
  const page = (await t.app.inject({ url: p.path })).body;
  const res = await form(t, `${p.path}/subscriptions/${p.subscriptionId}/card`, { cardNumber: '5555 5555 5555 4444', csrf: csrfOf(page) });
  assert.equal(res.statusCode, 303);
  assert.match(new URL(String(res.headers.location), 'http://x').searchParams.get('notice')!, /결제 카드를 변경했습니다/);
  const kinds = (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === p.subscriptionId).map((e) => e.change.kind);
  assert.ok(kinds.includes('card_updated'));
});

test('the link is short-lived: after 60 minutes the page and its forms answer 410', async () => {
  const p = await open({ at: kst('2026-11-02T10:00:00') });
  const page = (await t.app.inject({ url: p.path })).body;
  t.clock.advance(60 * 60_000);
  const gone = await t.app.inject({ url: p.path });
  assert.equal(gone.statusCode, 410);
  assert.match(gone.body, /링크가 만료되었습니다/);
  assert.equal((await form(t, `${p.path}/subscriptions/${p.subscriptionId}/cancel`, { timing: 'immediate', csrf: csrfOf(page) })).statusCode, 410);
  assert.equal((await t.app.inject({ url: '/portal/not-a-token' })).statusCode, 410);
});

test('plan change from the portal: an upgrade on the same interval takes effect now with the prorated difference; another interval waits for the renewal', async () => {
  t.clock.set(kst('2026-11-02T10:00:00'));
  const product = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 }, { id: 'pro', name: '프로', monthlyPrice: 19_900, yearlyPrice: null }] });
  const sub = await subscribe(t, s, { productId: product.id, buyerEmail: 'planner@example.com' });
  t.clock.set(kst('2026-11-17T10:00:00'));
  const created = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId: sub.subscriptionId } });
  const path = new URL(created.json().url).pathname;
  let page = (await t.app.inject({ url: path })).body;
  assert.match(page, /요금제 변경/);
  assert.match(page, /value="pro:monthly"/);
  const up = await form(t, `${path}/subscriptions/${sub.subscriptionId}/plan`, { plan: 'pro:monthly', csrf: csrfOf(page) });
  assert.equal(up.statusCode, 303);
  assert.match(new URL(String(up.headers.location), 'http://x').searchParams.get('notice')!, /요금제를 바로 변경했습니다\. 남은 기간의 차액 [\d,]+원을 결제했습니다/);
  const after = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(after.planId, 'pro');
  assert.equal(after.amount, 19_900);
  page = (await t.app.inject({ url: path })).body;
  const later = await form(t, `${path}/subscriptions/${sub.subscriptionId}/plan`, { plan: 'basic:yearly', csrf: csrfOf(page) });
  assert.match(new URL(String(later.headers.location), 'http://x').searchParams.get('notice')!, /다음 결제일부터/);
  assert.equal((await getSubscription(t, s.key, sub.subscriptionId)).pendingPlanChange.planId, 'basic');
  // The preview now covers both the initial order and the difference order.
  const preview = (await t.app.inject({ url: `/v1/subscriptions/${sub.subscriptionId}/cancel-preview`, headers: bearer(s.key) })).json();
  assert.equal(preview.immediate.breakdown.length, 2);
});
