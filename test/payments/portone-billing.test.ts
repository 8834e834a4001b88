import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { updateModeSettings } from '../../src/stores/service';
import { runBilling } from '../../src/subscriptions/renewal/service';
import { reconcileSession } from '../../src/checkout/reconcile';
import { startFakePortOne, type FakePortOne } from './fake-portone';
import { createSession, createSubscriptionProduct, payPath, submitPayForm } from '../checkout/factory';
import { signIn } from '../dashboard/helpers';

// Subscriptions and free trials on PortOne billing keys (issue 42), end to end through the pay page: the buyer
// registers the card in PortOne's window (requestIssueBillingKey, played by the fake's `issueBillingKey`), PortOne
// redirects back with the billing key, and our server reads it back (GET /billing-keys/{billingKey}) before charging
// the first payment to it (POST /payments/{paymentId}/billing-key). Renewals under the test clock charge the same key
// on the same rail. The fake is built from PortOne's OpenAPI (test/payments/fake-portone.ts), never from our adapter.

let t: TestApp;
let fake: FakePortOne;
let s: TestStore;
let product: any;
const CARD_CHANNEL = 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00';
const START = '2026-11-01T00:00:00.000Z';

async function onPortOne() {
  await updateModeSettings(t.deps, s.storeId, 'test', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: fake.apiSecret, portoneWebhookSecret: fake.webhookSecret, portoneChannelKeys: { card: CARD_CHANNEL } });
}

