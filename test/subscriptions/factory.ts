import assert from 'node:assert/strict';
import { bearer, type TestApp, type TestStore } from '../helpers/app';
import { createSession, createSubscriptionProduct, submitPayForm } from '../checkout/factory';
import { TEST_CARDS } from '../../src/payments';

export { createSubscriptionProduct };

/** Subscribes through the hosted payment page with a test card; returns the first order id and the subscription id. */
export async function subscribe(
  t: TestApp,
  s: TestStore,
  o: { productId: string; planId?: string; interval?: 'monthly' | 'yearly'; cardNumber?: string; metadata?: Record<string, string>; buyerEmail?: string; buyerPhone?: string },
): Promise<{ orderId: string; subscriptionId: string; sessionId: string }> {
  const session = await createSession(t, s.key, {
    productId: o.productId,
    planId: o.planId ?? 'basic',
    interval: o.interval ?? 'monthly',
    successUrl: 'https://example.com/ok',
    ...(o.metadata ? { metadata: o.metadata } : {}),
  });
  const res = await submitPayForm(t, session, { cardNumber: o.cardNumber ?? TEST_CARDS.success, ...(o.buyerEmail ? { buyerEmail: o.buyerEmail } : {}), ...(o.buyerPhone ? { buyerPhone: o.buyerPhone } : {}) });
  assert.equal(res.statusCode, 303, res.body);
  const orderId = new URL(String(res.headers.location)).searchParams.get('order_id')!;
  const order = await t.db.selectFrom('orders').select('subscription_id').where('id', '=', orderId).executeTakeFirstOrThrow();
  assert.ok(order.subscription_id);
  return { orderId, subscriptionId: order.subscription_id, sessionId: session.id };
}

export async function getSubscription(t: TestApp, key: string, id: string): Promise<any> {
  const res = await t.app.inject({ url: `/v1/subscriptions/${id}`, headers: bearer(key) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

export async function eventsOf(t: TestApp, type: string): Promise<any[]> {
  const rows = await t.db.selectFrom('events').select(['id', 'type', 'data', 'created_at']).where('type', '=', type).orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => r.data as any);
}
