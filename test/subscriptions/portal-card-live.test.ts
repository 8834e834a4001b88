import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { createSession, createSubscriptionProduct, payPath, submitPayForm } from '../checkout/factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { updateModeSettings } from '../../src/stores/service';
import { runBilling } from '../../src/subscriptions/renewal/service';
import { decryptSecret } from '../../src/platform/crypto';

// The live portal's card change through Toss's card-registration (billing-auth) window, against the local Toss fake.

let t: TestApp;
let s: TestStore;
let fake: FakeToss;
let live: string;
let product: any;

before(async () => {
  // A second merchant for 자동결제 (issue 32), unused until the last test saves its keys.
  fake = await startFakeToss({ kind: 'live', billingMid: true });
  t = await createTestApp({ config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 3000, tossBillingTimeoutMs: 3000 } });
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey, returnUrlDomains: ['example.com'] });
  live = (await s.newKey({ mode: 'live' })).key;
  product = await createSubscriptionProduct(t, s, { mode: 'live' });
});
after(async () => {
  await t.close();
  await fake.close();
});

const issues = () => fake.calls.filter((c) => c.path === '/v1/billing/authorizations/issue');
const charges = () => fake.calls.filter((c) => c.method === 'POST' && /^\/v1\/billing\/[^/]+$/.test(c.path) && c.path !== '/v1/billing/authorizations');
const csrfOf = (page: string) => /name="csrf" value="([A-Za-z0-9]+)"/.exec(page)![1];
const loc = (res: { headers: Record<string, unknown> }) => new URL(String(res.headers.location), 'http://localhost:3000');

/** A live subscription paid through Toss's billing-auth flow. */
async function liveSubscription() {
  const session = await createSession(t, live, { productId: product.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
  assert.equal((await submitPayForm(t, session)).statusCode, 200);
  const id = `sub_${session.id.slice(3)}`;
  const ok = await t.app.inject({ url: `${payPath(session)}/toss/billing-success?${new URLSearchParams({ authKey: 'auth_first', customerKey: id })}` });
  assert.equal(ok.statusCode, 303, ok.body);
  return id;
}

async function portalFor(subscriptionId: string) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(live), payload: { subscriptionId, returnUrl: 'https://example.com/account' } });
  assert.equal(res.statusCode, 200, res.body);
  return new URL(res.json().url).pathname;
}

/** Presses "새 카드 등록하기" on the portal: answers the launch page's path (with its state). */
async function startCardChange(path: string, subscriptionId: string) {
  const page = (await t.app.inject({ url: path })).body;
  assert.ok(!page.includes('name="cardNumber"'), 'a live portal never takes a card number');
  assert.match(page, /새 카드 등록하기/);
  const res = await t.app.inject({
    method: 'POST',
    url: `${path}/subscriptions/${subscriptionId}/card`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:3000' },
    payload: new URLSearchParams({ csrf: csrfOf(page) }).toString(),
  });
  assert.equal(res.statusCode, 303, res.body);
  const launch = loc(res).pathname;
  assert.match(launch, new RegExp(`^${path}/card/[A-Za-z0-9]{32}$`));
  return launch;
}

const sealedKey = async (id: string) => {
  const row = await t.db.selectFrom('subscriptions').select('billing_key_sealed').where('id', '=', id).executeTakeFirstOrThrow();
  return decryptSecret(t.deps.config.masterKey, row.billing_key_sealed!).toString('utf8');
};

