import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { createSession, submitPayForm } from '../checkout/factory';
import { createSubscriptionProduct, subscribe } from './factory';
import { TEST_CARDS } from '../../src/payments';
import { decryptSecret } from '../../src/platform/crypto';

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

test('paying a subscription checkout creates the subscription with the first order (initial), its period, and a sealed billing key', async () => {
  const p = await createSubscriptionProduct(t, s);
  const { orderId, subscriptionId, sessionId } = await subscribe(t, s, { productId: p.id, metadata: { userId: 'u_1' } });
  assert.match(subscriptionId, /^sub_[0-9a-z]{26}$/);
  const order = await t.db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
  assert.equal(order.subscription_event, 'initial');
  const sub = await t.db.selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).executeTakeFirstOrThrow();
  assert.equal(sub.status, 'active');
  assert.equal(sub.checkout_session_id, sessionId);
  assert.equal(sub.latest_order_id, orderId);
  assert.equal(Number(sub.amount), 9_900);
  assert.equal(sub.current_period_start.toISOString(), order.period_start!.toISOString());
  assert.equal(sub.current_period_end.toISOString(), order.period_end!.toISOString());
  assert.deepEqual(sub.metadata, { userId: 'u_1' });
  assert.equal(sub.card_last4, '4242');
  // Stored sealed, never in clear text.
  assert.ok(sub.billing_key_sealed && !sub.billing_key_sealed.includes('sim_bill_'));
  assert.match(decryptSecret(t.deps.config.masterKey, sub.billing_key_sealed).toString('utf8'), /^sim_bill_success_/);
});

test('a one-time product creates no subscription', async () => {
  const { createProduct } = await import('../checkout/factory');
  const p = await createProduct(t, s);
  const session = await createSession(t, s.key, { productId: p.id, successUrl: 'https://example.com/ok' });
  const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
  const orderId = new URL(String(res.headers.location)).searchParams.get('order_id')!;
  const order = await t.db.selectFrom('orders').select('subscription_id').where('id', '=', orderId).executeTakeFirstOrThrow();
  assert.equal(order.subscription_id, null);
});

test('a declined card creates neither the order nor the subscription', async () => {
  const p = await createSubscriptionProduct(t, s);
  const session = await createSession(t, s.key, { productId: p.id, planId: 'basic', interval: 'monthly' });
  const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.declined });
  assert.equal(res.statusCode, 422);
  const n = await t.db.selectFrom('subscriptions').select('id').where('checkout_session_id', '=', session.id).execute();
  assert.equal(n.length, 0);
});
