import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { updateModeSettings } from '../../src/stores/service';
import { findTossState } from '../../src/stores/toss-state-repo';
import { TossProvider } from '../../src/payments/toss';
import { billingDeletedBody, cancelStatusChangedBody, paymentStatusChangedBody, startFakeToss, type FakeToss } from '../payments/fake-toss';
import { eventsOf, insertPaidOrder, orderRow, product, refund, refundRows } from '../refunds/factory';
import { createProduct, createSession, owner, payPath, submitPayForm } from '../checkout/factory';
import { getSubscription } from '../subscriptions/factory';
import { createSubscriptionProduct } from '../checkout/factory';
import { runBilling } from '../../src/subscriptions/renewal/service';

// Toss's webhooks, end to end over HTTP: Toss (the local fake, written from Toss's documentation) changes a payment and
// posts the documented body to the store's webhook URL; the job reads the payment back from Toss and applies it.
let fake: FakeToss;
let t: TestApp;
let s: TestStore;
let liveKey: string;
let p: any;
let seq = 0;

before(async () => {
  fake = await startFakeToss({ kind: 'live' });
  t = await createTestApp({ config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 5_000 } });
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  liveKey = (await s.newKey({ mode: 'live' })).key;
  p = await product(t, s, { mode: 'live' });
});
after(async () => {
  await t.close();
  await fake.close();
});
beforeEach(() => {
  fake.setMode('ok');
});

/** A live order whose payment Toss approved (confirmed at the fake, as the payment page does). */
async function tossOrder(amount = 10_000): Promise<{ orderId: string; paymentKey: string }> {
  const paymentKey = `tgen_webhook_${++seq}`;
  const toss = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl });
  const orderId = await insertPaidOrder(t, s.storeId, p.id, { mode: 'live', amount, provider: 'toss', paymentKey });
  const r = await toss.confirmPayment({ paymentKey, orderId, amount, idempotencyKey: `confirm-${paymentKey}` });
  assert.equal(r.status, 'succeeded');
  return { orderId, paymentKey };
}

const webhookUrl = async (store: TestStore, mode: 'live' | 'test') => {
  const res = await t.app.inject({ url: '/admin/v1/store', headers: owner(store) });
  assert.equal(res.statusCode, 200, res.body);
  return new URL(res.json().settings[mode].tossWebhookUrl).pathname;
};

/** Posts a body to the store's webhook URL as Toss does (JSON, no credentials) and expects the quick 200. */
async function deliver(path: string, body: unknown): Promise<void> {
  const lookups = fake.calls.length;
  const res = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(fake.calls.length, lookups, 'the answer does not wait for Toss: the lookup is a job');
}

