import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestDatabase } from '../helpers/app';
import { DEADLOCK_ATTEMPTS } from '../../src/db/deadlock-retry';

// Two transactions that update the same two rows in opposite orders deadlock, and PostgreSQL aborts one (40P01). The
// kept counters' triggers do exactly that between a payment and a refund (the 60-minute soak of 2026-12-03 answered
// two buyers 500). The victim must run again and commit, each body's writes counted once.

const PG = process.env.TEST_DATABASE_URL ? false : 'PostgreSQL only (TEST_DATABASE_URL): one PGlite connection cannot deadlock';

test('a deadlock victim runs again and commits: both transactions land, each once', { skip: PG }, async () => {
  const d = await createTestDatabase();
  try {
    await sql`create table scratch_counters (id text primary key, n int not null)`.execute(d.db);
    await sql`insert into scratch_counters values ('a', 0), ('b', 0)`.execute(d.db);
    let firstLocks = 0;
    let release!: () => void;
    const bothHoldOne = new Promise<void>((r) => (release = r));
    const runs = { t1: 0, t2: 0 };
    const bump = (id: string) => sql`update scratch_counters set n = n + 1 where id = ${id}`;
    const tx = (name: 't1' | 't2', first: string, second: string) =>
      d.db.transaction().execute(async (trx) => {
        runs[name]++;
        await bump(first).execute(trx);
        if (++firstLocks === 2) release();
        await bothHoldOne;
        await bump(second).execute(trx);
      });
    const before = d.stats.deadlockRetries;
    await Promise.all([tx('t1', 'a', 'b'), tx('t2', 'b', 'a')]);
    const rows = await sql<{ id: string; n: number }>`select id, n from scratch_counters order by id`.execute(d.db);
    assert.deepEqual(rows.rows.map((r) => [r.id, Number(r.n)]), [['a', 2], ['b', 2]], 'each transaction counted once');
    assert.equal(runs.t1 + runs.t2, 3, 'one of the two ran again');
    assert.equal(d.stats.deadlockRetries - before, 1, 'counted for db_transaction_retries_total');
  } finally {
    await d.drop();
  }
});

test(`a transaction is run at most ${DEADLOCK_ATTEMPTS} times; other errors are not retried`, async () => {
  const d = await createTestDatabase();
  try {
    // Both databases come with it (src/db/postgres.ts, src/db/pglite-open.ts).
    const stats = d.stats;
    const db = d.db;
    const before = stats.deadlockRetries;
    let runs = 0;
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    await assert.rejects(db.transaction().execute(async () => { runs++; throw deadlock; }), /deadlock detected/);
    assert.equal(runs, DEADLOCK_ATTEMPTS);
    assert.equal(stats.deadlockRetries - before, DEADLOCK_ATTEMPTS - 1);
    runs = 0;
    await assert.rejects(db.transaction().execute(async () => { runs++; throw Object.assign(new Error('duplicate key'), { code: '23505' }); }), /duplicate key/);
    assert.equal(runs, 1, 'a unique violation is an answer, not a reason to run again');
    // A builder with an isolation level retries too.
    runs = 0;
    await assert.rejects(db.transaction().setIsolationLevel('serializable').execute(async () => { runs++; throw Object.assign(new Error('could not serialize'), { code: '40001' }); }));
    assert.equal(runs, DEADLOCK_ATTEMPTS);
  } finally {
    await d.drop();
  }
});
