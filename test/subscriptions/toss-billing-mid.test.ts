import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, createSubscriptionProduct, owner, payPath, submitPayForm } from '../checkout/factory';
import { refund } from '../refunds/factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { runBilling } from '../../src/subscriptions/renewal/service';
import { runReconciliation, startReconciliation } from '../../src/reconciliation/service';

// Toss contracts 자동결제 under a MID of its own, with its own client and secret keys ("자동결제(빌링)로 계약된
// 상점아이디(MID)를 선택한 다음에 클라이언트 키와 시크릿 키를 확인하세요",
// https://docs.tosspayments.com/guides/v2/billing/integration-quick). The fake holds both merchants and records which
// secret key's Basic auth signs each call (`calls[i].merchant`); each MID knows only its own payments and billing keys.

let t: TestApp;
let s: TestStore;
let fake: FakeToss;
let live: string;
const DAY = '2026-11-01';

const put = (body: Record<string, unknown>) => t.app.inject({ method: 'PUT', url: '/admin/v1/store/settings/live', headers: owner(s), payload: body });
const callsTo = (re: RegExp, method = 'POST') => fake.calls.filter((c) => c.method === method && re.test(c.path));

before(async () => {
  fake = await startFakeToss({ kind: 'live', billingMid: true, clock: { now: () => t.clock.now() } });
  t = await createTestApp({ config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 10_000, tossBillingTimeoutMs: 10_000 } });
  s = await createTestStore(t);
  live = (await s.newKey({ mode: 'live' })).key;
});
after(async () => {
  await t.close();
  await fake.close();
});

