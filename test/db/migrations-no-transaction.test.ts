import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listMigrations, splitStatements } from '../../src/db/database';

// PostgreSQL refuses CREATE INDEX CONCURRENTLY inside a transaction block (a multi-statement query string is one too),
// and every migration runs in one unless its first line says otherwise. PGlite accepts it either way, so without this
// check a migration that forgot the mark would pass every embedded test and fail only when deployed on PostgreSQL.
test('a migration that builds an index CONCURRENTLY is marked no-transaction, and runs as separate statements', () => {
  const concurrent = listMigrations().filter((m) => /\bconcurrently\b/i.test(m.sql.replace(/--.*$/gm, '')));
  assert.ok(concurrent.length >= 2, 'the orders payment-key and jobs lane indexes are built concurrently');
  for (const m of concurrent) {
    assert.equal(m.transactional, false, `${m.version} must start with "-- migration: no-transaction"`);
    assert.ok(m.statements.length >= 1);
    for (const s of m.statements) assert.equal(s.split(';').filter((x) => x.trim()).length, 1, `${m.version}: one statement per query`);
  }
  const lane = listMigrations().find((m) => m.version === '091_jobs_lane_due_idx')!;
  assert.deepEqual(lane.statements.map((s) => s.split(' ').slice(0, 3).join(' ')), ['drop index concurrently', 'create index concurrently']);
  assert.equal(listMigrations().find((m) => m.version === '089_jobs_lane')!.transactional, true);
});

test('statements split at a semicolon that ends a line; comment lines are dropped', () => {
  assert.deepEqual(splitStatements('-- a comment; not a statement\ndrop index x;\n\ncreate index y\n  on t (a);\n'), ['drop index x;', 'create index y\n  on t (a);']);
});
