import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { createProduct, createSession, createSubscriptionProduct, owner, submitPayForm } from '../checkout/factory';
import { TEST_CARDS } from '../../src/payments';
import { homeFigures } from '../../src/dashboard/home';
import { signIn } from './helpers';

/**
 * Every figure of Home rests on one definition of "paid": 오늘 결제 금액 read 103,900원 while the 30-day chart added up
 * to 94,000원, because a test clock's renewal (dated ahead of now) was in one and not the other. Here the figures agree
 * before and after such a renewal's time comes, and the page says how it counts.
 */
test('today, 7 and 30 days, and the chart count the same payments; a test-clock renewal dated ahead is in none until its time', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const s = await signIn(t, { name: '이대표' });
  const book = await createProduct(t, s.store, { name: '전자책', price: 84_100 });
  const plan = await createSubscriptionProduct(t, s.store);
  const pay = async (body: Record<string, unknown>) => {
    const session = await createSession(t, s.store.key, { successUrl: 'https://example.com/ok', ...body });
    const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.equal(res.statusCode, 303, res.body);
  };
  await pay({ productId: book.id });
  await pay({ productId: plan.id, planId: 'basic', interval: 'monthly' });
  const sub = await t.db.selectFrom('subscriptions').select('id').where('store_id', '=', s.storeId).executeTakeFirstOrThrow();
  // The seller tries a renewal: the subscription's test clock moves a month and a day ahead, and it renews.
  const adv = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${sub.id}/test-clock/advance`, headers: owner(s.store), payload: { days: 31 } });
  assert.equal(adv.statusCode, 200, adv.body);
  const paidOrders = await t.db.selectFrom('orders').select(['amount', 'paid_at']).where('store_id', '=', s.storeId).where('status', '=', 'paid').execute();
  assert.equal(paidOrders.length, 3, 'the renewal was paid');
  assert.ok(paidOrders.some((o) => o.paid_at! > t.clock.now()), 'the renewal is dated at its clock, ahead of now');

  const agree = async (expectToday: number, future: number) => {
    const f = await homeFigures(t.deps, s.storeId, 'test');
    const [today, week, month] = f.windows;
    const chart = f.daily.reduce((a, d) => a + d.amount, 0);
    assert.equal(today.paid, expectToday);
    assert.equal(today.paid, f.daily.at(-1)!.amount, 'today = the chart\'s last bar');
    assert.equal(week.paid, f.daily.slice(-7).reduce((a, d) => a + d.amount, 0), '7 days = the last seven bars');
    assert.equal(month.paid, chart, '30 days = the chart total');
    assert.equal(f.future.amount, future);
    return f;
  };
  await agree(84_100 + 9_900, 9_900);
  const page = await t.app.inject({ url: '/dashboard', headers: s.headers });
  assert.match(page.body, /data-testid="paid-today">94,000원</);
  assert.match(page.body, /data-testid="chart-total">30일 합계 94,000원</);
  assert.match(page.body, /data-testid="paid-definition">결제 금액·주문·그래프는 모두 같은 기준입니다[^<]*테스트 시계로 앞당긴 결제 1건\(9,900원\)은 그 결제 시각이 되면 포함됩니다/);

  // A month and a day later in real time, the renewal is in today's figure and on the chart alike.
  t.clock.advance(31 * 86_400_000 + 3_600_000);
  const later = await agree(9_900, 0);
  assert.equal(later.windows[2].paid, 9_900, 'the first payments are over 30 days old now');
});
