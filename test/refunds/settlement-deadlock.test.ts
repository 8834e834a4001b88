import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestApp, createTestStore } from '../helpers/app';
import { createRound } from '../../src/refunds/settlement';
import { insertPaidOrder, product } from './factory';

// A batch of the weekly settlement that PostgreSQL ends as a deadlock's victim runs again (src/db/deadlock-retry.ts).
// The run must start again from the last committed batch: a rolled-back attempt's round id and position are not
// carried into the next attempt, or that batch's orders would be skipped and its lines point at a round that was never
// written.
test('a settlement batch ended by a deadlock runs again: one round, every order in it once, its figures whole', async () => {
  const t = await createTestApp();
  try {
    const s = await createTestStore(t);
    const p = await product(t, s);
    const amounts = [10_000, 12_345, 9_900, 15_000, 33_333, 7_700, 50_000];
    t.clock.set('2026-11-02T01:00:00.000Z');
    const ids: string[] = [];
    for (const [i, amount] of amounts.entries()) ids.push(await insertPaidOrder(t, s.storeId, p.id, { amount, paidAt: new Date(Date.parse('2026-11-02T01:00:00.000Z') + i * 60_000) }));
    t.clock.set('2026-11-30T01:00:00.000Z');
    // The first batch's lines meet a deadlock once (a sequence: not undone by the rollback, unlike a row would be).
    await sql`create sequence deadlock_once`.execute(t.db);
    await sql`create function deadlock_once() returns trigger language plpgsql as $$
      begin
        if nextval('deadlock_once') = 1 then raise exception 'deadlock detected' using errcode = '40P01'; end if;
        return new;
      end $$`.execute(t.db);
    await sql`create trigger deadlock_once before insert on settlement_orders for each statement execute function deadlock_once()`.execute(t.db);
    const retriesBefore = t.deps.database.stats.deadlockRetries;

    await createRound(t.deps, { storeId: s.storeId, mode: 'test', cutoff: new Date('2026-11-30T00:00:00.000Z'), source: 'job', createdBy: 'job', periodKey: '2026-11-30' }, 3);

    assert.equal(t.deps.database.stats.deadlockRetries - retriesBefore, 1, 'the batch ran again once');
    const rounds = await t.db.selectFrom('settlement_rounds').selectAll().where('store_id', '=', s.storeId).execute();
    assert.equal(rounds.length, 1, 'one round');
    assert.ok(rounds[0].closed_at, 'closed');
    const lines = await t.db.selectFrom('settlement_orders').select('order_id').where('round_id', '=', rounds[0].id).execute();
    assert.deepEqual(lines.map((l) => l.order_id).sort(), [...ids].sort(), 'every order once, the first batch included');
    assert.equal(rounds[0].order_count, amounts.length);
    assert.equal(Number(rounds[0].gross), amounts.reduce((a, b) => a + b, 0));
  } finally {
    await t.close();
  }
});
