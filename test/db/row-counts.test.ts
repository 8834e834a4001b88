import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, createSubscriptionProduct, owner, submitPayForm } from '../checkout/factory';
import { createLicenseTestApp, licensed } from '../licenses/factory';
import { TEST_CARDS } from '../../src/payments';

/**
 * The totals of the unfiltered lists (orders, subscriptions, licenses in the API; events and refunds in the console)
 * come from counts a trigger keeps per store and mode (row_counts, migration 136), so they do not read every row of a
 * big store. They must always equal a count of the rows, through every kind of change, and the answers must say so.
 */
const TABLES = ['orders', 'order_refunds', 'subscriptions', 'licenses', 'events'] as const;

async function recount(t: TestApp, storeId: string) {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    out[table] = Number((await sql<{ n: string }>`select count(*)::text as n from ${sql.table(table)} where store_id = ${storeId} and mode = 'test'`.execute(t.db)).rows[0].n);
  }
  return out;
}

async function kept(t: TestApp, storeId: string) {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    out[table] = Number(
      (await sql<{ n: string }>`select coalesce(sum(n), 0)::text as n from row_counts where table_name = ${table} and store_id = ${storeId} and mode = 'test'`.execute(t.db)).rows[0].n,
    );
  }
  return out;
}

async function totals(t: TestApp, s: TestStore) {
  const get = async (url: string, headers: Record<string, string>) => {
    const r = await t.app.inject({ url, headers });
    assert.equal(r.statusCode, 200, `${url}: ${r.body}`);
    return r.json().total as number;
  };
  const api = { authorization: `Bearer ${s.key}` };
  return {
    orders: await get('/v1/orders', api),
    order_refunds: await get('/admin/v1/refunds?mode=test', owner(s)),
    subscriptions: await get('/v1/subscriptions', api),
    licenses: await get('/v1/licenses', api),
    events: await get('/admin/v1/events?mode=test', owner(s)),
  };
}

async function sales(t: TestApp, s: TestStore) {
  const book = await createProduct(t, s, { name: '전자책', price: 15_000 });
  const plan = await createSubscriptionProduct(t, s);
  const buy = async (body: Record<string, unknown>) => {
    const session = await createSession(t, s.key, { successUrl: 'https://example.com/ok', ...body });
    const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.equal(res.statusCode, 303, res.body);
    return new URL(String(res.headers.location)).searchParams.get('order_id')!;
  };
  const first = await buy({ productId: book.id });
  await buy({ productId: book.id });
  await buy({ productId: plan.id, planId: 'basic', interval: 'monthly' });
  const r = await t.app.inject({ method: 'POST', url: `/v1/orders/${first}/refund`, headers: post(s.key), payload: { amount: 5_000, reason: '부분 환불' } });
  assert.equal(r.statusCode, 200, r.body);
  await licensed(t, s.storeId);
  return first;
}

test('the unfiltered lists\' totals equal a count of the rows, through payments, a refund, a license, a deletion and a move to the other mode', async (tc) => {
  const t = await createLicenseTestApp();
  tc.after(() => t.close());
  const s = await createTestStore(t);
  const other = await createTestStore(t);
  const first = await sales(t, s);
  await sales(t, other);

  const counted = await recount(t, s.storeId);
  assert.ok(TABLES.every((table) => counted[table]! > 0), JSON.stringify(counted));
  assert.deepEqual(await kept(t, s.storeId), counted, 'kept after the sales');
  assert.deepEqual(await totals(t, s), counted, 'the lists answer the same totals');

  const event = await t.db.selectFrom('events').select('id').where('store_id', '=', s.storeId).where('mode', '=', 'test').limit(1).executeTakeFirstOrThrow();
  await t.db.deleteFrom('events').where('id', '=', event.id).execute();
  await t.db.updateTable('orders').set({ mode: 'live' }).where('id', '=', first).execute();
  const after = await recount(t, s.storeId);
  assert.deepEqual(after, { ...counted, events: counted.events! - 1, orders: counted.orders! - 1 });
  assert.deepEqual(await kept(t, s.storeId), after, 'kept after a deletion and a move');
  assert.deepEqual(await totals(t, s), after, 'the lists follow');
  assert.deepEqual(await totals(t, other), await recount(t, other.storeId), 'the other store is its own count');
});

test('migrations 136–138 count the rows made before them, and the lists answer the same totals', async (tc) => {
  const t = await createLicenseTestApp();
  tc.after(() => t.close());
  const s = await createTestStore(t);
  await sales(t, s);
  const expected = await recount(t, s.storeId);

  // As before the migration: nothing kept; then its counts, table by table.
  await t.db.deleteFrom('row_counts').execute();
  for (const file of ['136_row_counts.sql', '137_row_counts_orders.sql', '138_row_counts_events.sql']) {
    const text = readFileSync(join(process.cwd(), 'src/db/migrations', file), 'utf8');
    for (const [fill] of text.matchAll(/^insert into row_counts .*;$/gm)) await sql.raw(fill).execute(t.db);
  }
  assert.deepEqual(await kept(t, s.storeId), expected);
  assert.deepEqual(await totals(t, s), expected);
});
