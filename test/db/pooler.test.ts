import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config';
import { openPostgres } from '../../src/db';
import { createTestDatabase } from '../helpers/app';

// Behind PgBouncer in transaction mode (DATABASE_URL → the pooler, DATABASE_DIRECT_URL → PostgreSQL) nothing may
// rely on server-session state over the pool: named prepared statements, LISTEN and the migration lock. The whole
// service through a real PgBouncer is checked by `npm run test:cluster -- --pgbouncer`; these are the settings.

const base = { MASTER_KEY: randomBytes(32).toString('hex') };

test('DATABASE_DIRECT_URL defaults to DATABASE_URL, and prepared statements stay on without a pooler', () => {
  const c = loadConfig({ ...base, DATABASE_URL: 'postgres://db/app' });
  assert.equal(c.databaseDirectUrl, 'postgres://db/app');
  assert.equal(c.databasePreparedStatements, true);
  const embedded = loadConfig({}, { masterKey: randomBytes(32), dataDir: 'memory://' });
  assert.equal(embedded.databaseDirectUrl, null);
});

test('a DATABASE_DIRECT_URL other than DATABASE_URL (a pooler in front) turns named prepared statements off unless set', () => {
  const pooled = { ...base, DATABASE_URL: 'postgres://pgbouncer:6432/app', DATABASE_DIRECT_URL: 'postgres://db:5432/app' };
  assert.equal(loadConfig(pooled).databasePreparedStatements, false);
  assert.equal(loadConfig(pooled).databaseDirectUrl, 'postgres://db:5432/app');
  // PgBouncer 1.21+ tracks prepared statements (max_prepared_statements): the operator may turn them back on.
  assert.equal(loadConfig({ ...pooled, DATABASE_PREPARED_STATEMENTS: 'true' }).databasePreparedStatements, true);
  assert.equal(loadConfig({ ...base, DATABASE_URL: 'postgres://db/app', DATABASE_PREPARED_STATEMENTS: 'off' }).databasePreparedStatements, false);
  assert.throws(() => loadConfig({ ...base, DATABASE_URL: 'postgres://db/app', DATABASE_PREPARED_STATEMENTS: 'maybe' }), /DATABASE_PREPARED_STATEMENTS/);
  assert.throws(() => loadConfig({ DATABASE_DIRECT_URL: 'postgres://db/app' }, { masterKey: randomBytes(32), dataDir: 'memory://' }), /needs DATABASE_URL/);
});

const PG = process.env.TEST_DATABASE_URL;

test('with prepared statements off, parameterized queries leave no named statement in the server session', { skip: PG ? false : 'needs TEST_DATABASE_URL' }, async () => {
  const t = await createTestDatabase();
  const count = sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements where ${1} = 1`;
  try {
    for (const prepared of [true, false]) {
      // One connection, so the second query sees the session the first one used.
      const d = await openPostgres(t.url!, 1, { preparedStatements: prepared });
      try {
        await sql`select ${'x'}::text`.execute(d.db);
        const { rows } = await count.execute(d.db);
        if (prepared) assert.ok(rows[0]!.n >= 1, 'named statements are kept by the session');
        else assert.equal(rows[0]!.n, 0);
      } finally {
        await d.close();
      }
    }
  } finally {
    await t.drop();
  }
});

test('migrations and LISTEN use the direct connection, so they work when the pooled URL is unusable for them', { skip: PG ? false : 'needs TEST_DATABASE_URL' }, async () => {
  const t = await createTestDatabase();
  // A pooled URL that cannot connect at all: migrate and listen must not need it.
  const d = await openPostgres('postgres://nobody@127.0.0.1:1/none', 1, { directUrl: t.url! });
  try {
    assert.deepEqual(await d.migrate(), []);
    const stop = await d.listen('pooler_test', () => {});
    await stop();
  } finally {
    await d.close();
    await t.drop();
  }
});
