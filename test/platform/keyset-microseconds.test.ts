import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { insertPaidOrder, product } from '../refunds/factory';
import { scanOrders } from '../../src/orders/repo';
import { scanSales } from '../../src/tax/repo';

// The streamed exports (orders CSV, VAT CSV) read in keyset batches after the last row's instant. PostgreSQL keeps
// microseconds, a JavaScript Date milliseconds: a cursor taken from a Date would read the batch's last row again
// (ascending: a sale counted twice in the VAT CSV) or skip rows made later in the same millisecond (descending: an
// order missing from the orders CSV). Rows here share one millisecond, batches of two cut between them.

let t: TestApp;
let s: TestStore;
const ids: string[] = [];
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  const p = await product(t, s);
  for (let i = 0; i < 5; i++) ids.push(await insertPaidOrder(t, s.storeId, p.id, { amount: 11_000 }));
  // 2026-07-10 00:00:00.000 plus 100, 200 … 500 µs: five instants inside one millisecond.
  for (const [i, id] of ids.entries()) {
    const at = `2026-07-10 00:00:00.000${(i + 1) * 100}+00`;
    await sql`update orders set paid_at = ${at}::timestamptz, created_at = ${at}::timestamptz where id = ${id}`.execute(t.db);
  }
});
after(async () => {
  await t.close();
});

test('the VAT scan reads each sale of one millisecond once, across batch boundaries', async () => {
  const seen: string[] = [];
  const scope = { storeId: s.storeId, mode: 'test' as const, start: new Date('2026-07-01T00:00:00Z'), end: new Date('2026-08-01T00:00:00Z') };
  for await (const batch of scanSales(t.db, scope, 2)) {
    seen.push(...batch.map((l) => l.orderId));
    if (seen.length > 10) break; // a cursor that reads its last row again never ends here
  }
  assert.deepEqual([...seen].sort(), [...ids].sort(), `read ${seen.length} lines for 5 sales`);
});

test('the orders export reads each order of one millisecond once, across batch boundaries', async () => {
  const seen: string[] = [];
  for await (const batch of scanOrders(t.db, { storeId: s.storeId, mode: 'test', productIds: null }, {}, 2)) {
    seen.push(...batch.map((o) => o.id));
    if (seen.length > 10) break;
  }
  assert.deepEqual([...seen].sort(), [...ids].sort(), `read ${seen.length} orders of 5`);
});