const refunds = async (orderId: string) => {
  const res = await t.app.inject({ url: `/admin/v1/refunds?mode=live&orderId=${orderId}`, headers: owner(s) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as any[];
};
const refundedEvents = async (orderId: string) => (await eventsOf(t, s.storeId, 'order.refunded')).filter((e: any) => e.data.order.id === orderId);

test('the store shows one Toss webhook URL per mode', async () => {
  const res = await t.app.inject({ url: '/admin/v1/store', headers: owner(s) });
  const { live, test: testMode } = res.json().settings;
  assert.equal(live.tossWebhookUrl, `${t.deps.config.publicBaseUrl}/gateway/toss/webhook/${s.storeId}/live`);
  assert.equal(testMode.tossWebhookUrl, `${t.deps.config.publicBaseUrl}/gateway/toss/webhook/${s.storeId}/test`);
});

test('a 3,000원 cancel in Toss\'s merchant admin after our 5,000원 refund arrives through one webhook: a gateway refund, totals 8,000, order.refunded; the next refund sees 2,000 left', async () => {
  const { orderId, paymentKey } = await tossOrder(10_000);
  const ours = await refund(t, liveKey, orderId, { amount: 5_000, reason: '고객 요청' });
  assert.equal(ours.statusCode, 200, ours.body);
  assert.equal((await findTossState(t.db, s.storeId, 'live')).firstWebhookAt, null);

  t.clock.advance(60_000); // the seller cancels at Toss a minute later
  const atToss = fake.cancelAtToss(paymentKey, 3_000, '상점관리자 부분 취소');
  await deliver(await webhookUrl(s, 'live'), paymentStatusChangedBody(atToss));
  await t.deps.worker.runOnce();

  const list = await refunds(orderId);
  assert.equal(list.length, 2);
  const gateway = list.find((r) => r.source === 'gateway');
  assert.ok(gateway, 'a refund with source gateway');
  assert.equal(gateway.amount, 3_000);
  assert.equal(gateway.status, 'succeeded');
  assert.equal(gateway.reason, '상점관리자 부분 취소');
  const [row] = (await refundRows(t, orderId)).filter((r) => r.source === 'gateway');
  assert.equal(row.gateway_transaction_key, atToss.cancels.at(-1).transactionKey);

  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(liveKey) })).json();
  assert.equal(order.refundedAmount, 8_000);
  assert.equal(order.status, 'paid');
  const events = await refundedEvents(orderId);
  assert.equal(events.length, 2);
  const fromGateway = events.find((e: any) => e.data.refund.source === 'gateway');
  assert.ok(fromGateway, 'order.refunded for the gateway refund');
  assert.equal((fromGateway.data as any).refund.amount, 3_000);
  assert.equal((fromGateway.data as any).order.refundedAmount, 8_000);
  assert.ok((await findTossState(t.db, s.storeId, 'live')).firstWebhookAt, 'a webhook Toss confirmed counts as received');

  // The next refund is checked against what is really left (2,000), not 5,000.
  const tooMuch = await refund(t, liveKey, orderId, { amount: 3_000 });
  assert.equal(tooMuch.statusCode, 400, tooMuch.body);
  assert.equal(tooMuch.json().code, 'REFUND_EXCEEDS');
  assert.equal(tooMuch.json().details.refundableAmount, 2_000);
  const rest = await refund(t, liveKey, orderId, {});
  assert.equal(rest.statusCode, 200, rest.body);
  assert.equal(rest.json().refund.amount, 2_000);
  assert.equal(rest.json().order.status, 'refunded');
  assert.equal(fake.payments.get(paymentKey).status, 'CANCELED');
});

test('a repeated or out-of-order webhook changes nothing twice', async () => {
  const { orderId, paymentKey } = await tossOrder(10_000);
  const donebody = paymentStatusChangedBody(fake.payments.get(paymentKey));
  const canceled = paymentStatusChangedBody(fake.cancelAtToss(paymentKey, 4_000));
  const url = await webhookUrl(s, 'live');
  await deliver(url, canceled);
  await deliver(url, canceled);
  await t.deps.worker.runOnce();
  await deliver(url, canceled);
  await deliver(url, donebody); // the approval's webhook, arriving last
  await t.deps.worker.runOnce();
  const rows = await refundRows(t, orderId);
  assert.deepEqual(rows.map((r) => [r.source, r.amount, r.status]), [['gateway', 4_000, 'succeeded']]);
  assert.equal((await orderRow(t, orderId)).refunded_amount, 4_000);
  assert.equal((await refundedEvents(orderId)).length, 1);
});

