import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { TEST_CARDS } from '../../src/payments';
import { RECONCILE_DELAY_MS } from '../../src/refunds/service';
import { createEndpoint, pump } from '../webhooks/setup';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { buy, product, refund } from './factory';

let t: TestApp;
let s: TestStore;
let rx: Receiver;
let secret = '';

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  rx = await startReceiver({ secrets: () => [secret] });
  secret = (await createEndpoint(t, s, { url: rx.url('/refunds'), eventTypes: ['order.refunded'] })).secret;
});
after(async () => {
  await rx.close();
  await t.close();
});

test('an endpoint subscribed to order.refunded receives each succeeded refund, signed (standardwebhooks), including one settled by reconciliation', async () => {
  const p = await product(t, s);
  const orderId = await buy(t, s, p.id);
  const r1 = (await refund(t, s.key, orderId, { amount: 4_000, reason: '부분 환불' })).json();
  await pump(t);
  const late = await buy(t, s, p.id, TEST_CARDS.refundTimesOut);
  assert.equal((await refund(t, s.key, late, {})).json().code, 'PG_REFUND_AMBIGUOUS');
  await pump(t);
  t.clock.advance(RECONCILE_DELAY_MS);
  await t.deps.worker.runOnce();
  await pump(t);

  const got = rx.received.filter((r) => r.payload?.type === 'order.refunded');
  assert.equal(got.length, 2, 'order.paid is not subscribed; the ambiguous refund is sent once, when it succeeded');
  for (const r of got) assert.deepEqual(r.verifiedWith, [secret]);
  const [first, second] = got.map((r) => r.payload);
  assert.equal(first.data.refund.id, r1.refund.id);
  assert.equal(first.data.refund.status, 'succeeded');
  assert.equal(first.data.order.id, orderId);
  assert.equal(first.data.order.refundedAmount, 4_000);
  assert.equal(first.data.order.status, 'paid');
  assert.equal(first.data.licensesRevoked, 0);
  assert.equal(second.data.order.id, late);
  assert.equal(second.data.order.status, 'refunded');
  assert.equal(second.data.refund.amount, 10_000);
});