test('live portal card change: Toss\'s billing-auth window, the success redirect issues a new key through the provider, stored sealed, used by the next renewal', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const id = await liveSubscription();
  const oldKey = await sealedKey(id);
  const path = await portalFor(id);
  const launchPath = await startCardChange(path, id);

  const launch = await t.app.inject({ url: launchPath });
  assert.equal(launch.statusCode, 200, launch.body);
  assert.ok(launch.body.includes('payment.requestBillingAuth(cfg.request)'));
  assert.ok(launch.body.includes('<script src="https://js.tosspayments.com/v2/standard"'));
  assert.ok(launch.body.includes(`"customerKey":"${id}"`));
  assert.ok(launch.body.includes(`"successUrl":"http://localhost:3000${launchPath}/success"`));
  assert.ok(launch.body.includes(`"failUrl":"http://localhost:3000${launchPath}/fail"`));
  assert.ok(!launch.body.includes(fake.secretKey));
  const nonce = /script-src 'nonce-([^']+)'/.exec(String(launch.headers['content-security-policy']))![1];
  assert.ok(launch.body.includes(`nonce="${nonce}"`));

  const issued = issues().length;
  const ok = await t.app.inject({ url: `${launchPath}/success?${new URLSearchParams({ customerKey: id, authKey: 'auth_new_card' })}` });
  assert.equal(ok.statusCode, 303, ok.body);
  assert.equal(loc(ok).pathname, path);
  assert.equal(loc(ok).searchParams.get('notice'), '결제 카드를 변경했습니다.');
  assert.equal(issues().length, issued + 1);
  assert.deepEqual(issues().at(-1)!.body, { authKey: 'auth_new_card', customerKey: id });
  const newKey = await sealedKey(id);
  assert.notEqual(newKey, oldKey);
  const raw = await t.db.selectFrom('subscriptions').select('billing_key_sealed').where('id', '=', id).executeTakeFirstOrThrow();
  assert.ok(!raw.billing_key_sealed!.includes(newKey), 'stored sealed');
  const events = await t.db.selectFrom('events').select('data').where('type', '=', 'subscription.updated').execute();
  assert.ok(events.some((e) => (e.data as any).id === id && (e.data as any).change.kind === 'card_updated'));

  // The next renewal charges the new billing key.
  const sub = (await t.app.inject({ url: `/v1/subscriptions/${id}`, headers: bearer(live) })).json();
  t.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  assert.equal(charges().at(-1)!.path, `/v1/billing/${newKey}`);
  const renewed = (await t.app.inject({ url: `/v1/subscriptions/${id}`, headers: bearer(live) })).json();
  assert.equal(renewed.currentPeriodStart, sub.currentPeriodEnd);
});

test('past_due → live card change → active at once, with exactly one charge for the period', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const id = await liveSubscription();
  const sub = (await t.app.inject({ url: `/v1/subscriptions/${id}`, headers: bearer(live) })).json();
  t.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + 1_000));
  fake.setMode('decline');
  await runBilling(t.deps, t.clock.now());
  fake.setMode('ok');
  assert.equal((await t.app.inject({ url: `/v1/subscriptions/${id}`, headers: bearer(live) })).json().status, 'past_due');

  const path = await portalFor(id);
  assert.match((await t.app.inject({ url: path })).body, /정기 결제에 실패했습니다/);
  const launchPath = await startCardChange(path, id);
  const before = charges().length;
  const ok = await t.app.inject({ url: `${launchPath}/success?${new URLSearchParams({ customerKey: id, authKey: 'auth_rescue' })}` });
  assert.equal(ok.statusCode, 303, ok.body);
  assert.equal(loc(ok).searchParams.get('notice'), '결제 카드를 변경했고 밀린 결제를 완료했습니다.');
  assert.equal(charges().length, before + 1, 'exactly one charge');
  assert.equal(charges().at(-1)!.path, `/v1/billing/${await sealedKey(id)}`);
  const after = (await t.app.inject({ url: `/v1/subscriptions/${id}`, headers: bearer(live) })).json();
  assert.equal(after.status, 'active');
  const renewals = await t.db.selectFrom('orders').select(['id', 'amount']).where('subscription_id', '=', id).where('subscription_event', '=', 'renewal').execute();
  assert.equal(renewals.length, 1);
  // The billing run afterwards finds nothing more to charge for the period.
  await runBilling(t.deps, t.clock.now());
  assert.equal(charges().length, before + 1);
});

