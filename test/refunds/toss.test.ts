import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { updateModeSettings } from '../../src/stores/service';
import { TossProvider } from '../../src/payments/toss';
import { RECONCILE_DELAY_MS } from '../../src/refunds/service';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { insertPaidOrder, orderRow, product, refund, refundRows } from './factory';

// Refunds of live orders paid through Toss, end to end over HTTP against the local fake Toss API.
let fake: FakeToss;
let t: TestApp;
let s: TestStore;
let liveKey: string;
let p: any;
let seq = 0;

before(async () => {
  fake = await startFakeToss({ kind: 'live' });
  t = await createTestApp({ config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 3000, tossBillingTimeoutMs: 3000 } });
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
  fake.calls.length = 0;
});

/** A live order whose payment Toss approved (confirmed at the fake, as the payment page does). */
async function tossOrder(amount = 10_000): Promise<{ orderId: string; paymentKey: string }> {
  const paymentKey = `tgen_refund_${++seq}`;
  const toss = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl });
  const orderId = await insertPaidOrder(t, s.storeId, p.id, { mode: 'live', amount, provider: 'toss', paymentKey });
  const r = await toss.confirmPayment({ paymentKey, orderId, amount, idempotencyKey: `confirm-${paymentKey}` });
  assert.equal(r.status, 'succeeded');
  fake.calls.length = 0;
  return { orderId, paymentKey };
}

const cancels = () => fake.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/cancel'));

test('a refund cancels at Toss with cancelAmount, cancelReason and the refund\'s Idempotency-Key', async () => {
  const { orderId, paymentKey } = await tossOrder();
  const res = await refund(t, liveKey, orderId, { amount: 4_000, reason: '고객 요청' });
  assert.equal(res.statusCode, 200, res.body);
  const [call] = cancels();
  assert.equal(call.path, `/v1/payments/${paymentKey}/cancel`);
  // No refundableAmount: Toss deprecated it in favour of the Idempotency-Key (reference #결제-취소).
  assert.deepEqual(call.body, { cancelReason: '고객 요청', cancelAmount: 4_000 });
  assert.equal(call.headers['idempotency-key'], `refund-${res.json().refund.id}`);
  assert.equal(fake.payments.get(paymentKey).balanceAmount, 6_000);
  assert.equal(res.json().order.refundedAmount, 4_000);
  // Without a reason Toss still gets one (it requires cancelReason); the refund keeps null.
  const rest = await refund(t, liveKey, orderId, {});
  assert.equal(rest.statusCode, 200);
  assert.equal(cancels()[1].body.cancelReason, '판매자 환불');
  assert.equal(rest.json().refund.reason, null);
  assert.equal(rest.json().order.status, 'refunded');
  assert.equal(fake.payments.get(paymentKey).status, 'CANCELED');
});

test('a 300-character refund reason refunds at Toss: Toss gets its 200-character limit, the refund keeps the full reason', async () => {
  const { orderId, paymentKey } = await tossOrder();
  const reason = '환불 사유 '.repeat(50); // 300 characters
  assert.equal(Array.from(reason).length, 300);
  const res = await refund(t, liveKey, orderId, { amount: 3_000, reason });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().refund.reason, reason);
  const [call] = cancels();
  assert.equal(call.body.cancelReason, reason.slice(0, 200));
  assert.equal(fake.payments.get(paymentKey).balanceAmount, 7_000);
});

test('after a cancel made in Toss\'s merchant admin, the next partial refund is refused (NOT_MATCHES_REFUNDABLE_AMOUNT, Toss\'s balance read first), not cancelled on top', async () => {
  const { orderId, paymentKey } = await tossOrder(10_000);
  fake.cancelAtToss(paymentKey, 3_000);
  const before = cancels().length;
  const res = await refund(t, liveKey, orderId, { amount: 2_000, reason: '부분 환불' });
  assert.equal(cancels().length, before, 'no cancel was sent (the deprecated refundableAmount guard is replaced by a lookup)');
  assert.equal(res.statusCode, 502, res.body);
  assert.equal(res.json().code, 'PG_REFUND_FAILED');
  assert.equal(res.json().details.gatewayCode, 'NOT_MATCHES_REFUNDABLE_AMOUNT');
  assert.equal(fake.payments.get(paymentKey).balanceAmount, 7_000, 'Toss cancelled nothing more');
});

test('Toss refusing the cancel → PG_REFUND_FAILED with Toss\'s code; the order is unchanged', async () => {
  const { orderId } = await tossOrder();
  fake.setMode('decline');
  const res = await refund(t, liveKey, orderId, {});
  assert.equal(res.statusCode, 502);
  assert.equal(res.json().code, 'PG_REFUND_FAILED');
  assert.equal(res.json().details.gatewayCode, 'NOT_CANCELABLE_PAYMENT');
  assert.equal((await orderRow(t, orderId)).refunded_amount, null);
});

test('a Toss timeout → PG_REFUND_AMBIGUOUS; reconciliation finds nothing canceled and retries with the same Idempotency-Key', async () => {
  const { orderId, paymentKey } = await tossOrder();
  fake.setMode('timeout');
  const res = await refund(t, liveKey, orderId, { amount: 3_000 });
  assert.equal(res.statusCode, 502);
  assert.equal(res.json().code, 'PG_REFUND_AMBIGUOUS');
  assert.equal((await refundRows(t, orderId))[0].status, 'unknown');
  fake.setMode('ok');
  t.clock.advance(RECONCILE_DELAY_MS);
  await t.deps.worker.runOnce();
  const [r] = await refundRows(t, orderId);
  assert.equal(r.status, 'succeeded');
  const keys = cancels().map((c) => c.headers['idempotency-key']);
  assert.equal(keys.length, 2);
  assert.equal(keys[0], keys[1], 'the retry reused the gateway idempotency key');
  assert.equal(fake.payments.get(paymentKey).balanceAmount, 7_000, 'canceled once');
  assert.equal((await orderRow(t, orderId)).refunded_amount, 3_000);
});

test('a cancel whose answer was lost → PG_REFUND_AMBIGUOUS; reconciliation finds the cancel at Toss and records it without cancelling again', async () => {
  const { orderId, paymentKey } = await tossOrder();
  fake.setMode('lost_answer');
  const res = await refund(t, liveKey, orderId, { amount: 2_500 });
  assert.equal(res.json().code, 'PG_REFUND_AMBIGUOUS');
  fake.setMode('ok');
  t.clock.advance(RECONCILE_DELAY_MS);
  await t.deps.worker.runOnce();
  assert.equal((await refundRows(t, orderId))[0].status, 'succeeded');
  assert.equal(cancels().length, 1, 'no second cancel');
  assert.equal(fake.payments.get(paymentKey).balanceAmount, 7_500);
  assert.equal((await orderRow(t, orderId)).refunded_amount, 2_500);
});
