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
const TABLES = ['orders', 'order_refunds', 'subscriptions', 'licenses', 'events', 'subscription_charges'] as const;
/** The column each table's lists filter on, counted per value beside the whole (migration 136's `part`). */
const PART: Record<string, string | null> = { orders: 'status', order_refunds: 'status', subscriptions: 'status', licenses: null, events: 'type', subscription_charges: 'status' };
/** A table's rows of one store and mode; a charge's store and mode are its subscription's (migrations 139, 140). */
const rowsOf = (table: string, storeId: string) =>
  table === 'subscription_charges'
    ? sql`(select c.* from subscription_charges c join subscriptions s on s.id = c.subscription_id where s.store_id = ${storeId} and s.mode = 'test') as x`
    : sql`(select * from ${sql.table(table)} where store_id = ${storeId} and mode = 'test') as x`;

/** `table` for the whole store and mode, `table:value` per value of its filter column, from the rows themselves. */
async function recount(t: TestApp, storeId: string) {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    out[table] = Number((await sql<{ n: string }>`select count(*)::text as n from ${rowsOf(table, storeId)}`.execute(t.db)).rows[0].n);
    const col = PART[table];
    if (!col) continue;
    const rows = await sql<{ part: string; n: string }>`select ${sql.ref(col)} as part, count(*)::text as n from ${rowsOf(table, storeId)} group by 1`.execute(t.db);
    for (const r of rows.rows) out[`${table}:${r.part}`] = Number(r.n);
  }
  return out;
}

/** The same, from the kept counts. */
async function kept(t: TestApp, storeId: string) {
  const out: Record<string, number> = {};
  const rows = await sql<{ table_name: string; part: string; n: string }>`
    select table_name, part, sum(n)::text as n from row_counts where store_id = ${storeId} and mode = 'test' group by 1, 2 having sum(n) <> 0`.execute(t.db);
  for (const r of rows.rows) out[r.part ? `${r.table_name}:${r.part}` : r.table_name] = Number(r.n);
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
    'order_refunds:succeeded': await get('/admin/v1/refunds?mode=test&status=succeeded', owner(s)),
    subscriptions: await get('/v1/subscriptions', api),
    'subscriptions:active': await get('/v1/subscriptions?status=active', api),
    licenses: await get('/v1/licenses', api),
    events: await get('/admin/v1/events?mode=test', owner(s)),
    'events:order.paid': await get('/admin/v1/events?mode=test&type=order.paid', owner(s)),
    subscription_charges: await get('/admin/v1/subscription-charges?mode=test', owner(s)),
    'subscription_charges:succeeded': await get('/admin/v1/subscription-charges?mode=test&status=succeeded', owner(s)),
  };
}

/** What the lists answered, against the same figures counted from the rows (0 for a value no row has). */
function sameTotals(answered: Record<string, number>, counted: Record<string, number>, what: string) {
  assert.deepEqual(answered, Object.fromEntries(Object.keys(answered).map((k) => [k, counted[k] ?? 0])), what);
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
  // A month on the subscription's test clock: its renewal is a charge (and an order, and events).
  const sub = await t.db.selectFrom('subscriptions').select('id').where('store_id', '=', s.storeId).executeTakeFirstOrThrow();
  const adv = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${sub.id}/test-clock/advance`, headers: owner(s), payload: { days: 31 } });
  assert.equal(adv.statusCode, 200, adv.body);
  const r = await t.app.inject({ method: 'POST', url: `/v1/orders/${first}/refund`, headers: post(s.key), payload: { amount: 5_000, reason: '부분 환불' } });
  assert.equal(r.statusCode, 200, r.body);
  await licensed(t, s.storeId);
  return first;
}

test('the unfiltered lists\' totals equal a count of the rows, through payments, a refund, a license, a deletion, a move to the other mode and changes of status; filtered by type or status too', async (tc) => {
  const t = await createLicenseTestApp();
  tc.after(() => t.close());
  const s = await createTestStore(t);
  const other = await createTestStore(t);
  const first = await sales(t, s);
  await sales(t, other);

  const counted = await recount(t, s.storeId);
  assert.ok(TABLES.every((table) => counted[table]! > 0), JSON.stringify(counted));
  assert.ok(counted['events:order.paid']! > 0 && counted['order_refunds:succeeded']! > 0 && counted['subscriptions:active']! > 0 && counted['subscription_charges:succeeded']! > 0, JSON.stringify(counted));
  assert.deepEqual(await kept(t, s.storeId), counted, 'kept after the sales');
  sameTotals(await totals(t, s), counted, 'the lists answer the same totals');

  const event = await t.db.selectFrom('events').select('id').where('store_id', '=', s.storeId).where('mode', '=', 'test').limit(1).executeTakeFirstOrThrow();
  await t.db.deleteFrom('events').where('id', '=', event.id).execute();
  await t.db.updateTable('orders').set({ mode: 'live' }).where('id', '=', first).execute();
  await t.db.updateTable('subscriptions').set({ status: 'ended' }).where('store_id', '=', s.storeId).execute();
  await t.db.updateTable('order_refunds').set({ status: 'failed' }).where('store_id', '=', s.storeId).execute();
  const charges = t.db.selectFrom('subscriptions').select('id').where('store_id', '=', s.storeId);
  await t.db.updateTable('subscription_charges').set({ status: 'failed' }).where('subscription_id', 'in', charges).execute();
  const after = await recount(t, s.storeId);
  assert.equal(after.events, counted.events! - 1);
  assert.equal(after.orders, counted.orders! - 1);
  assert.equal(after['subscriptions:ended'], counted.subscriptions);
  assert.equal(after['subscription_charges:failed'], counted.subscription_charges);
  assert.deepEqual(await kept(t, s.storeId), after, 'kept after a deletion, a move and changes of status');
  sameTotals(await totals(t, s), after, 'the lists follow');
  sameTotals(await totals(t, other), await recount(t, other.storeId), 'the other store is its own count');
});

test('migrations 136–140 count the rows made before them, and the lists answer the same totals', async (tc) => {
  const t = await createLicenseTestApp();
  tc.after(() => t.close());
  const s = await createTestStore(t);
  await sales(t, s);
  const expected = await recount(t, s.storeId);
  const fills = (files: string[]) =>
    files.flatMap((file) => [...readFileSync(join(process.cwd(), 'src/db/migrations', file), 'utf8').matchAll(/^insert into row_counts [\s\S]*?;$/gm)].map((m) => m[0]));

  // 137, 138 and 140 count the rows of orders, events and charges after their trigger exists, without holding writers: every row
  // here was written with the trigger in place (as a row written between the trigger and the count would be), so
  // their count must add nothing to what the trigger kept.
  for (const fill of fills(['137_row_counts_orders.sql', '138_row_counts_events.sql', '140_row_counts_charges.sql'])) await sql.raw(fill).execute(t.db);
  assert.deepEqual(await kept(t, s.storeId), expected, 'a row the trigger counted is not counted again');

  // As before the migrations: nothing kept; then their counts, table by table.
  await t.db.deleteFrom('row_counts').execute();
  for (const fill of fills(['136_row_counts.sql', '137_row_counts_orders.sql', '138_row_counts_events.sql', '140_row_counts_charges.sql'])) await sql.raw(fill).execute(t.db);
  assert.deepEqual(await kept(t, s.storeId), expected);
  sameTotals(await totals(t, s), expected, 'the lists answer the counts of the rows');
});