test('a replayed, forged or mismatched return is refused and swaps no card; the fail redirect lands on the portal with a Korean message', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const id = await liveSubscription();
  const path = await portalFor(id);
  const keyBefore = await sealedKey(id);

  // A forged state (never opened) and a state of another portal session are refused before Toss is asked.
  const issued = issues().length;
  const forged = await t.app.inject({ url: `${path}/card/${'A'.repeat(32)}/success?${new URLSearchParams({ customerKey: id, authKey: 'auth_x' })}` });
  assert.equal(forged.statusCode, 303);
  assert.match(loc(forged).searchParams.get('error')!, /만료되었거나 이미 처리되었습니다/);
  const other = await portalFor(id);
  const othersLaunch = await startCardChange(other, id);
  const state = othersLaunch.split('/').at(-1)!;
  const crossed = await t.app.inject({ url: `${path}/card/${state}/success?${new URLSearchParams({ customerKey: id, authKey: 'auth_x' })}` });
  assert.match(loc(crossed).searchParams.get('error')!, /만료되었거나 이미 처리되었습니다/);
  // A wrong portal token: the link is dead.
  assert.equal((await t.app.inject({ url: `/portal/${'B'.repeat(40)}/card/${state}/success?customerKey=${id}&authKey=auth_x` })).statusCode, 410);
  assert.equal(issues().length, issued);

  // A redirect naming another customer uses the state up and changes nothing.
  const launchPath = await startCardChange(path, id);
  const wrong = await t.app.inject({ url: `${launchPath}/success?${new URLSearchParams({ customerKey: 'sub_someone_else', authKey: 'auth_x' })}` });
  assert.match(loc(wrong).searchParams.get('error')!, /일치하지 않아/);
  assert.equal(issues().length, issued);

  // The genuine one works once; its replay is refused without asking Toss again.
  const launch2 = await startCardChange(path, id);
  const url = `${launch2}/success?${new URLSearchParams({ customerKey: id, authKey: 'auth_ok' })}`;
  assert.equal(loc(await t.app.inject({ url })).searchParams.get('notice'), '결제 카드를 변경했습니다.');
  const keyAfter = await sealedKey(id);
  assert.notEqual(keyAfter, keyBefore);
  const replay = await t.app.inject({ url });
  assert.match(loc(replay).searchParams.get('error')!, /만료되었거나 이미 처리되었습니다/);
  assert.equal(issues().length, issued + 1);
  assert.equal(await sealedKey(id), keyAfter);

  // An expired registration (30 minutes) is refused too.
  const launch3 = await startCardChange(path, id);
  t.clock.advance(31 * 60_000);
  const late = await t.app.inject({ url: `${launch3}/success?${new URLSearchParams({ customerKey: id, authKey: 'auth_late' })}` });
  assert.ok([303, 410].includes(late.statusCode));
  assert.equal(issues().length, issued + 1);
  t.clock.set('2026-11-01T00:00:00.000Z');

  // The fail redirect: back on the portal with a Korean message, card unchanged; the state cannot be used afterwards.
  const path2 = await portalFor(id);
  const launch4 = await startCardChange(path2, id);
  const fail = await t.app.inject({ url: `${launch4}/fail?code=PAY_PROCESS_CANCELED&message=${encodeURIComponent('사용자가 취소')}` });
  assert.equal(fail.statusCode, 303);
  assert.equal(loc(fail).pathname, path2);
  assert.equal(loc(fail).searchParams.get('error'), '카드 등록을 취소했습니다. 결제 카드는 바뀌지 않았습니다.');
  const shown = await t.app.inject({ url: `${loc(fail).pathname}${loc(fail).search}` });
  assert.match(shown.body, /카드 등록을 취소했습니다/);
  const afterFail = await t.app.inject({ url: `${launch4}/success?${new URLSearchParams({ customerKey: id, authKey: 'auth_after_fail' })}` });
  assert.match(loc(afterFail).searchParams.get('error')!, /만료되었거나 이미 처리되었습니다/);
  const declined = await startCardChange(path2, id);
  assert.match(loc(await t.app.inject({ url: `${declined}/fail?code=REJECT_CARD_COMPANY` })).searchParams.get('error')!, /카드를 등록하지 못했습니다/);
  assert.equal(await sealedKey(id), keyAfter);
});

test('the seller adds a 자동결제 MID: a subscription registered before keeps renewing under the first MID until its card changes; the change registers and charges under the billing MID', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const id = await liveSubscription();
  await updateModeSettings(t.deps, s.storeId, 'live', { tossBillingClientKey: fake.billing!.clientKey, tossBillingSecretKey: fake.billing!.secretKey });
  const sub = (await t.app.inject({ url: `/v1/subscriptions/${id}`, headers: bearer(live) })).json();
  t.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + 1_000));
  const firstKey = await sealedKey(id);
  await runBilling(t.deps, t.clock.now());
  // (Other subscriptions of this file renew in the same run: this one's charge is the one to its billing key.)
  const ofKey = (key: string) => charges().filter((c) => c.path === `/v1/billing/${key}`);
  assert.deepEqual(ofKey(firstKey).map((c) => c.merchant), ['payments', 'payments'], 'issued under the first MID: its first payment and renewal are charged there');

  const path = await portalFor(id);
  const launchPath = await startCardChange(path, id);
  const launch = await t.app.inject({ url: launchPath });
  assert.ok(launch.body.includes(`"clientKey":"${fake.billing!.clientKey}"`), 'the card window opens with the 자동결제 client key');
  const ok = await t.app.inject({ url: `${launchPath}/success?${new URLSearchParams({ customerKey: id, authKey: 'auth_billing_mid' })}` });
  assert.equal(ok.statusCode, 303, ok.body);
  assert.equal(issues().at(-1)!.merchant, 'billing');
  assert.equal((await t.db.selectFrom('subscriptions').select('toss_key_pair').where('id', '=', id).executeTakeFirstOrThrow()).toss_key_pair, 'billing');
  const next = (await t.app.inject({ url: `/v1/subscriptions/${id}`, headers: bearer(live) })).json();
  t.clock.set(new Date(new Date(next.currentPeriodEnd).getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  assert.deepEqual(ofKey(await sealedKey(id)).map((c) => c.merchant), ['billing'], 'the next renewal is charged under the billing MID');
});
