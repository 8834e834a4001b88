import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { simulatorFor } from '../../src/payments';
import type { RefundInput } from '../../src/payments/provider';
import { insertPaidOrder, orderRow, product, refund, refundRows } from './factory';

// Two app instances on one database and one gateway, as two server processes of a deployment.
let t: TestApp;
let t2: TestApp;
let s: TestStore;
let p: any;
const gatewayCalls: RefundInput[] = [];

before(async () => {
  t = await createTestApp();
  t2 = await createTestApp({ database: t.deps.database, clock: t.clock });
  s = await createTestStore(t);
  p = await product(t, s);
  const sim = simulatorFor(t.clock);
  const orig = sim.refund.bind(sim);
  sim.refund = async (input) => {
    gatewayCalls.push(input);
    // Let other requests run while the gateway "works", as a real network call would.
    await new Promise((r) => setImmediate(r));
    return orig(input);
  };
});
after(async () => {
  await t2.close();
  await t.close();
});

const ALLOWED_REFUSALS = new Set(['REFUND_IN_PROGRESS', 'REFUND_EXCEEDS', 'REFUND_NONE_LEFT', 'REFUND_NOT_PAID', 'IDEMPOTENCY_IN_PROGRESS']);

/** What the gateway was asked to refund for a payment, one amount per distinct gateway idempotency key. */
function askedOf(paymentKey: string): number {
  const byKey = new Map<string, number>();
  for (const c of gatewayCalls) if (c.paymentKey === paymentKey) byKey.set(c.idempotencyKey, c.amount);
  return [...byKey.values()].reduce((a, b) => a + b, 0);
}

async function checkInvariants(orderId: string, amount: number) {
  const o = await orderRow(t, orderId);
  const rows = await refundRows(t, orderId);
  const succeeded = rows.filter((r) => r.status === 'succeeded').reduce((a, r) => a + r.amount, 0);
  assert.ok(succeeded <= amount, `succeeded ${succeeded} <= ${amount}`);
  assert.equal(o.refunded_amount ?? 0, succeeded, 'refundedAmount is the sum of succeeded refunds');
  assert.equal(o.status, succeeded === amount ? 'refunded' : 'paid');
  assert.ok(askedOf(o.provider_payment_key!) <= amount, 'the gateway was never asked for more than was paid');
  const look = await simulatorFor(t.clock).lookupPayment(o.provider_payment_key!);
  assert.ok(look.status === 'succeeded');
  assert.equal(look.value.totalAmount - look.value.balanceAmount, succeeded, 'the gateway refunded exactly what the order records');
  assert.equal(rows.filter((r) => r.status === 'pending' || r.status === 'unknown').length, 0);
  return { o, rows, succeeded };
}

test('50 concurrent refunds of one order with different Idempotency-Keys, across two processes: never more than was paid', async () => {
  const amount = 10_000;
  const orderId = await insertPaidOrder(t, s.storeId, p.id, { amount });
  const bodies = Array.from({ length: 50 }, (_, i) => (i % 7 === 0 ? {} : { amount: 500 + ((i * 337) % 2_500) }));
  const answers = await Promise.all(bodies.map((b, i) => refund(i % 2 ? t2 : t, s.key, orderId, b, `conc-${orderId}-${i}`)));
  for (const a of answers) {
    if (a.statusCode === 200) continue;
    assert.ok(ALLOWED_REFUSALS.has(a.json().code), a.body);
  }
  const ok = answers.filter((a) => a.statusCode === 200);
  assert.ok(ok.length >= 1);
  const { succeeded, rows } = await checkInvariants(orderId, amount);
  assert.equal(ok.reduce((a, r) => a + r.json().refund.amount, 0), succeeded, 'every 200 is a succeeded refund and vice versa');
  assert.equal(rows.length, ok.length, 'refused requests recorded nothing');
});

test('50 concurrent refunds with the same Idempotency-Key: one refund, every 200 is the same one', async () => {
  const amount = 10_000;
  const orderId = await insertPaidOrder(t, s.storeId, p.id, { amount });
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => refund(i % 2 ? t2 : t, s.key, orderId, { amount: 3_000 }, `same-${orderId}`)));
  const ok = answers.filter((a) => a.statusCode === 200);
  for (const a of answers) if (a.statusCode !== 200) assert.equal(a.json().code, 'IDEMPOTENCY_IN_PROGRESS', a.body);
  assert.ok(ok.length >= 1);
  assert.equal(new Set(ok.map((a) => a.json().refund.id)).size, 1);
  const { rows } = await checkInvariants(orderId, amount);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].amount, 3_000);
});

test('50 concurrent full refunds (empty body) of one order: exactly one succeeds', async () => {
  const amount = 7_700;
  const orderId = await insertPaidOrder(t, s.storeId, p.id, { amount });
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => refund(i % 2 ? t2 : t, s.key, orderId, {}, `full-${orderId}-${i}`)));
  assert.equal(answers.filter((a) => a.statusCode === 200).length, 1);
  for (const a of answers) if (a.statusCode !== 200) assert.ok(ALLOWED_REFUSALS.has(a.json().code), a.body);
  const { o } = await checkInvariants(orderId, amount);
  assert.equal(o.status, 'refunded');
});
