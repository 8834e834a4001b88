import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, payPath } from './factory';
import { completePayment } from '../../src/checkout/service';
import { reconcileSession } from '../../src/checkout/reconcile';
import { SimulatorProvider, simulatorFor, TEST_CARDS } from '../../src/payments';
import type { PaymentProvider } from '../../src/payments/provider';
import type { CheckoutAttempt } from '../../src/checkout/tables';
import { jsonb } from '../../src/db';

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const attempt: CheckoutAttempt = { buyerName: '김구매', buyerEmail: 'b@example.com', buyerPhone: '01012345678', method: 'card', couponCode: null };

/** What a crash between "reserved, confirming" and "outcome recorded" leaves behind. */
async function leaveConfirming(sessionId: string, productId: string, paymentKey: string) {
  await t.db.updateTable('products').set({ sold_count: 1 }).where('id', '=', productId).execute();
  await t.db
    .updateTable('checkout_sessions')
    .set({
      attempt_locked_until: new Date(t.clock.now().getTime() - 1),
      payment: jsonb({
        state: 'confirming',
        provider: 'simulator',
        paymentKey,
        amount: 15_000,
        originalAmount: 15_000,
        method: 'card',
        buyerName: '김구매',
        buyerEmail: 'b@example.com',
        buyerPhone: '01012345678',
        couponId: null,
        coupon: null,
        stockReserved: true,
        startedAt: t.clock.now().toISOString(),
      }),
    })
    .where('id', '=', sessionId)
    .execute();
}