test('the 자동결제 key pair is checked when saved like the first (kind, mode, one call to Toss with it) and stored sealed', async () => {
  const billing = fake.billing!;
  const first = await put({ paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(first.json().settings.live.tossBillingSecretKeySet, false);

  // A test key in live mode, a secret key Toss does not know, a widget key: refused, naming the billing field.
  const testKind = await put({ tossBillingClientKey: 'test_ck_billing0000000000', tossBillingSecretKey: billing.secretKey });
  assert.equal(testKind.statusCode, 400);
  assert.equal(testKind.json().details.fields[0].field, 'tossBillingClientKey');
  const unknown = await put({ tossBillingClientKey: billing.clientKey, tossBillingSecretKey: 'live_sk_notthebillingmid0000' });
  assert.equal(unknown.statusCode, 400);
  assert.deepEqual(unknown.json().details.fields.map((f: any) => f.field), ['tossBillingSecretKey']);
  const widget = await put({ tossBillingSecretKey: 'live_gsk_widget000000000' });
  assert.equal(widget.statusCode, 400);
  assert.equal(widget.json().details.fields[0].field, 'tossBillingSecretKey');
  assert.equal((await t.db.selectFrom('store_mode_settings').select('toss_billing_secret_key_sealed').where('store_id', '=', s.storeId).where('mode', '=', 'live').executeTakeFirstOrThrow()).toss_billing_secret_key_sealed, null, 'nothing refused is stored');

  fake.calls.length = 0;
  const ok = await put({ tossBillingClientKey: billing.clientKey, tossBillingSecretKey: billing.secretKey });
  assert.equal(ok.statusCode, 200, ok.body);
  const view = ok.json().settings.live;
  assert.equal(view.tossBillingClientKey, billing.clientKey);
  assert.equal(view.tossBillingSecretKeySet, true);
  assert.equal(view.tossClientKey, fake.clientKey, 'the first pair stays');
  assert.ok(!ok.body.includes(billing.secretKey), 'the secret is never returned');
  assert.deepEqual(fake.calls.map((c) => [c.method, c.merchant]), [['GET', 'billing']], 'one harmless lookup, signed with the new key');
  const row = await t.db.selectFrom('store_mode_settings').select(['toss_billing_secret_key_sealed']).where('store_id', '=', s.storeId).where('mode', '=', 'live').executeTakeFirstOrThrow();
  assert.ok(row.toss_billing_secret_key_sealed && !row.toss_billing_secret_key_sealed.includes(billing.secretKey), 'sealed at rest');
  const state = await t.db.selectFrom('store_toss_state').select(['billing_keys_verified_at']).where('store_id', '=', s.storeId).where('mode', '=', 'live').executeTakeFirstOrThrow();
  assert.ok(state.billing_keys_verified_at);
});

test('a live subscription is registered and charged under the billing MID while a one-time payment uses the first pair; refunds and reconciliation follow each payment\'s MID', async () => {
  const billing = fake.billing!;
  // One-time payment: the window opens with the first client key; the confirm is signed with the first secret key.
  const product = await createProduct(t, s, { mode: 'live', price: 15_000 });
  const once = await createSession(t, live, { productId: product.id, successUrl: 'https://example.com/ok' });
  const onceOrder = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', once.id).executeTakeFirstOrThrow()).pending_order_id;
  const launchOnce = await submitPayForm(t, once);
  assert.equal(launchOnce.statusCode, 200, launchOnce.body);
  assert.ok(launchOnce.body.includes(`"clientKey":"${fake.clientKey}"`));
  assert.ok(!launchOnce.body.includes(billing.clientKey));
  const paidOnce = await t.app.inject({ url: `${payPath(once)}/toss/success?${new URLSearchParams({ paymentKey: 'tpk_once_1', orderId: onceOrder, amount: '15000' })}` });
  assert.equal(paidOnce.statusCode, 303, paidOnce.body);
  assert.deepEqual(callsTo(/^\/v1\/payments\/confirm$/).map((c) => c.merchant), ['payments']);
  assert.equal(fake.payments.get('tpk_once_1').mId, fake.mId);

  // Subscription: the billing-auth window opens with the 자동결제 client key; issue and charge are signed with its secret.
  const sp = await createSubscriptionProduct(t, s, { mode: 'live' });
  const session = await createSession(t, live, { productId: sp.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
  const customerKey = `sub_${session.id.slice(3)}`;
  const launch = await submitPayForm(t, session);
  assert.equal(launch.statusCode, 200, launch.body);
  assert.ok(launch.body.includes('requestBillingAuth'));
  assert.ok(launch.body.includes(`"clientKey":"${billing.clientKey}"`), 'the card registers under the billing MID');
  const ok = await t.app.inject({ url: `${payPath(session)}/toss/billing-success?${new URLSearchParams({ authKey: 'auth_mid_1', customerKey })}` });
  assert.equal(ok.statusCode, 303, ok.body);
  const subOrder = new URL(String(ok.headers.location)).searchParams.get('order_id')!;
  assert.deepEqual(callsTo(/^\/v1\/billing\/authorizations\/issue$/).map((c) => c.merchant), ['billing']);
  const charges = () => callsTo(/^\/v1\/billing\/(?!authorizations)[^/]+$/);
  assert.deepEqual(charges().map((c) => c.merchant), ['billing']);
  const rows = await t.db.selectFrom('orders').select(['id', 'toss_key_pair']).where('id', 'in', [onceOrder, subOrder]).execute();
  assert.deepEqual(Object.fromEntries(rows.map((r) => [r.id, r.toss_key_pair])), { [onceOrder]: 'payments', [subOrder]: 'billing' });
  const sub = (await t.app.inject({ url: `/v1/subscriptions/${customerKey}`, headers: bearer(live) })).json();
  assert.equal(sub.status, 'active');

  // Reconciliation of the day reads both MIDs' ledgers: both payments are known, nothing differs.
  fake.calls.length = 0;
  const run = await startReconciliation(t.deps, s.storeId, { mode: 'live', date: DAY, source: 'cli', enqueue: false });
  const done = (await runReconciliation(t.deps, run.id))!;
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.gatewayTransactions, 2);
  assert.deepEqual(done.differences, []);
  assert.deepEqual(fake.calls.filter((c) => c.path === '/v1/transactions').map((c) => c.merchant).sort(), ['billing', 'payments']);
  // …and both MIDs' settlements: what each will pay out.
  assert.equal(done.settlements?.status, 'read');
  assert.deepEqual(done.settlements!.records.map((r) => [r.keyPair, r.orderId, r.amount]).sort(), [['billing', subOrder, 9_900], ['payments', onceOrder, 15_000]]);

  // The renewal charges the billing key under the billing MID.
  t.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  assert.deepEqual(charges().map((c) => c.merchant), ['billing'], 'the renewal is signed with the 자동결제 secret key');
  assert.equal(charges()[0].path, `/v1/billing/${[...fake.billingKeys.keys()][0]}`);

  // Refunds go back to the MID that took the money.
  fake.calls.length = 0;
  assert.equal((await refund(t, live, subOrder, { amount: 9_900 })).statusCode, 200);
  assert.equal((await refund(t, live, onceOrder, { amount: 15_000 })).statusCode, 200);
  assert.deepEqual(callsTo(/\/cancel$/).map((c) => [c.path.split('/')[3], c.merchant]), [[fake.payments.get('tpk_once_1') ? [...fake.payments.values()].find((p) => p.orderId === subOrder).paymentKey : '', 'billing'], ['tpk_once_1', 'payments']]);

  // The 자동결제 secret cannot be removed while a subscription registered under it goes on.
  const remove = await put({ tossBillingSecretKey: null });
  assert.equal(remove.statusCode, 400, remove.body);
  assert.equal(remove.json().details.fields[0].field, 'tossBillingSecretKey');
  assert.match(remove.json().details.fields[0].message, /구독 1건이 아직 진행 중/);
});
