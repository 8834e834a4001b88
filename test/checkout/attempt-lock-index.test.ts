import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestApp } from '../helpers/app';

/**
 * The sweep for payments whose confirmation lock ran out reads checkout sessions by `attempt_locked_until` through a
 * partial index that holds only the sessions with a lock time (migration 134). The index it replaced was partial on
 * `payment is not null`, which a new session's JSON `null` meets, so it held every session ever made and every
 * checkout wrote it. The sweep must still be served by the narrow index (its `<=` on the column implies the index's
 * predicate), or it would read every session.
 */
test('the stale-payment sweep is served by an index that holds only sessions with a lock time', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const defs = (
    await sql<{ indexname: string; indexdef: string }>`select indexname, indexdef from pg_indexes where tablename = 'checkout_sessions'`.execute(t.db)
  ).rows;
  const lock = defs.find((d) => d.indexname === 'checkout_sessions_attempt_lock_idx');
  assert.ok(lock, `the index exists: ${defs.map((d) => d.indexname).join(', ')}`);
  assert.match(lock.indexdef, /\(attempt_locked_until\) WHERE \(attempt_locked_until IS NOT NULL\)$/);
  assert.ok(!defs.some((d) => d.indexname === 'checkout_sessions_inflight_idx'), 'the wide index is gone');

  // The sweep's own query (src/checkout/complete-repo.ts findStaleAttempts), planned with sequential scans priced out.
  const plan = await t.db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const rows = await trx
      .selectFrom('checkout_sessions')
      .select('id')
      .where('payment', 'is not', null)
      .where('attempt_locked_until', '<=', new Date())
      .where(sql<string>`payment->>'state'`, '=', 'confirming')
      .limit(100)
      .explain();
    return rows.map((r) => Object.values(r).join(' ')).join('\n');
  });
  assert.match(plan, /checkout_sessions_attempt_lock_idx/, plan);
});