async function sessionRow(id: string) {
  return t.db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

test('completePayment itself refuses a second attempt while one is with the gateway (processing), whatever the caller checked', async () => {
  const p = await createProduct(t, s, { stock: 3 });
  const session = await createSession(t, s.key, { productId: p.id });
  const row = await sessionRow(session.id);
  const sim = simulatorFor(t.clock);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let calls = 0;
  const slow: PaymentProvider = Object.assign(Object.create(sim), {
    confirmPayment: async (input: any) => {
      calls++;
      await gate;
      return sim.confirmPayment(input);
    },
  });
  const key = () => sim.authorize({ method: 'card', cardNumber: TEST_CARDS.success, amount: 15_000, orderId: row.pending_order_id });
  const k1 = key();
  const k2 = key();
  assert.ok(k1.ok && k2.ok);
  const first = completePayment(t.deps, { sessionId: session.id, attempt, provider: slow, paymentKey: k1.paymentKey, expectedAmount: 15_000 });
  while (calls === 0) await new Promise((r) => setImmediate(r));
  const second = await completePayment(t.deps, { sessionId: session.id, attempt, provider: slow, paymentKey: k2.paymentKey, expectedAmount: 15_000 });
  assert.equal(second.kind, 'processing');
  release();
  assert.equal((await first).kind, 'paid');
  assert.equal(calls, 1);
  const third = await completePayment(t.deps, { sessionId: session.id, attempt, provider: slow, paymentKey: k2.paymentKey, expectedAmount: 15_000 });
  assert.equal(third.kind, 'completed');
  assert.equal((await t.db.selectFrom('products').select('sold_count').where('id', '=', p.id).executeTakeFirstOrThrow()).sold_count, 1);
});

test('an amount other than the session amount after coupon is refused before the gateway is called', async () => {
  const p = await createProduct(t, s);
  const session = await createSession(t, s.key, { productId: p.id });
  const row = await sessionRow(session.id);
  const sim = new SimulatorProvider({ clock: t.clock });
  const auth = sim.authorize({ method: 'card', cardNumber: TEST_CARDS.success, amount: 100, orderId: row.pending_order_id });
  assert.ok(auth.ok);
  // Every gateway call is counted: the simulator would happily confirm the 100 won it authorized.
  const calls: string[] = [];
  const counting: PaymentProvider = {
    name: sim.name,
    billingKeyMethods: sim.billingKeyMethods,
    ledger: sim.ledger,
    paymentEntry: sim.paymentEntry,
    confirmPayment: (i) => (calls.push('confirmPayment'), sim.confirmPayment(i)),
    refund: (i) => (calls.push('refund'), sim.refund(i)),
    lookupPayment: (k) => (calls.push('lookupPayment'), sim.lookupPayment(k)),
    verifyCredentials: () => (calls.push('verifyCredentials'), sim.verifyCredentials()),
    lookupPaymentByOrderId: (o) => (calls.push('lookupPaymentByOrderId'), sim.lookupPaymentByOrderId(o)),
    issueBillingKey: (i) => (calls.push('issueBillingKey'), sim.issueBillingKey(i)),
    chargeBillingKey: (i) => (calls.push('chargeBillingKey'), sim.chargeBillingKey(i)),
    deleteBillingKey: (i) => (calls.push('deleteBillingKey'), sim.deleteBillingKey(i)),
    listTransactions: (i) => (calls.push('listTransactions'), sim.listTransactions(i)),
    listSettlements: (i) => (calls.push('listSettlements'), sim.listSettlements(i)),
    issueCashReceipt: (i) => (calls.push('issueCashReceipt'), sim.issueCashReceipt(i)),
    cancelCashReceipt: (i) => (calls.push('cancelCashReceipt'), sim.cancelCashReceipt(i)),
  };
  const r = await completePayment(t.deps, { sessionId: session.id, attempt, provider: counting, paymentKey: auth.paymentKey, expectedAmount: 100 });
  assert.equal(r.kind, 'refused');
  assert.equal((r as any).code, 'AMOUNT_MISMATCH');
  assert.deepEqual(calls, [], 'the gateway was never called');
  const after = await sessionRow(session.id);
  assert.equal(after.payment, null);
  assert.equal((await t.db.selectFrom('products').select('sold_count').where('id', '=', p.id).executeTakeFirstOrThrow()).sold_count, 0);
});

test('an attempt whose lock ran out without an answer (its process died) goes to reconciliation, which records the payment the gateway took', async () => {
  const p = await createProduct(t, s, { stock: 2 });
  const session = await createSession(t, s.key, { productId: p.id, metadata: { k: 'v' } });
  const row = await sessionRow(session.id);
  const sim = simulatorFor(t.clock);
  const auth = sim.authorize({ method: 'card', cardNumber: TEST_CARDS.success, amount: 15_000, orderId: row.pending_order_id });
  assert.ok(auth.ok);
  await leaveConfirming(session.id, p.id, auth.paymentKey);
  const page = await t.app.inject({ url: payPath(session) });
  assert.equal(page.statusCode, 202);
  assert.match(page.body, /확인하고 있습니다/);
  assert.equal((await sessionRow(session.id)).payment?.state, 'unknown');

  // Money was taken: the order is recorded even though the session has expired meanwhile.
  t.clock.advance(31 * 60_000);
  try {
    await t.deps.worker.runOnce();
    const done = await sessionRow(session.id);
    assert.equal(done.status, 'completed');
    const order = await t.db.selectFrom('orders').selectAll().where('id', '=', done.order_id!).executeTakeFirstOrThrow();
    assert.equal(order.status, 'paid');
    assert.equal(order.provider_payment_key, auth.paymentKey);
    assert.deepEqual(order.metadata, { k: 'v' });
    assert.equal((await t.db.selectFrom('products').select('sold_count').where('id', '=', p.id).executeTakeFirstOrThrow()).sold_count, 1);
    // running it again changes nothing
    assert.equal(await reconcileSession(t.deps, session.id), 'nothing');
  } finally {
    t.clock.advance(-31 * 60_000);
  }
});

test('reconciliation retries (the job fails and is rescheduled) while the gateway cannot say what happened', async () => {
  const p = await createProduct(t, s);
  const session = await createSession(t, s.key, { productId: p.id });
  const res = await t.app.inject({
    method: 'POST',
    url: payPath(session),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ buyerName: '김구매', buyerEmail: 'b@example.com', buyerPhone: '01012345678', method: 'card', cardNumber: TEST_CARDS.unknown, action: 'pay', agreeAll: 'on' }).toString(),
  });
  assert.equal(res.statusCode, 202);
  simulatorFor(t.clock).injectFailure('lookup', 'unknown');
  t.clock.advance(61_000);
  try {
    await t.deps.worker.runOnce();
    assert.equal((await sessionRow(session.id)).payment?.state, 'unknown', 'still held');
    const job = await t.db.selectFrom('jobs').selectAll().where('name', '=', 'checkout.reconcile').where('dedupe_key', '=', `checkout.reconcile:${session.id}`).executeTakeFirstOrThrow();
    assert.equal(job.status, 'pending');
    assert.equal(job.attempts, 1);
    assert.match(job.last_error ?? '', /lookup unknown/);
    t.clock.advance(5_000);
    await t.deps.worker.runOnce();
    assert.equal((await sessionRow(session.id)).payment, null, 'released on the retry');
  } finally {
    t.clock.advance(-66_000);
  }
});

test('the periodic sweep hands an abandoned in-flight payment to reconciliation even if the buyer never returns', async () => {
  const p = await createProduct(t, s, { stock: 1 });
  const session = await createSession(t, s.key, { productId: p.id });
  const row = await sessionRow(session.id);
  const auth = simulatorFor(t.clock).authorize({ method: 'card', cardNumber: TEST_CARDS.success, amount: 15_000, orderId: row.pending_order_id });
  assert.ok(auth.ok);
  await leaveConfirming(session.id, p.id, auth.paymentKey);
  await t.deps.worker.runOnce();
  assert.equal((await sessionRow(session.id)).payment?.state, 'unknown');
  t.clock.advance(61_000);
  try {
    await t.deps.worker.runOnce();
    assert.equal((await sessionRow(session.id)).status, 'completed');
  } finally {
    t.clock.advance(-61_000);
  }
});