test('a forged webhook changes nothing: a payment key Toss does not know, a status Toss does not confirm, another order\'s id', async () => {
  const other = await createTestStore(t);
  await updateModeSettings(t.deps, other.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  const { orderId, paymentKey } = await tossOrder(10_000);
  const second = await tossOrder(10_000);
  const real = fake.payments.get(paymentKey);
  const claimedCancel = { ...structuredClone(real), status: 'CANCELED', balanceAmount: 0, cancels: [{ transactionKey: 'FORGED0001', cancelAmount: 10_000, cancelStatus: 'DONE', canceledAt: real.approvedAt, cancelReason: '위조' }] };
  const forged = [
    // Unknown at Toss under the store's keys.
    paymentStatusChangedBody({ ...claimedCancel, paymentKey: 'tgen_forged_0001' }),
    // Known, but Toss says DONE with nothing canceled.
    paymentStatusChangedBody(claimedCancel),
    // The real payment key with another order's id.
    paymentStatusChangedBody({ ...claimedCancel, orderId: second.orderId }),
    // A Cancel object naming nothing Toss can look up.
    cancelStatusChangedBody(claimedCancel.cancels[0]),
  ];
  for (const body of forged) await deliver(await webhookUrl(s, 'live'), body);
  for (const body of [forged[0], forged[3]]) await deliver(await webhookUrl(other, 'live'), body);
  await t.deps.worker.runOnce();
  assert.equal((await findTossState(t.db, other.storeId, 'live')).firstWebhookAt, null, 'a webhook Toss does not confirm does not count as received');
  // And the real payment sent to another store's URL: that store's order book has no such order.
  await deliver(await webhookUrl(other, 'live'), paymentStatusChangedBody(claimedCancel));
  await t.deps.worker.runOnce();
  assert.equal((await findTossState(t.db, other.storeId, 'live')).firstWebhookAt, null, 'another store\'s payment, confirmed by Toss, does not count here');
  assert.equal((await refundRows(t, orderId)).length, 0);
  assert.equal((await refundRows(t, second.orderId)).length, 0);
  assert.equal((await orderRow(t, orderId)).refunded_amount, null);
  assert.equal((await refundedEvents(orderId)).length, 0);
  assert.equal(real.status, 'DONE', 'nothing was canceled at Toss either');

  // Unknown stores and modes are 404; a body without eventType is refused; event types we do not use are acknowledged.
  const post = (url: string, body: unknown) => t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  assert.equal((await post(`/gateway/toss/webhook/st_nope/live`, paymentStatusChangedBody(real))).statusCode, 404);
  assert.equal((await post(`/gateway/toss/webhook/${s.storeId}/prod`, paymentStatusChangedBody(real))).statusCode, 404);
  assert.equal((await post(`/gateway/toss/webhook/${s.storeId}/live`, { data: real })).statusCode, 400);
  assert.equal((await post(`/gateway/toss/webhook/${s.storeId}/live`, { eventType: 'DEPOSIT_CALLBACK', data: {} })).statusCode, 200);
});

test('a checkout session still pending here whose payment Toss approved is completed by the webhook', async () => {
  const prod = await createProduct(t, s, { mode: 'live', price: 15_000, stock: 5 });
  const session = await createSession(t, liveKey, { productId: prod.id, successUrl: 'https://example.com/ok' });
  const { pending_order_id: orderId } = await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow();
  assert.equal((await submitPayForm(t, session)).statusCode, 200);
  fake.setMode('lost_answer');
  t.deps.config.tossTimeoutMs = 300; // the answer never comes: the deadline only decides how long this waits
  let res;
  try {
    res = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey: 'tgen_webhook_lost', orderId, amount: '15000' })}` });
  } finally {
    fake.setMode('ok');
    t.deps.config.tossTimeoutMs = 5_000;
  }
  assert.equal(res.statusCode, 202, 'the buyer sees "checking"');
  assert.equal(fake.payments.get('tgen_webhook_lost').status, 'DONE', 'Toss approved it');

  // Toss's webhook comes before the reconciliation's first look (a minute later): the clock does not move here.
  await deliver(await webhookUrl(s, 'live'), paymentStatusChangedBody(fake.payments.get('tgen_webhook_lost')));
  await t.deps.worker.runOnce();
  const order = await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(liveKey) });
  assert.equal(order.statusCode, 200, order.body);
  assert.equal(order.json().status, 'paid');
  assert.equal(order.json().amount, 15_000);
  assert.equal((await eventsOf(t, s.storeId, 'order.paid')).filter((e: any) => e.data.id === orderId).length, 1);
});

/** A live subscription through Toss's billing-auth flow (as test/subscriptions/toss-billing.test.ts): its billing key at the fake. */
async function liveSubscription(): Promise<{ subscriptionId: string; billingKey: string }> {
  const plans = await createSubscriptionProduct(t, s, { mode: 'live' });
  const session = await createSession(t, liveKey, { productId: plans.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
  assert.equal((await submitPayForm(t, session)).statusCode, 200);
  const customerKey = `sub_${session.id.slice(3)}`;
  const ok = await t.app.inject({ url: `${payPath(session)}/toss/billing-success?${new URLSearchParams({ authKey: `auth_${session.id}`, customerKey })}` });
  assert.equal(ok.statusCode, 303, ok.body);
  const billingKey = [...fake.billingKeys.entries()].find(([, b]) => b.customerKey === customerKey)![0];
  return { subscriptionId: customerKey, billingKey };
}
const billingCharges = (billingKey: string) => fake.calls.filter((c) => c.method === 'POST' && c.path === `/v1/billing/${billingKey}`);
const subRow = (id: string) => t.db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const cardRemovals = async (id: string) => (await eventsOf(t, s.storeId, 'subscription.updated')).filter((e: any) => e.data.id === id && e.data.change.kind === 'card_removed');

test('a forged BILLING_DELETED (Toss still holds the key) leaves the card: the next renewal charges it at Toss; a real deletion is proven by Toss\'s NOT_FOUND_BILLING on the next charge, which then removes the card', async () => {
  const { subscriptionId, billingKey } = await liveSubscription();
  const before = await getSubscription(t, liveKey, subscriptionId);
  assert.deepEqual(before.card, { brand: '신한', last4: '123*' });
  const sealed = (await subRow(subscriptionId)).billing_key_sealed;
  const url = await webhookUrl(s, 'live');

  // The forgery: the documented body with a key taken from somewhere, posted without credentials. Toss still holds it.
  await deliver(url, billingDeletedBody(billingKey));
  await deliver(url, billingDeletedBody(billingKey));
  await t.deps.worker.runOnce();
  assert.ok(fake.billingKeys.has(billingKey));
  assert.deepEqual((await getSubscription(t, liveKey, subscriptionId)).card, before.card, 'the card stays');
  let row = await subRow(subscriptionId);
  assert.equal(row.billing_key_sealed, sealed);
  assert.ok(row.card_reported_deleted_at, 'only a mark for the next charge');
  assert.equal((await cardRemovals(subscriptionId)).length, 0, 'no card_removed event');

  // The renewal charges the card at Toss; the charge proves the report false.
  t.clock.set(new Date(new Date(before.currentPeriodEnd).getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  assert.equal(billingCharges(billingKey).length, 2, 'first payment and the renewal, on the same key');
  const renewed = await getSubscription(t, liveKey, subscriptionId);
  assert.equal(renewed.status, 'active');
  assert.equal(renewed.currentPeriodStart, before.currentPeriodEnd);
  assert.deepEqual(renewed.card, before.card);
  assert.equal((await subRow(subscriptionId)).card_reported_deleted_at, null, 'the successful charge cleared the mark');

  // Toss really deletes the key (e.g. the card company's request) and says so: still only a mark, until a charge proves it.
  fake.billingKeys.delete(billingKey);
  await deliver(url, fake.webhook('BILLING_DELETED', billingKey));
  await t.deps.worker.runOnce();
  assert.deepEqual((await getSubscription(t, liveKey, subscriptionId)).card, before.card);
  t.clock.set(new Date(new Date(renewed.currentPeriodEnd).getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  const gone = await getSubscription(t, liveKey, subscriptionId);
  assert.equal(gone.card, null, 'NOT_FOUND_BILLING from Toss removed the card');
  assert.equal(gone.status, 'past_due', 'dunning asks the buyer for a new card');
  row = await subRow(subscriptionId);
  assert.equal(row.billing_key_sealed, null);
  assert.equal(row.card_reported_deleted_at, null);
  assert.equal((await cardRemovals(subscriptionId)).length, 1, 'subscription.updated card_removed, once');
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('notices naming nothing of the store write nothing and call no one; notices about one payment of ours share one lookup; over the minute\'s lookup budget the lookup waits for the next minute', async () => {
  const { TOSS_LOOKUPS_PER_MINUTE } = await import('../../src/gateway/webhook');
  const { spendTossLookup } = await import('../../src/stores/toss-state-repo');
  const f = await createTestStore(t);
  await updateModeSettings(t.deps, f.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  const fp = await product(t, f, { mode: 'live' });
  const paymentKey = `tgen_flood_${++seq}`;
  const orderId = await insertPaidOrder(t, f.storeId, fp.id, { mode: 'live', amount: 10_000, provider: 'toss', paymentKey });
  const toss = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl });
  assert.equal((await toss.confirmPayment({ paymentKey, orderId, amount: 10_000, idempotencyKey: `confirm-${paymentKey}` })).status, 'succeeded');
  const url = `/gateway/toss/webhook/${f.storeId}/live`;
  const jobs = () => t.db.selectFrom('jobs').select(['id', 'status', 'run_at', 'payload']).where('name', '=', 'gateway.toss-webhook').where('dedupe_key', 'like', `%:${f.storeId}:live:%`).execute();
  const lookups = () => fake.calls.filter((c) => c.method === 'GET' && c.path.startsWith('/v1/payments/')).length;
  const start = lookups();

  // Payment keys and order ids that are nobody's (or another store's order), and a BILLING_DELETED for a store that
  // holds no billing key: each answered 200, none queued.
  const real = fake.payments.get(paymentKey);
  for (let i = 0; i < 30; i++) await deliver(url, paymentStatusChangedBody({ ...real, paymentKey: `tgen_forged_${i}`, orderId: `ord_forged_${i}` }));
  const elsewhere = await tossOrder(10_000); // store s's order, named at store f's URL
  await deliver(url, paymentStatusChangedBody(fake.payments.get(elsewhere.paymentKey)));
  await deliver(url, billingDeletedBody('bk_nobodys_key'));
  assert.equal((await jobs()).length, 0, 'no job for a notice that names nothing of this store');

  // 50 notices about the real payment, most of them forged with made-up payment keys beside its order id: one lookup,
  // asked with our order's own payment key (not the first notice's).
  for (let i = 0; i < 50; i++) await deliver(url, paymentStatusChangedBody({ ...real, paymentKey: `tgen_made_up_${i}`, status: 'CANCELED' }));
  const pending = await jobs();
  assert.equal(pending.length, 1, 'coalesced');
  assert.deepEqual([(pending[0].payload as any).paymentKey, (pending[0].payload as any).orderId], [paymentKey, orderId]);
  await t.deps.worker.runOnce();
  assert.equal(lookups() - start, 1, 'one Toss lookup for all of them');

  // This minute's budget spent (by earlier lookups): Toss's real notification is still accepted and waits for the next
  // minute without costing an attempt.
  const now = t.clock.now();
  const windowStart = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  while (await spendTossLookup(t.db, f.storeId, 'live', windowStart, TOSS_LOOKUPS_PER_MINUTE));
  const atToss = fake.cancelAtToss(paymentKey, 10_000, '상점관리자 취소');
  await deliver(url, paymentStatusChangedBody(atToss));
  await t.deps.worker.runOnce();
  assert.equal(lookups() - start, 1, 'no lookup over the budget');
  const waiting = (await jobs()).filter((j) => j.status === 'pending');
  assert.equal(waiting.length, 1);
  assert.equal(waiting[0].run_at.getTime(), windowStart.getTime() + 60_000, 'the lookup waits for the next minute');
  t.clock.advance(61_000);
  await t.deps.worker.runOnce();
  assert.equal(lookups() - start, 2);
  const rows = await refundRows(t, orderId);
  assert.deepEqual(rows.map((r) => [r.source, r.amount, r.status]), [['gateway', 10_000, 'succeeded']]);
  assert.ok((await findTossState(t.db, f.storeId, 'live')).firstWebhookAt, 'the confirmed notification counts for the go-live checklist');
});
