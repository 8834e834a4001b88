import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, post } from '../helpers/app';
import { createProduct, createSession, createSubscriptionProduct, submitPayForm } from '../checkout/factory';
import { TEST_CARDS } from '../../src/payments';
import { homeFigures } from '../../src/dashboard/home';
import { signIn } from './helpers';

test('Home: paid, refunds, net and orders per window, subscriptions and MRR, in the session mode only', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const s = await signIn(t, { name: '이대표' });
  const product = await createProduct(t, s.store, { name: '전자책', price: 15_000 });
  const buy = async (productId: string, extra: Record<string, unknown> = {}) => {
    const session = await createSession(t, s.store.key, { productId, successUrl: 'https://example.com/ok', ...extra });
    const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.equal(res.statusCode, 303, res.body);
    return new URL(String(res.headers.location)).searchParams.get('order_id')!;
  };
  // 10 days ago: one order (inside 30 days, outside 7 days and today).
  const now = t.clock.now().getTime();
  t.clock.set(now - 10 * 86_400_000);
  await buy(product.id);
  t.clock.set(now);
  const today = await buy(product.id);
  const refund = await t.app.inject({ method: 'POST', url: `/v1/orders/${today}/refund`, headers: post(s.store.key), payload: { amount: 5_000, reason: '부분 환불' } });
  assert.equal(refund.statusCode, 200, refund.body);
  const subProduct = await createSubscriptionProduct(t, s.store);
  await buy(subProduct.id, { planId: 'basic', interval: 'monthly' });
  await buy(subProduct.id, { planId: 'basic', interval: 'yearly' });

  const f = await homeFigures(t.deps, s.storeId, 'test');
  const [day, , month] = f.windows;
  assert.deepEqual({ paid: day.paid, refunds: day.refunds, net: day.net, orders: day.orders, newSubs: day.newSubscriptions }, { paid: 15_000 + 9_900 + 99_000, refunds: 5_000, net: 15_000 + 9_900 + 99_000 - 5_000, orders: 3, newSubs: 2 });
  assert.equal(month.paid, 30_000 + 9_900 + 99_000);
  assert.equal(month.orders, 4);
  assert.equal(f.activeSubscriptions, 2);
  assert.equal(f.mrr, 9_900 + Math.floor(99_000 / 12));
  assert.equal(f.daily.length, 30);
  assert.equal(f.daily.reduce((a, d) => a + d.amount, 0), month.paid);
  const live = await homeFigures(t.deps, s.storeId, 'live');
  assert.equal(live.windows[2].paid, 0, 'test payments never show in live mode');

  const page = await t.app.inject({ url: '/dashboard', headers: s.headers });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /data-testid="net-today">118,900원</);
  assert.match(page.body, /data-testid="mrr">18,150원</);
  assert.match(page.body, /<svg class="chart"/);
});
