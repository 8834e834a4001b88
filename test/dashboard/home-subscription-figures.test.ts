import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTestApp, post } from '../helpers/app';
import { createSession, createSubscriptionProduct, submitPayForm } from '../checkout/factory';
import { TEST_CARDS } from '../../src/payments';
import { homeFigures } from '../../src/dashboard/home';
import { signIn } from './helpers';

/**
 * Home's active subscriptions and MRR come from per-store rows (home_subscription_figures, migration 135) that a trigger
 * keeps in the writer's transaction, so Home does not read every active subscription on each view. They must always
 * equal a recount of the subscriptions, through every kind of change: a purchase, an immediate cancel, a lapse to
 * past_due and back, a price change, a change of interval, a deletion.
 */
test('Home\'s active subscriptions and MRR always equal a recount of the subscriptions, through purchases, cancels, lapses, price changes and deletions', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const s = await signIn(t, { name: '이대표' });
  const plan = await createSubscriptionProduct(t, s.store);
  const subscribe = async (interval: 'monthly' | 'yearly') => {
    const session = await createSession(t, s.store.key, { productId: plan.id, planId: 'basic', interval, successUrl: 'https://example.com/ok' });
    const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.equal(res.statusCode, 303, res.body);
    const sub = await t.db.selectFrom('subscriptions').select('id').where('checkout_session_id', '=', session.id).executeTakeFirstOrThrow();
    return sub.id;
  };

  const recount = async () =>
    (
      await sql<{ billing_interval: string; n: string; amount: string }>`
        select billing_interval, count(*)::text as n, sum(amount)::text as amount from subscriptions
         where store_id = ${s.storeId} and mode = 'test' and status = 'active' group by billing_interval order by billing_interval`.execute(t.db)
    ).rows.map((r) => ({ interval: r.billing_interval, count: Number(r.n), amount: Number(r.amount) }));
  const kept = async () =>
    (
      await sql<{ billing_interval: string; n: string; amount: string }>`
        select billing_interval, sum(active_count)::text as n, sum(active_amount)::text as amount from home_subscription_figures
         where store_id = ${s.storeId} and mode = 'test' group by billing_interval having sum(active_count) <> 0 or sum(active_amount) <> 0
         order by billing_interval`.execute(t.db)
    ).rows.map((r) => ({ interval: r.billing_interval, count: Number(r.n), amount: Number(r.amount) }));
  const agree = async (what: string) => assert.deepEqual(await kept(), await recount(), what);

  const a = await subscribe('monthly');
  const b = await subscribe('monthly');
  const c = await subscribe('yearly');
  const d = await subscribe('monthly');
  await agree('after the purchases');
  let f = await homeFigures(t.deps, s.storeId, 'test');
  assert.equal(f.activeSubscriptions, 4);
  assert.equal(f.mrr, 9_900 * 3 + Math.floor(99_000 / 12), 'three monthly plans and a twelfth of a yearly one');

  const r = await t.app.inject({ method: 'POST', url: `/v1/subscriptions/${a}/cancel`, headers: post(s.store.key), payload: { timing: 'immediate' } });
  assert.equal(r.statusCode, 200, r.body);
  await agree('after an immediate cancel');
  await t.db.updateTable('subscriptions').set({ status: 'past_due' }).where('id', '=', b).execute();
  await agree('after a lapse to past_due');
  f = await homeFigures(t.deps, s.storeId, 'test');
  assert.deepEqual({ active: f.activeSubscriptions, mrr: f.mrr }, { active: 2, mrr: 9_900 + Math.floor(99_000 / 12) }, 'ended and past-due subscriptions are not in MRR');

  await t.db.updateTable('subscriptions').set({ status: 'active' }).where('id', '=', b).execute();
  await t.db.updateTable('subscriptions').set({ amount: 12_900 }).where('id', '=', d).execute();
  await agree('after a recovery and a price change');
  await t.db.updateTable('subscriptions').set({ billing_interval: 'monthly' }).where('id', '=', c).execute();
  await agree('after a change of interval alone');
  await t.db.updateTable('subscriptions').set({ amount: 9_900 }).where('id', '=', c).execute();
  await t.db.deleteFrom('subscriptions').where('id', '=', b).execute();
  await agree('after a deletion');
  f = await homeFigures(t.deps, s.storeId, 'test');
  assert.deepEqual({ active: f.activeSubscriptions, mrr: f.mrr }, { active: 2, mrr: 12_900 + 9_900 });
});

test('migration 135 fills the figures from the subscriptions made before it, and Home reads the same as before', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const s = await signIn(t, { name: '이대표' });
  const plan = await createSubscriptionProduct(t, s.store);
  for (const interval of ['monthly', 'yearly', 'monthly'] as const) {
    const session = await createSession(t, s.store.key, { productId: plan.id, planId: 'basic', interval, successUrl: 'https://example.com/ok' });
    const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.equal(res.statusCode, 303, res.body);
  }
  await t.db.updateTable('subscriptions').set({ status: 'ended' }).where('billing_interval', '=', 'yearly').execute();
  const expected = await homeFigures(t.deps, s.storeId, 'test');
  assert.deepEqual({ active: expected.activeSubscriptions, mrr: expected.mrr }, { active: 2, mrr: 19_800 });

  // As before the migration: no figures kept; then its fill.
  await t.db.deleteFrom('home_subscription_figures').execute();
  const text = readFileSync(join(process.cwd(), 'src/db/migrations/135_home_subscription_figures.sql'), 'utf8');
  await sql.raw(text.slice(text.lastIndexOf('insert into home_subscription_figures'))).execute(t.db);
  const filled = await homeFigures(t.deps, s.storeId, 'test');
  assert.deepEqual({ active: filled.activeSubscriptions, mrr: filled.mrr }, { active: 2, mrr: 19_800 });
});
