import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, createSubscriptionProduct, payPath, submitPayForm } from '../checkout/factory';
import { refund } from '../refunds/factory';
import { startFakeToss, type FakeToss } from './fake-toss';
import { ManualClock } from '../../src/platform/clock';
import { updateModeSettings } from '../../src/stores/service';
import { runReconciliation, startReconciliation } from '../../src/reconciliation/service';
import { resolvePeriod, vatReport } from '../../src/tax/service';
import { TossProvider } from '../../src/payments/toss';
import { recordGatewayCancels } from '../../src/refunds/gateway';
import { reconcileSession } from '../../src/checkout/reconcile';

// Buyers abroad (issue 41) through Toss, end to end against the Toss stand-in (test/payments/fake-toss.ts, extended from
// Toss's PayPal and 다국어 결제창 guides; test/fixtures/toss/README.md "Buyers abroad"): the payment page opens Toss's
// window with the documented parameters, the success redirect is confirmed for exactly the amount and currency asked,
// and partial refunds cancel at Toss in that currency. PayPal: 39,000원 at the store's 1,350원/US$ = US$28.89.

const clock = new ManualClock('2026-11-02T03:00:00.000Z'); // 12:00 KST
let t: TestApp;
let s: TestStore;
let fake: FakeToss;
let live: string;
let seq = 0;

before(async () => {
  fake = await startFakeToss({ kind: 'live', clock });
  t = await createTestApp({ clock, config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 10_000, tossBillingTimeoutMs: 10_000 } });
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey, foreignMethods: ['foreign_card', 'paypal'], usdKrwRate: 1350 });
  live = (await s.newKey({ mode: 'live' })).key;
});
after(async () => {
  await t.close();
  await fake.close();
});
beforeEach(() => {
  fake.calls.length = 0;
});

/** The request the launch page hands to Toss's SDK (`payment.requestPayment(cfg.request)`). */
function windowRequest(html: string): any {
  const m = /var cfg = (\{.*?\});\n/.exec(html);
  assert.ok(m, 'the launch page carries the window request');
  return JSON.parse(m![1]).request;
}

async function startPayment(method: string, price = 39_000) {
  const product = await createProduct(t, s, { mode: 'live', price });
  const session = await createSession(t, live, { productId: product.id, successUrl: 'https://example.com/ok' });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id;
  const launch = await submitPayForm(t, session, { method });
  return { session, orderId, launch, paymentKey: `tpk_${method}_${++seq}` };
}

const cancels = () => fake.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/cancel'));
const getOrder = async (id: string) => (await t.app.inject({ url: `/v1/orders/${id}`, headers: bearer(live) })).json();

