import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTestApp, post } from '../helpers/app';
import { createProduct, createSession, createSubscriptionProduct, submitPayForm } from '../checkout/factory';
import { TEST_CARDS } from '../../src/payments';
import { homeFigures } from '../../src/dashboard/home';
import { signIn } from './helpers';

/**
 * Home reads its figures from per-day rows (home_daily_figures, migration 133) that triggers keep in the writer's
 * transaction, so its cost does not grow with the store. They must always equal what the orders, refunds and
 * subscriptions themselves say, through every kind of change: a payment, a partial refund, a full refund (the order
 * turns `refunded` and stays counted as paid), a paid time moved to another day, an order deleted.
 */
test('Home\'s per-day figures always equal a recount of the orders, refunds and subscriptions, through payments, refunds, moves and deletions', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const s = await signIn(t, { name: '이대표' });
  const book = await createProduct(t, s.store, { name: '전자책', price: 15_000 });
  const plan = await createSubscriptionProduct(t, s.store);
  const buy = async (productId: string, extra: Record<string, unknown> = {}) => {
    const session = await createSession(t, s.store.key, { productId, successUrl: 'https://example.com/ok', ...extra });
    const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.equal(res.statusCode, 303, res.body);
    return new URL(String(res.headers.location)).searchParams.get('order_id')!;
  };
  const refund = async (orderId: string, payload: Record<string, unknown>) => {
    const r = await t.app.inject({ method: 'POST', url: `/v1/orders/${orderId}/refund`, headers: post(s.store.key), payload });
    assert.equal(r.statusCode, 200, r.body);
  };

  // The oracle: the same figures recounted from the tables, per KST day.
  const recount = async () =>
    (
      await sql<{ day: string; paid: string; orders: string; refunds: string; subs: string }>`
        select day, sum(paid)::text as paid, sum(orders)::text as orders, sum(refunds)::text as refunds, sum(subs)::text as subs from (
          select to_char(paid_at at time zone 'Asia/Seoul', 'YYYY-MM-DD') as day, amount as paid, 1 as orders, 0 as refunds, 0 as subs
            from orders where store_id = ${s.storeId} and mode = 'test' and status in ('paid', 'refunded') and paid_at is not null
          union all
          select to_char(refunded_at at time zone 'Asia/Seoul', 'YYYY-MM-DD'), 0, 0, amount, 0
            from order_refunds where store_id = ${s.storeId} and mode = 'test' and status = 'succeeded' and refunded_at is not null
          union all
          select to_char(started_at at time zone 'Asia/Seoul', 'YYYY-MM-DD'), 0, 0, 0, 1 from subscriptions where store_id = ${s.storeId} and mode = 'test'
        ) x group by day having sum(paid) <> 0 or sum(orders) <> 0 or sum(refunds) <> 0 or sum(subs) <> 0 order by day`.execute(t.db)
    ).rows.map((r) => ({ day: r.day, paid: Number(r.paid), orders: Number(r.orders), refunds: Number(r.refunds), subs: Number(r.subs) }));
  const kept = async () =>
    (
      await sql<{ day: string; paid: string; orders: string; refunds: string; subs: string }>`
        select to_char(day, 'YYYY-MM-DD') as day, sum(paid_amount)::text as paid, sum(paid_orders)::text as orders, sum(refunded_amount)::text as refunds,
               sum(new_subscriptions)::text as subs
          from home_daily_figures where store_id = ${s.storeId} and mode = 'test'
         group by day having sum(paid_amount) <> 0 or sum(paid_orders) <> 0 or sum(refunded_amount) <> 0 or sum(new_subscriptions) <> 0 order by day`.execute(t.db)
    ).rows.map((r) => ({ day: r.day, paid: Number(r.paid), orders: Number(r.orders), refunds: Number(r.refunds), subs: Number(r.subs) }));
  const agree = async (what: string) => assert.deepEqual(await kept(), await recount(), what);

  const now = t.clock.now().getTime();
  t.clock.set(now - 3 * 86_400_000);
  const old = await buy(book.id);
  t.clock.set(now);
  const partly = await buy(book.id);
  const whole = await buy(book.id);
  await buy(plan.id, { planId: 'basic', interval: 'monthly' });
  await agree('after the payments');
  assert.equal((await recount()).length, 2, 'two days with sales');

  await refund(partly, { amount: 5_000, reason: '부분 환불' });
  await refund(whole, { reason: '전액 환불' });
  await agree('after a partial and a full refund');
  const f = await homeFigures(t.deps, s.storeId, 'test');
  assert.deepEqual(
    { paid: f.windows[0].paid, orders: f.windows[0].orders, refunds: f.windows[0].refunds, subs: f.windows[0].newSubscriptions },
    { paid: 15_000 * 2 + 9_900, orders: 3, refunds: 20_000, subs: 1 },
    'a fully refunded order stays a paid order of today, its refund counted apart',
  );
  assert.equal(f.windows[1].paid, 15_000 * 3 + 9_900);

  // A correction that moves a payment to another day moves its figures with it; a deleted order leaves them.
  await t.db.updateTable('orders').set({ paid_at: new Date(now - 40 * 86_400_000) }).where('id', '=', old).execute();
  await agree('after a paid time moved');
  assert.equal((await homeFigures(t.deps, s.storeId, 'test')).windows[2].paid, 15_000 * 2 + 9_900, 'a payment moved 40 days back leaves the 30 days');
  await t.db.deleteFrom('order_refunds').where('order_id', '=', partly).execute();
  await agree('after a refund deleted');
  await t.db.updateTable('orders').set({ status: 'failed' }).where('id', '=', partly).execute();
  await agree('after an order no longer paid');
  assert.equal((await homeFigures(t.deps, s.storeId, 'test')).windows[0].orders, 2);
});

test('migration 133 fills the figures of the 30 days Home shows from the sales made before it, and Home reads the same as before', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const s = await signIn(t, { name: '이대표' });
  const book = await createProduct(t, s.store, { name: '전자책', price: 15_000 });
  const buy = async () => {
    const session = await createSession(t, s.store.key, { productId: book.id, successUrl: 'https://example.com/ok' });
    const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.equal(res.statusCode, 303, res.body);
    return new URL(String(res.headers.location)).searchParams.get('order_id')!;
  };
  const now = t.clock.now().getTime();
  for (const daysAgo of [40, 29, 6, 0]) {
    t.clock.set(now - daysAgo * 86_400_000);
    await buy();
  }
  t.clock.set(now);
  const r = await t.app.inject({ method: 'POST', url: `/v1/orders/${await buy()}/refund`, headers: post(s.store.key), payload: { amount: 4_000, reason: '부분 환불' } });
  assert.equal(r.statusCode, 200, r.body);
  const expected = await homeFigures(t.deps, s.storeId, 'test');

  // As before the migration: no figures kept; then its fill, at the service's now.
  await t.db.deleteFrom('home_daily_figures').execute();
  const text = readFileSync(join(process.cwd(), 'src/db/migrations/133_home_daily_figures.sql'), 'utf8');
  const fill = text.slice(text.lastIndexOf('insert into home_daily_figures')).replaceAll('now()', `'${t.clock.now().toISOString()}'::timestamptz`);
  await sql.raw(fill).execute(t.db);
  const filled = await homeFigures(t.deps, s.storeId, 'test');
  assert.deepEqual(filled.windows, expected.windows);
  assert.deepEqual(filled.daily, expected.daily);
  assert.equal(filled.windows[2].orders, 4, 'the order 40 days old is outside the 30 days, filled or not');
});