before(async () => {
  t = await createTestApp();
  t.clock.set(START);
  fake = await startFakePortOne({ clock: t.clock });
  (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = fake.baseUrl;
  s = await createTestStore(t);
  await onPortOne();
  product = await createSubscriptionProduct(t, s);
});
after(async () => {
  await t.close();
  await fake.close();
});
beforeEach(() => {
  fake.beforeAnswer = null;
  t.clock.set(START);
});

/** The `PortOne.requestIssueBillingKey` argument the launch page carries (its inline config). */
function requestOf(page: string): any {
  const m = page.match(/var cfg = (\{.*?\});\n/s);
  assert.ok(m, 'the launch page carries its PortOne request');
  return JSON.parse(m[1]).request;
}

const charges = (billingKey?: string) => fake.calls.filter((c) => c.op === 'billing_charge' && (!billingKey || c.body.billingKey === billingKey));
const back = (session: any, q: Record<string, string>) => t.app.inject({ url: `${payPath(session)}/portone/billing-return?${new URLSearchParams(q)}` });
const subRow = (id: string) => t.db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const api = (url: string) => t.app.inject({ url, headers: bearer(s.key) });

/** A subscription session, the form submitted, the card registered in PortOne's window. */
async function launch(productId = product.id) {
  const session = await createSession(t, s.key, { productId, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
  const res = await submitPayForm(t, session);
  assert.equal(res.statusCode, 200, res.body.slice(0, 500));
  const request = requestOf(res.body);
  return { session, res, request, subscriptionId: `sub_${session.id.slice(3)}` };
}

/** Through the return to an active subscription; its id and the billing key. */
async function subscribed() {
  const l = await launch();
  const billingKey = fake.issueBillingKey({ customerId: l.request.customer.customerId });
  const ok = await back(l.session, { billingKey });
  assert.equal(ok.statusCode, 303, ok.body.slice(0, 500));
  return { ...l, billingKey, orderId: new URL(String(ok.headers.location)).searchParams.get('order_id')! };
}

test('the page opens PortOne\'s card registration window; the return reads the key back and charges the first payment once, however often it comes back', async () => {
  const { session, res, request, subscriptionId } = await launch();
  assert.ok(res.body.includes('PortOne.requestIssueBillingKey(cfg.request)'));
  assert.ok(!res.body.includes('requestPayment('), 'no one-off payment window');
  assert.equal(request.storeId, fake.storeId);
  assert.equal(request.channelKey, CARD_CHANNEL, 'the card channel');
  assert.equal(request.billingKeyMethod, 'CARD');
  assert.equal(request.customer.customerId, subscriptionId, 'the key is issued for the subscription');
  assert.equal(new URL(request.redirectUrl).pathname, `${payPath(session)}/portone/billing-return`);

  const billingKey = fake.issueBillingKey({ customerId: subscriptionId });
  const url = { billingKey };
  // The buyer's browser and PortOne's redirect come back at once, then a reload after the order exists.
  const [a, b] = await Promise.all([back(session, url), back(session, url)]);
  for (const r of [a, b]) assert.ok([202, 303].includes(r.statusCode), `${r.statusCode} ${r.body.slice(0, 300)}`);
  const again = await back(session, url);
  assert.equal(again.statusCode, 303);

  const made = charges(billingKey);
  assert.equal(made.length, 1, 'one billing-key payment asked of PortOne');
  const orders = await t.db.selectFrom('orders').selectAll().where('checkout_session_id', '=', session.id).execute();
  assert.equal(orders.length, 1);
  assert.equal(orders[0].status, 'paid');
  assert.equal(orders[0].provider, 'portone');
  assert.equal(Number(orders[0].amount), 9_900);
  assert.equal(made[0].path, `/payments/${orders[0].id}/billing-key`, 'our order id is PortOne\'s paymentId');
  assert.equal(made[0].body.amount.total, 9_900, 'the session\'s amount, never the redirect\'s');
  assert.equal(made[0].body.customer.id, subscriptionId);
  assert.equal(fake.payments.get(orders[0].id).status, 'PAID');
  const sub = await subRow(subscriptionId);
  assert.equal(sub.status, 'active');
  assert.equal(sub.provider, 'portone', 'bound to the rail that issued its key');
  assert.equal(sub.card_last4, '5678');
});

test('a renewal charges the same billing key on PortOne under the test clock, even after the store moved its mode to another provider', async () => {
  const { subscriptionId, billingKey } = await subscribed();
  const sub = await subRow(subscriptionId);
  // The seller moves the mode to the simulator: the subscription's key is PortOne's, so its renewals stay there.
  await updateModeSettings(t.deps, s.storeId, 'test', { paymentProvider: 'simulator' });
  try {
    t.clock.set(new Date(sub.current_period_end.getTime() + 1_000));
    await runBilling(t.deps, t.clock.now());
    const made = charges(billingKey);
    assert.equal(made.length, 2, 'the first payment and the renewal');
    const renewal = made[1];
    assert.equal(renewal.body.amount.total, 9_900);
    const renewedOrder = await t.db.selectFrom('orders').selectAll().where('subscription_id', '=', subscriptionId).where('subscription_event', '=', 'renewal').executeTakeFirstOrThrow();
    assert.equal(renewal.path, `/payments/${renewedOrder.id}/billing-key`);
    assert.equal(renewedOrder.status, 'paid');
    assert.equal(renewedOrder.provider, 'portone');
    const after = await subRow(subscriptionId);
    assert.equal(after.current_period_start.toISOString(), sub.current_period_end.toISOString());
    assert.equal(after.status, 'active');
    // The seller's dashboard says which rail the subscription is on, not the mode's current provider.
    const owner = await signIn(t, { store: s });
    const detail = await t.app.inject({ url: `/dashboard/subscriptions/${subscriptionId}`, headers: owner.headers });
    assert.equal(detail.statusCode, 200, detail.body.slice(0, 300));
    assert.match(detail.body, /data-testid="sub-rail">포트원</);
  } finally {
    await onPortOne();
  }
});

test('a renewal PortOne\'s PG declines puts the subscription into dunning, as on Toss', async () => {
  const { subscriptionId, billingKey } = await subscribed();
  const sub = await subRow(subscriptionId);
  fake.declineNext('F113', '한도초과');
  t.clock.set(new Date(sub.current_period_end.getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  const made = charges(billingKey);
  assert.equal(made.length, 2);
  const paymentId = made[1].path.split('/')[2];
  assert.equal(fake.payments.get(paymentId).status, 'FAILED');
  const after = await subRow(subscriptionId);
  assert.equal(after.status, 'past_due');
  assert.equal(after.dunning_attempts, 1);
  assert.ok(after.next_retry_at && after.next_retry_at > t.clock.now(), 'a retry is scheduled');
  const failed = await t.db.selectFrom('subscription_charges').selectAll().where('subscription_id', '=', subscriptionId).where('status', '=', 'failed').execute();
  assert.equal(failed.length, 1);
  assert.equal(failed[0].error_code, 'PG_F113');
  const view = (await api(`/v1/subscriptions/${subscriptionId}`)).json();
  assert.equal(view.status, 'past_due');
});

test('a renewal whose answer never comes (cut after PortOne took the money) is settled by reading the payment back: charged once', async () => {
  const { subscriptionId, billingKey } = await subscribed();
  const sub = await subRow(subscriptionId);
  // The charge takes effect at PortOne, then the connection is cut (as when our deadline passes first).
  fake.beforeAnswer = (call) => (call.op === 'billing_charge' || call.op === 'get_payment' ? 'drop' : undefined);
  t.clock.set(new Date(sub.current_period_end.getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  fake.beforeAnswer = null;
  const pending = await t.db.selectFrom('subscription_charges').selectAll().where('subscription_id', '=', subscriptionId).where('kind', '=', 'renewal').executeTakeFirstOrThrow();
  assert.equal(pending.status, 'charging', 'unknown: kept, not failed, not paid');
  assert.equal(Number(pending.unknown_attempts), 1);
  assert.equal((await subRow(subscriptionId)).current_period_end.toISOString(), sub.current_period_end.toISOString(), 'not renewed on a guess');

  // The retry asks again with the same paymentId: PortOne answers ALREADY_PAID, and the read-back shows the one payment.
  t.clock.set(new Date(pending.locked_until!.getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  const made = charges(billingKey);
  assert.equal(made.length, 3, 'the first payment, the lost renewal, its retry');
  assert.equal(made[2].path, made[1].path, 'the same paymentId');
  const paid = [...fake.payments.values()].filter((p) => p.billingKey === billingKey && p.status === 'PAID');
  assert.equal(paid.length, 2, 'PortOne took the first payment and one renewal');
  const settled = await t.db.selectFrom('subscription_charges').selectAll().where('id', '=', pending.id).executeTakeFirstOrThrow();
  assert.equal(settled.status, 'succeeded');
  const after = await subRow(subscriptionId);
  assert.equal(after.current_period_start.toISOString(), sub.current_period_end.toISOString());
  const renewals = await t.db.selectFrom('orders').select('id').where('subscription_id', '=', subscriptionId).where('subscription_event', '=', 'renewal').execute();
  assert.equal(renewals.length, 1, 'one renewal order');
});

test('a forged billing key is refused and nothing is charged: made up, issued for another customer, another store\'s, deleted', async () => {
  const { session, subscriptionId } = await launch();
  const before = charges().length;
  const other = fake.issueBillingKey({ customerId: 'sub_someone_else' });
  const foreign = fake.issueBillingKey({ customerId: subscriptionId });
  fake.billingKeys.get(foreign).storeId = 'store-another-seller';
  const deleted = fake.issueBillingKey({ customerId: subscriptionId });
  Object.assign(fake.billingKeys.get(deleted), { status: 'DELETED', deletedAt: t.clock.now().toISOString() });
  for (const billingKey of ['billing-key-made-up', other, foreign, deleted, '']) {
    const res = await back(session, { billingKey });
    assert.equal(res.statusCode, 422, `${billingKey}: ${res.body.slice(0, 300)}`);
  }
  // PortOne's own failure code on the redirect: shown, nothing asked.
  const closed = await back(session, { code: 'FAILURE_TYPE_PG', message: '사용자가 카드 등록을 취소했습니다' });
  assert.equal(closed.statusCode, 422);
  assert.match(closed.body, /사용자가 카드 등록을 취소했습니다/);
  assert.equal(charges().length, before, 'nothing charged');
  assert.equal((await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', session.id).execute()).length, 0);
  assert.equal((await t.db.selectFrom('subscriptions').select('id').where('id', '=', subscriptionId).execute()).length, 0);
  // The buyer's real card still goes through afterwards.
  const ok = await back(session, { billingKey: fake.issueBillingKey({ customerId: subscriptionId }) });
  assert.equal(ok.statusCode, 303, ok.body.slice(0, 300));
});

test('a free trial on PortOne stores the key and charges nothing; the first charge is the renewal at the trial end', async () => {
  const trial = await createSubscriptionProduct(t, s, { name: '체험 멤버십', plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: null, trialDays: 7 }] });
  const { session, res, request, subscriptionId } = await launch(trial.id);
  assert.match(res.body, /7일 무료 체험/);
  const billingKey = fake.issueBillingKey({ customerId: request.customer.customerId });
  const ok = await back(session, { billingKey });
  assert.equal(ok.statusCode, 303, ok.body.slice(0, 300));
  assert.equal(charges(billingKey).length, 0, 'nothing charged at the trial start');
  const sub = await subRow(subscriptionId);
  assert.ok(sub.billing_key_sealed);
  assert.equal(sub.provider, 'portone');
  await runBilling(t.deps, new Date(sub.trial_ends_at!.getTime() + 60_000));
  const made = charges(billingKey);
  assert.equal(made.length, 1);
  assert.equal(made[0].body.amount.total, 9_900);
});

test('the buyer portal changes the card of a PortOne subscription through PortOne\'s card registration window; the next renewal charges the new key', async () => {
  const { subscriptionId, billingKey: oldKey } = await subscribed();
  const created = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId } });
  assert.equal(created.statusCode, 200, created.body);
  const path = new URL(created.json().url).pathname;
  const startChange = async () => {
    const portal = (await t.app.inject({ url: path })).body;
    const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec(portal)![1];
    const res = await t.app.inject({ method: 'POST', url: `${path}/subscriptions/${subscriptionId}/card`, headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:3000' }, payload: new URLSearchParams({ csrf }).toString() });
    assert.equal(res.statusCode, 303, res.body);
    const launchPath = new URL(String(res.headers.location), 'http://x').pathname;
    const launch = await t.app.inject({ url: launchPath });
    assert.equal(launch.statusCode, 200, launch.body.slice(0, 300));
    return { launchPath, request: requestOf(launch.body), body: launch.body };
  };

  const first = await startChange();
  assert.ok(first.body.includes('PortOne.requestIssueBillingKey(cfg.request)'));
  assert.equal(first.request.channelKey, CARD_CHANNEL);
  assert.equal(first.request.customer.customerId, subscriptionId);
  assert.equal(new URL(first.request.redirectUrl).pathname, `${first.launchPath}/success`);
  // A key PortOne issued for someone else changes nothing.
  const foreign = await t.app.inject({ url: `${first.launchPath}/success?billingKey=${encodeURIComponent(fake.issueBillingKey({ customerId: 'sub_someone_else' }))}` });
  assert.equal(foreign.statusCode, 303);
  assert.match(decodeURIComponent(String(foreign.headers.location)), /error=/);
  const { current_period_end, billing_key_sealed } = await subRow(subscriptionId);

  // The window closed (PortOne's code on the redirect): nothing changes either.
  const closed = await startChange();
  const gaveUp = await t.app.inject({ url: `${closed.launchPath}/success?code=FAILURE_TYPE_PG&message=x` });
  assert.equal(gaveUp.statusCode, 303);
  assert.equal((await subRow(subscriptionId)).billing_key_sealed, billing_key_sealed, 'the card is unchanged');

  const ok = await startChange();
  const newKey = fake.issueBillingKey({ customerId: subscriptionId, cardNumber: '4000000000004321' });
  const done = await t.app.inject({ url: `${ok.launchPath}/success?billingKey=${encodeURIComponent(newKey)}` });
  assert.equal(done.statusCode, 303);
  assert.match(decodeURIComponent(String(done.headers.location)), /notice=/);
  const changed = await subRow(subscriptionId);
  assert.notEqual(changed.billing_key_sealed, billing_key_sealed);
  assert.equal(changed.card_last4, '4321');
  assert.equal(changed.provider, 'portone');
  t.clock.set(new Date(current_period_end.getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  assert.equal(charges(newKey).length, 1, 'the renewal charges the new key');
  assert.equal(charges(oldKey).length, 1, 'only the first payment on the old key');
});

test('a first charge whose answer is lost is reconciled under the same paymentId: PortOne answers ALREADY_PAID, the read-back finds the one payment', async () => {
  const { session, subscriptionId } = await launch();
  const billingKey = fake.issueBillingKey({ customerId: subscriptionId });
  fake.beforeAnswer = (call) => (call.op === 'billing_charge' || call.op === 'get_payment' ? 'drop' : undefined);
  const lost = await back(session, { billingKey });
  fake.beforeAnswer = null;
  assert.equal(lost.statusCode, 202, lost.body.slice(0, 300));
  assert.equal((await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', session.id).execute()).length, 0, 'no order on a guess');
  // The buyer comes back again meanwhile: the page waits, nothing is charged.
  assert.equal((await back(session, { billingKey })).statusCode, 202);
  assert.equal(charges(billingKey).length, 1);
  assert.equal(await reconcileSession(t.deps, session.id), 'paid');
  const made = charges(billingKey);
  assert.equal(made.length, 2, 'asked again');
  assert.equal(made[1].path, made[0].path, 'under the same paymentId');
  assert.equal([...fake.payments.values()].filter((p) => p.billingKey === billingKey && p.status === 'PAID').length, 1, 'charged once');
  const order = await t.db.selectFrom('orders').selectAll().where('checkout_session_id', '=', session.id).executeTakeFirstOrThrow();
  assert.equal(order.status, 'paid');
  assert.equal(made[0].path, `/payments/${order.id}/billing-key`);
  assert.equal((await subRow(subscriptionId)).status, 'active');
});