test('PayPal: the window asks Toss for US$28.89 (FOREIGN_EASY_PAY, PAYPAL), the order records 39,000원 and the presentment 2,889 cents, and two refunds give back 741 + 2,148 cents in USD', async () => {
  const { session, orderId, launch, paymentKey } = await startPayment('paypal');
  assert.equal(launch.statusCode, 200, launch.body);
  const req = windowRequest(launch.body);
  assert.equal(req.method, 'FOREIGN_EASY_PAY');
  assert.deepEqual(req.amount, { currency: 'USD', value: 28.89 });
  assert.deepEqual(req.foreignEasyPay, { provider: 'PAYPAL', country: 'KR' });
  assert.equal(req.orderId, orderId);

  // Toss's window took US$28.89; it redirects with the dollar amount.
  fake.requestPayment({ paymentKey, orderId, amount: 28.89, method: 'FOREIGN_EASY_PAY', currency: 'USD' });
  const ok = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '28.89' })}` });
  assert.equal(ok.statusCode, 303, ok.body);
  const confirm = fake.calls.find((c) => c.path === '/v1/payments/confirm')!;
  assert.deepEqual(confirm.body, { paymentKey, orderId, amount: 28.89 }, 'confirmed in dollars, never the won price');
  assert.equal(fake.payments.get(paymentKey).currency, 'USD');

  let order = await getOrder(orderId);
  assert.equal(order.method, 'paypal');
  assert.equal(order.amount, 39_000);
  assert.equal(order.currency, 'KRW');
  assert.deepEqual(order.presentment, { amount: 2889, currency: 'USD', refundedAmount: 0 });
  const paid = await t.db.selectFrom('events').select('data').where('type', '=', 'order.paid').where('store_id', '=', s.storeId).execute();
  const event = paid.map((e) => (e.data as any).order ?? e.data).find((o: any) => o.id === orderId);
  assert.equal(event.method, 'paypal', 'order.paid carries the method');
  assert.deepEqual(event.presentment, { amount: 2889, currency: 'USD', refundedAmount: 0 }, 'and the dollars charged');

  // 10,000원 of 39,000원 = 10,000 × 2,889 / 39,000 = 740.77 cents → 741 (US$7.41), cancelled in USD.
  fake.calls.length = 0;
  const first = await refund(t, live, orderId, { amount: 10_000, reason: '부분 환불' });
  assert.equal(first.statusCode, 200, first.body);
  assert.deepEqual(cancels()[0].body, { cancelReason: '부분 환불', cancelAmount: 7.41, currency: 'USD' });
  assert.equal(fake.payments.get(paymentKey).balanceAmount, 21.48);
  order = first.json().order;
  assert.equal(order.refundedAmount, 10_000);
  assert.deepEqual(order.presentment, { amount: 2889, currency: 'USD', refundedAmount: 741 });
  assert.deepEqual(order.refunds[0].presentment, { amount: 741, currency: 'USD' });
  assert.deepEqual(first.json().refund.presentment, { amount: 741, currency: 'USD' }, 'the refund record (and order.refunded) carries the dollars');
  const refundedEvent = await t.db.selectFrom('events').select('data').where('type', '=', 'order.refunded').where('store_id', '=', s.storeId).execute();
  assert.ok(refundedEvent.some((e: any) => e.data.refund?.presentment?.amount === 741 && e.data.order?.presentment?.refundedAmount === 741), 'order.refunded carries the dollars');

  // The rest (29,000원) takes every cent left: 2,889 − 741 = 2,148 (US$21.48); the sum is exact.
  const rest = await refund(t, live, orderId, {});
  assert.equal(rest.statusCode, 200, rest.body);
  assert.deepEqual(cancels()[1].body, { cancelReason: '판매자 환불', cancelAmount: 21.48, currency: 'USD' });
  assert.equal(fake.payments.get(paymentKey).status, 'CANCELED');
  assert.equal(fake.payments.get(paymentKey).balanceAmount, 0);
  order = rest.json().order;
  assert.equal(order.status, 'refunded');
  assert.equal(order.refundedAmount, 39_000);
  assert.deepEqual(order.presentment, { amount: 2889, currency: 'USD', refundedAmount: 2889 });
  assert.deepEqual(order.refunds.map((r: any) => r.presentment.amount), [741, 2148]);

  // Toss lists PayPal's approval and cancels in USD: the day reconciles against the cents we recorded.
  const run = await startReconciliation(t.deps, s.storeId, { mode: 'live', date: '2026-11-02', source: 'cli', enqueue: false });
  const done = await runReconciliation(t.deps, run.id);
  assert.equal(done!.status, 'completed');
  assert.deepEqual(done!.differences.filter((d: any) => d.orderId === orderId), [], 'approval and both cancels match in cents');

  // The VAT report keeps the PayPal sale apart (foreign), in won: +39,000 sale, −10,000 and −29,000 refunds.
  const report = await vatReport(t.deps, { storeId: s.storeId, mode: 'live', period: resolvePeriod({ from: '2026-11-01', to: '2026-11-30' }, clock.now()) });
  const foreign = report.categories.find((c) => c.category === 'foreign')!;
  assert.equal(foreign.sales.count, 1);
  assert.equal(foreign.sales.total, 39_000);
  assert.equal(foreign.refunds.total, -39_000);
});

test('an overseas card: Toss\'s 다국어 결제창 (useInternationalCardOnly) in won; the order is foreign_card, a partial refund cancels 9,000원 with no currency', async () => {
  const { session, orderId, launch, paymentKey } = await startPayment('foreign_card');
  assert.equal(launch.statusCode, 200, launch.body);
  const req = windowRequest(launch.body);
  assert.equal(req.method, 'CARD');
  assert.deepEqual(req.amount, { currency: 'KRW', value: 39_000 });
  assert.deepEqual(req.card, { flowMode: 'DEFAULT', useInternationalCardOnly: true });

  fake.requestPayment({ paymentKey, orderId, amount: 39_000, method: 'CARD', useInternationalCardOnly: true });
  const ok = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '39000' })}` });
  assert.equal(ok.statusCode, 303, ok.body);
  assert.equal(fake.payments.get(paymentKey).card.issuerCode, '4V');
  let order = await getOrder(orderId);
  assert.equal(order.method, 'foreign_card');
  assert.equal(order.amount, 39_000);
  assert.equal(order.presentment, undefined, 'charged in won: nothing in another currency');

  fake.calls.length = 0;
  const part = await refund(t, live, orderId, { amount: 9_000, reason: '부분 환불' });
  assert.equal(part.statusCode, 200, part.body);
  assert.deepEqual(cancels()[0].body, { cancelReason: '부분 환불', cancelAmount: 9_000 });
  assert.equal(fake.payments.get(paymentKey).balanceAmount, 30_000);
  order = part.json().order;
  assert.equal(order.refundedAmount, 9_000);
  assert.equal(order.status, 'paid');
  const report = await vatReport(t.deps, { storeId: s.storeId, mode: 'live', period: resolvePeriod({ from: '2026-11-01', to: '2026-11-30' }, clock.now()) });
  assert.equal(report.categories.find((c) => c.category === 'card')!.sales.total, 39_000, 'an overseas card is a card sale in won');
});

