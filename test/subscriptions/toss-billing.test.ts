import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { createSession, createSubscriptionProduct, payPath, submitPayForm } from '../checkout/factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { updateModeSettings } from '../../src/stores/service';
import { reconcileSession } from '../../src/checkout/reconcile';
import { runBilling } from '../../src/subscriptions/renewal/service';

// Live subscriptions through Toss's billing-auth flow, against the local stand-in for Toss's API.

let t: TestApp;
let s: TestStore;
let fake: FakeToss;
let live: string;
let product: any;

before(async () => {
  fake = await startFakeToss({ kind: 'live' });
  t = await createTestApp({ config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 3000, tossBillingTimeoutMs: 3000 } });
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  live = (await s.newKey({ mode: 'live' })).key;
  product = await createSubscriptionProduct(t, s, { mode: 'live' });
});
after(async () => {
  await t.close();
  await fake.close();
});

const billingCharges = () => fake.calls.filter((c) => c.method === 'POST' && /^\/v1\/billing\/[^/]+$/.test(c.path) && c.path !== '/v1/billing/authorizations');
const billingSuccess = (session: any, q: Record<string, string>) => t.app.inject({ url: `${payPath(session)}/toss/billing-success?${new URLSearchParams(q)}` });

async function launch() {
  const session = await createSession(t, live, { productId: product.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
  const res = await submitPayForm(t, session);
  return { session, res, customerKey: `sub_${session.id.slice(3)}` };
}

test('live subscription: the page opens Toss\'s billing-auth window; the success redirect issues the billing key and charges the first payment to it', async () => {
  const { session, res, customerKey } = await launch();
  assert.equal(res.statusCode, 200, res.body);
  assert.ok(res.body.includes('requestBillingAuth'));
  assert.ok(res.body.includes(`"customerKey":"${customerKey}"`));
  assert.ok(res.body.includes(`"successUrl":"http://localhost:3000/pay/${session.id}/toss/billing-success"`));
  assert.ok(!res.body.includes('requestPayment('));

  // A redirect naming another customer is refused without calling Toss.
  const before = fake.calls.length;
  const wrong = await billingSuccess(session, { authKey: 'auth_1', customerKey: 'sub_someone_else' });
  assert.equal(wrong.statusCode, 422);
  assert.equal(fake.calls.length, before);

  const ok = await billingSuccess(session, { authKey: 'auth_1', customerKey });
  assert.equal(ok.statusCode, 303, ok.body);
  const orderId = new URL(String(ok.headers.location)).searchParams.get('order_id')!;
  const issue = fake.calls.filter((c) => c.path === '/v1/billing/authorizations/issue');
  assert.equal(issue.at(-1)!.body.customerKey, customerKey);
  const charges = billingCharges();
  assert.equal(charges.length, 1);
  assert.equal(charges[0].body.amount, 9_900);
  assert.equal(charges[0].body.orderId, orderId);
  assert.ok(charges[0].headers['idempotency-key']);

  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(live) })).json();
  assert.equal(order.status, 'paid');
  assert.equal(order.amount, 9_900);
  const sub = (await t.app.inject({ url: `/v1/subscriptions/${customerKey}`, headers: bearer(live) })).json();
  assert.equal(sub.status, 'active');
  assert.equal(sub.mode, 'live');
  assert.deepEqual(sub.card, { brand: '신한', last4: '123*' });
  const row = await t.db.selectFrom('orders').select(['provider', 'provider_payment_key']).where('id', '=', orderId).executeTakeFirstOrThrow();
  assert.equal(row.provider, 'toss');
  assert.match(row.provider_payment_key!, /^tbill_/);

  // A reload of the success URL charges nothing more.
  const again = await billingSuccess(session, { authKey: 'auth_1', customerKey });
  assert.equal(again.statusCode, 303);
  assert.equal(billingCharges().length, 1);

  // The renewal charges the same billing key at the period end.
  t.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  const charges2 = billingCharges();
  assert.equal(charges2.length, 2);
  assert.equal(charges2[1].path, charges[0].path, 'the same billing key');
  const renewed = (await t.app.inject({ url: `/v1/subscriptions/${customerKey}`, headers: bearer(live) })).json();
  assert.equal(renewed.currentPeriodStart, sub.currentPeriodEnd);
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('a lost answer to the first billing charge is reconciled with the same idempotency key and orderId: one payment', async () => {
  const { session, customerKey } = await launch();
  // The billing key issue answers; the charge then takes effect at Toss but its answer is lost.
  const callsBefore = fake.calls.length;
  const pending = billingSuccess(session, { authKey: 'auth_2', customerKey });
  while (fake.calls.length === callsBefore) await new Promise((r) => setTimeout(r, 2));
  fake.setMode('lost_answer');
  const res = await pending;
  fake.setMode('ok');
  assert.equal(res.statusCode, 202, res.body);
  const first = billingCharges().at(-1)!;
  const r = await reconcileSession(t.deps, session.id);
  assert.equal(r, 'paid');
  const retry = billingCharges().at(-1)!;
  assert.equal(retry.headers['idempotency-key'], first.headers['idempotency-key']);
  assert.equal(retry.body.orderId, first.body.orderId);
  const sub = await t.db.selectFrom('subscriptions').select(['status', 'billing_key_sealed']).where('id', '=', customerKey).executeTakeFirstOrThrow();
  assert.equal(sub.status, 'active');
  assert.ok(sub.billing_key_sealed);
  const paid = [...fake.payments.values()].filter((p) => p.orderId === first.body.orderId);
  assert.equal(paid.length, 1);
});

test('a subscription that ends has its billing key deleted at Toss by a job after the commit, retried when Toss does not answer', async () => {
  const { session, customerKey } = await launch();
  const ok = await billingSuccess(session, { authKey: 'auth_end', customerKey });
  assert.equal(ok.statusCode, 303, ok.body);
  const billingKey = [...fake.billingKeys.entries()].find(([, b]) => b.customerKey === customerKey)![0];
  // Toss's first answer to the delete is a 500: nothing deleted, try again later.
  fake.answerNext('billing_delete', { status: 500, code: 'FAILED_INTERNAL_SYSTEM_PROCESSING', message: '내부 시스템 처리 작업이 실패했습니다. 잠시 후 다시 시도해주세요.' });
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/subscriptions/${customerKey}/cancel`,
    headers: { ...bearer(live), 'content-type': 'application/json', 'idempotency-key': `end-${customerKey}` },
    payload: { timing: 'immediate' },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().subscription.status, 'ended');
  // The cancel itself never called Toss's delete: the job does, outside the transaction.
  await t.deps.worker.runOnce();
  const deletes = () => fake.calls.filter((c) => c.method === 'DELETE' && c.path === `/v1/billing/${billingKey}`);
  assert.equal(deletes().length, 1, 'tried once');
  assert.ok(fake.billingKeys.has(billingKey), 'Toss failed: the key is still there');
  t.clock.advance(5_000); // the queue's first retry delay
  await t.deps.worker.runOnce();
  assert.equal(deletes().length, 2);
  assert.equal(fake.billingKeys.has(billingKey), false, 'deleted at Toss');
  const row = await t.db.selectFrom('subscriptions').select('billing_key_sealed').where('id', '=', customerKey).executeTakeFirstOrThrow();
  assert.equal(row.billing_key_sealed, null, 'our copy is forgotten');
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('live free trial: the page opens the card-registration window, the success redirect issues the billing key and charges nothing; the first charge is the renewal at the trial end', async () => {
  const trial = await createSubscriptionProduct(t, s, { mode: 'live', name: '체험 멤버십', plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: null, trialDays: 7 }] });
  const session = await createSession(t, live, { productId: trial.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
  const customerKey = `sub_${session.id.slice(3)}`;
  const res = await submitPayForm(t, session);
  assert.equal(res.statusCode, 200, res.body);
  assert.ok(res.body.includes('requestBillingAuth'), 'a 0-won trial still registers the card');
  const chargesBefore = billingCharges().length;
  const ok = await billingSuccess(session, { authKey: 'auth_trial', customerKey });
  assert.equal(ok.statusCode, 303, ok.body);
  assert.equal(billingCharges().length, chargesBefore, 'nothing charged at the trial start');
  const sub = (await t.app.inject({ url: `/v1/subscriptions/${customerKey}`, headers: bearer(live) })).json();
  assert.equal(sub.trialing, true);
  assert.ok(sub.card, 'the billing key is kept for the first charge');
  assert.match(sub.recurringConsent.text, /체험 종료일 .*부터 매월 9,900원/);
  await runBilling(t.deps, new Date(new Date(sub.trialEndsAt).getTime() + 60_000));
  const charges = billingCharges();
  assert.equal(charges.length, chargesBefore + 1);
  assert.equal(charges.at(-1)!.body.amount, 9_900);
});

test('live: a second free trial of the product on the same card (Toss\'s masked card.number) under another e-mail is refused after the card registration, and nothing is charged', async () => {
  const trial = await createSubscriptionProduct(t, s, { mode: 'live', name: '체험 한 번', plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: null, trialDays: 7 }] });
  const first = await createSession(t, live, { productId: trial.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
  assert.equal((await submitPayForm(t, first, { buyerEmail: 'first-trial@example.com' })).statusCode, 200);
  assert.equal((await billingSuccess(first, { authKey: 'auth_trial_once_1', customerKey: `sub_${first.id.slice(3)}` })).statusCode, 303);

  // Another address, the same card: the fake registers every card as `43301234****123*` (issuer 41, 신한), as Toss masks it.
  const second = await createSession(t, live, { productId: trial.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
  const page = await submitPayForm(t, second, { buyerEmail: 'other-address@example.com', buyerPhone: '010-4444-9999' });
  assert.equal(page.statusCode, 200, 'the e-mail and phone are new: the card window opens');
  const chargesBefore = billingCharges().length;
  const refused = await billingSuccess(second, { authKey: 'auth_trial_once_2', customerKey: `sub_${second.id.slice(3)}` });
  assert.equal(refused.statusCode, 422, refused.body);
  assert.ok(refused.body.includes('이 상품의 무료 체험은 이미 이용하셨습니다'));
  assert.equal(billingCharges().length, chargesBefore);
  const subs = await t.db.selectFrom('subscriptions').select('id').where('product_id', '=', trial.id).execute();
  assert.equal(subs.length, 1, 'one trial');
});
