import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestApp } from '../helpers/app';
import { signIn } from './helpers';
import { insertPaidOrder } from '../refunds/factory';
import { createProduct } from '../checkout/factory';
import { ORDER_COUNT_LIMIT } from '../../src/dashboard/pages/orders';

/**
 * The dashboard's orders list counts matching orders only up to 10,000 (an exact count reads every order of the store,
 * and its cost grew with the store in the soak); past that it says "10,000건 이상" and still offers the next page,
 * while the API's `total` stays exact (the contract's envelope).
 */
test('dashboard orders: past 10,000 matching orders the list says "10,000건 이상" and pages on; the API\'s total stays exact', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '김사장' });
  const p = await createProduct(t, owner.store, { name: '전자책', price: 15_000 });
  const first = await insertPaidOrder(t, owner.storeId, p.id, { amount: 15_000 });
  // Copies of that order, made in SQL: every column but the id and the session (unique) taken from it.
  const copy = async (n: number, tag: string) => {
    const { rows } = await sql<{ c: string }>`select column_name as c from information_schema.columns where table_name = 'orders' and table_schema = current_schema() and column_name not in ('id', 'checkout_session_id')`.execute(t.db);
    const cols = sql.join(rows.map((r) => sql.ref(r.c)));
    await sql`insert into orders (id, ${cols}) select ${`ord_${tag}_`} || g, ${cols} from orders, generate_series(1, ${n}) g where id = ${first}`.execute(t.db);
  };
  await copy(ORDER_COUNT_LIMIT - 1, 'a');

  const exact = await t.app.inject({ url: '/dashboard/orders', headers: owner.headers });
  assert.equal(exact.statusCode, 200);
  assert.match(exact.body, /data-testid="pager-total">1 \/ 500 페이지 · 총 10000건</, 'exactly 10,000 is still counted');
  assert.doesNotMatch(exact.body, /이상/);

  await copy(1, 'b');
  const many = await t.app.inject({ url: '/dashboard/orders', headers: owner.headers });
  assert.match(many.body, /data-testid="pager-total">1 페이지 · 10,000건 이상</);
  assert.match(many.body, /href="\/dashboard\/orders\?page=2" rel="next"/);
  const deep = await t.app.inject({ url: '/dashboard/orders?page=501', headers: owner.headers });
  assert.equal(deep.statusCode, 200);
  assert.match(deep.body, /data-testid="pager-total">501 페이지 · 10,000건 이상</);
  assert.match(deep.body, /data-order-id="/, 'page 501 lists the orders past the 10,000th');
  assert.doesNotMatch(deep.body, /rel="next"/, 'the last page (one order) offers no next page');

  const api = await t.app.inject({ url: '/v1/orders?limit=1', headers: { authorization: `Bearer ${owner.store.key}` } });
  assert.equal(api.statusCode, 200, api.body);
  assert.equal(api.json().total, ORDER_COUNT_LIMIT + 1, 'the API counts every order');
});