test('a PayPal success redirect for another dollar amount is not confirmed; PayPal and overseas cards are refused where the store has not enabled them, and for subscriptions', async () => {
  const { session, orderId, paymentKey } = await startPayment('paypal');
  fake.requestPayment({ paymentKey, orderId, amount: 28.88, method: 'FOREIGN_EASY_PAY', currency: 'USD' });
  const bad = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '28.88' })}` });
  assert.equal(bad.statusCode, 422);
  assert.equal(fake.calls.filter((c) => c.path === '/v1/payments/confirm').length, 0, 'nothing confirmed at Toss');

  const sub = await createSubscriptionProduct(t, s, { mode: 'live' });
  const subSession = await createSession(t, live, { productId: sub.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
  const page = await t.app.inject({ url: payPath(subSession) });
  assert.doesNotMatch(page.body, /value="paypal"|value="foreign_card"/, 'a subscription is not offered them');
  const subTry = await submitPayForm(t, subSession, { method: 'paypal' });
  assert.equal(subTry.statusCode, 422);

  await updateModeSettings(t.deps, s.storeId, 'live', { foreignMethods: [] });
  try {
    const off = await startPayment('paypal');
    assert.equal(off.launch.statusCode, 422);
    assert.match(off.launch.body, /선택한 결제 수단으로 결제할 수 없습니다/);
    const offPage = await t.app.inject({ url: payPath(off.session) });
    assert.doesNotMatch(offPage.body, /value="paypal"|value="foreign_card"/);
  } finally {
    await updateModeSettings(t.deps, s.storeId, 'live', { foreignMethods: ['foreign_card', 'paypal'] });
  }
});

test('a PayPal cancel made in Toss\'s merchant admin (US$10.00) is recorded as a refund of its won share (13,499원 of 39,000원), and the rest is refunded to the cent', async () => {
  const { session, orderId, paymentKey } = await startPayment('paypal');
  fake.requestPayment({ paymentKey, orderId, amount: 28.89, method: 'FOREIGN_EASY_PAY', currency: 'USD' });
  const ok = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '28.89' })}` });
  assert.equal(ok.statusCode, 303, ok.body);
  fake.cancelAtToss(paymentKey, 10);
  const look = await new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl }).lookupPayment(paymentKey);
  assert.equal(look.status, 'succeeded');
  if (look.status !== 'succeeded') return;
  assert.equal(look.value.currency, 'USD');
  assert.deepEqual([look.value.totalAmount, look.value.balanceAmount, look.value.cancels[0].amount], [2889, 1889, 1000], 'read in cents');
  const r = await recordGatewayCancels(t.deps, orderId, look.value.cancels);
  assert.equal(r.kind, 'recorded');
  // 1,000 × 39,000 / 2,889 = 13,499.48 → 13,499원.
  let order = await getOrder(orderId);
  assert.equal(order.refundedAmount, 13_499);
  assert.deepEqual(order.presentment, { amount: 2889, currency: 'USD', refundedAmount: 1000 });
  assert.equal((await recordGatewayCancels(t.deps, orderId, look.value.cancels)).kind, 'in_sync', 'the same cancel is not recorded twice');

  fake.calls.length = 0;
  const rest = await refund(t, live, orderId, {});
  assert.equal(rest.statusCode, 200, rest.body);
  assert.deepEqual(cancels()[0].body, { cancelReason: '판매자 환불', cancelAmount: 18.89, currency: 'USD' });
  order = rest.json().order;
  assert.equal(order.status, 'refunded');
  assert.equal(order.refundedAmount, 39_000);
  assert.deepEqual(order.presentment, { amount: 2889, currency: 'USD', refundedAmount: 2889 });
});

test('a PayPal confirm whose answer is lost is reconciled by asking Toss again for the same US$28.89, and recorded once', async () => {
  const { session, orderId, paymentKey } = await startPayment('paypal');
  fake.requestPayment({ paymentKey, orderId, amount: 28.89, method: 'FOREIGN_EASY_PAY', currency: 'USD' });
  fake.setMode('lost_answer');
  try {
    await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '28.89' })}` });
  } finally {
    fake.setMode('ok');
  }
  const row = await t.db.selectFrom('checkout_sessions').select(['status', 'payment']).where('id', '=', session.id).executeTakeFirstOrThrow();
  assert.equal(row.status, 'open');
  assert.deepEqual((row.payment as any).presentment, { amount: 2889, currency: 'USD' }, 'the dollars were recorded before Toss was called');
  assert.equal(await reconcileSession(t.deps, session.id), 'paid');
  const confirms = fake.calls.filter((c) => c.path === '/v1/payments/confirm');
  assert.ok(confirms.length >= 2 && confirms.every((c) => c.body.amount === 28.89), 'asked again for the same dollars');
  const order = await getOrder(orderId);
  assert.equal(order.method, 'paypal');
  assert.deepEqual(order.presentment, { amount: 2889, currency: 'USD', refundedAmount: 0 });
});
