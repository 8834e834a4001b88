import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createRound, orderFee } from '../../src/refunds/settlement';
import { insertPaidOrder, orderRow, product } from './factory';

// A big store's weekly round is written in batches, one transaction each (issue 43): a run stopped between two batches
// leaves an open round (not shown) whose figures are those of the orders it holds, and the next run finishes it.
let t: TestApp;
let s: TestStore;
const amounts = [10_000, 12_345, 9_900, 15_000, 33_333, 7_700, 50_000];
const ids: string[] = [];

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  const p = await product(t, s);
  t.clock.set('2026-11-02T01:00:00.000Z');
  // Paid a minute apart, oldest first: a batch takes the oldest unsettled orders.
  for (const [i, amount] of amounts.entries()) ids.push(await insertPaidOrder(t, s.storeId, p.id, { amount, paidAt: new Date(Date.parse('2026-11-02T01:00:00.000Z') + i * 60_000) }));
  t.clock.set('2026-11-30T01:00:00.000Z'); // every window has ended
});
after(async () => {
  await t.close();
});

/** The service's deps whose database fails the `n`th transaction it is asked for (a crash between batches). */
function crashingAt(n: number) {
  let count = 0;
  const db = new Proxy(t.deps.db, {
    get(target, prop) {
      if (prop === 'transaction') {
        return () => {
          count++;
          if (count === n) return { execute: async () => { throw new Error('process stopped'); } };
          return target.transaction();
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { ...t.deps, db } as typeof t.deps;
}

const input = { mode: 'test' as const, cutoff: new Date('2026-11-30T00:00:00.000Z'), source: 'job' as const, createdBy: 'job', periodKey: '2026-11-30' };

test('a run stopped after its first batch leaves an open round, hidden, whose figures are its orders; the next run finishes it with the figures of one whole round', async () => {
  const run = { ...input, storeId: s.storeId };
  await assert.rejects(createRound(crashingAt(2), run, 3), /process stopped/);

  const open = await t.db.selectFrom('settlement_rounds').selectAll().where('store_id', '=', s.storeId).execute();
  assert.equal(open.length, 1);
  assert.equal(open[0].closed_at, null);
  const first = await t.db.selectFrom('settlement_orders').selectAll().where('round_id', '=', open[0].id).execute();
  assert.deepEqual(first.map((l) => l.order_id).sort(), ids.slice(0, 3).sort(), 'the first batch: the three oldest orders');
  assert.equal(open[0].order_count, 3);
  assert.equal(Number(open[0].gross), amounts.slice(0, 3).reduce((a, b) => a + b, 0));
  assert.equal((await orderRow(t, ids[0])).settlement_id, open[0].id);
  assert.equal((await orderRow(t, ids[3])).settlement_id, null);
  // Not shown while open: the list and the round itself.
  assert.equal((await t.app.inject({ url: '/admin/v1/settlements?mode=test', headers: owner(s) })).json().total, 0);
  assert.equal((await t.app.inject({ url: `/admin/v1/settlements/${open[0].id}`, headers: owner(s) })).statusCode, 404);

  // The next run resumes the same round (same id, same cutoff) and settles the rest.
  const round = await createRound(t.deps, run, 3);
  assert.ok(round);
  assert.equal(round.id, open[0].id);
  assert.equal(round.cutoff, open[0].cutoff.toISOString());
  assert.deepEqual(round.orders.map((o) => o.orderId).sort(), [...ids].sort());
  const fees = amounts.map((a) => orderFee(a));
  const gross = amounts.reduce((a, b) => a + b, 0);
  const feeSum = fees.reduce((a, b) => a + b, 0);
  assert.deepEqual([round.orderCount, round.gross, round.refunds, round.fees, round.net], [7, gross, 0, feeSum, gross - feeSum]);
  // Shown once closed; a third run of the period makes nothing.
  const list = (await t.app.inject({ url: '/admin/v1/settlements?mode=test', headers: owner(s) })).json();
  assert.equal(list.total, 1);
  assert.equal(list.data[0].gross, gross);
  assert.equal(await createRound(t.deps, run, 3), null);
  assert.equal((await t.db.selectFrom('settlement_rounds').select('id').where('store_id', '=', s.storeId).execute()).length, 1);
});
