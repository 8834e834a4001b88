import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, subscribe } from '../subscriptions/factory';

/**
 * The backfills of migrations 073 and 074 on rows written before them: run again on rows stripped back to how the
 * older code left them, they restore what the current code writes (a sold plan's name; an open price change kept on
 * the subscription with its consent).
 */
let t: TestApp;
let s: TestStore;
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => t?.close());

const migration = (name: string) => readFileSync(join(process.cwd(), 'src', 'db', 'migrations', name), 'utf8');
async function run(name: string) {
  // The add-column statements ran already; only the updates are run again.
  for (const stmt of migration(name).split(/;\s*\n/).map((x) => x.replace(/^\s*--.*$/gm, '').trim()).filter((x) => x && !/^alter table/i.test(x))) {
    await sql.raw(stmt).execute(t.db);
  }
}

test('074: an order and a subscription paid before it get their plan\'s current name; a row that has a name keeps it', async () => {
  const p = await createSubscriptionProduct(t, s);
  const a = await subscribe(t, s, { productId: p.id, buyerEmail: 'old@example.com' });
  const b = await subscribe(t, s, { productId: p.id, buyerEmail: 'new@example.com' });
  // `a` as the older code wrote it: no name in its terms.
  await sql`update orders set terms = terms #- '{plan,name}' where id = ${a.orderId}`.execute(t.db);
  await sql`update subscriptions set terms = terms #- '{plan,name}' where id = ${a.subscriptionId}`.execute(t.db);
  // `b` was sold as 베이직; the plan is renamed afterwards.
  const r = await t.app.inject({ method: 'PATCH', url: `/admin/v1/products/${p.id}`, headers: owner(s), payload: { pricing: { plans: [{ id: 'basic', name: '스탠다드', monthlyPrice: 9_900, yearlyPrice: 99_000 }] } } });
  assert.equal(r.statusCode, 200, r.body);
  await run('074_sold_plan_names.sql');
  const nameOf = async (table: 'orders' | 'subscriptions', id: string) => ((await t.db.selectFrom(table).select('terms').where('id', '=', id).executeTakeFirstOrThrow()).terms as any).plan.name;
  assert.equal(await nameOf('orders', a.orderId), '스탠다드', 'the best evidence left: the name as it stands at migration');
  assert.equal(await nameOf('subscriptions', a.subscriptionId), '스탠다드');
  assert.equal(await nameOf('orders', b.orderId), '베이직', 'a name kept at payment is never overwritten');
  assert.equal(await nameOf('subscriptions', b.subscriptionId), '베이직');
});

test('073: a subscription told about a price change and agreeing before it gets its pendingPriceChange', async () => {
  const p = await createSubscriptionProduct(t, s);
  const a = await subscribe(t, s, { productId: p.id, buyerEmail: 'pc@example.com' });
  const change = (
    await t.app.inject({ method: 'POST', url: `/admin/v1/products/${p.id}/plans/basic/price-changes`, headers: owner(s), payload: { monthlyPrice: 12_900, effectiveAt: new Date(t.clock.now().getTime() + 31 * 86_400_000).toISOString() } })
  ).json();
  const expected = (await t.app.inject({ url: `/v1/subscriptions/${a.subscriptionId}`, headers: post(s.key) })).json().pendingPriceChange;
  assert.equal(expected.priceChangeId, change.id);
  // As the older code left it: the decision accepted in its table, nothing on the subscription.
  await t.db.updateTable('subscription_price_changes').set({ accepted_at: t.clock.now() }).where('subscription_id', '=', a.subscriptionId).execute();
  await sql`update subscriptions set price_change = null where id = ${a.subscriptionId}`.execute(t.db);
  await run('076_subscription_price_change.sql');
  const got = (await t.app.inject({ url: `/v1/subscriptions/${a.subscriptionId}`, headers: post(s.key) })).json().pendingPriceChange;
  assert.deepEqual(got, { ...expected, acceptedAt: t.clock.now().toISOString() });
});
