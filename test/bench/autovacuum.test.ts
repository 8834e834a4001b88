import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { autovacuumDue, autovacuumPass } from '../../bench/autovacuum';

// The soak does autovacuum's work when the server's is off (this machine's PostgreSQL, for CI): without it a table
// growing during the run keeps its first minute's statistics and the planner picks its indexes from them (dashboard
// Home read every order of the store through the e-mail index in the 60-minute soak of 2026-12-03).

test("autovacuum's default thresholds: vacuum past 50 + 20% dead, analyse past 50 + 10% changed; never analysed counts as empty", () => {
  assert.deepEqual(autovacuumDue({ table: 't', reltuples: 1000, deadTuples: 250, changedSinceAnalyze: 150 }), { vacuum: false, analyze: false });
  assert.deepEqual(autovacuumDue({ table: 't', reltuples: 1000, deadTuples: 251, changedSinceAnalyze: 151 }), { vacuum: true, analyze: true });
  assert.deepEqual(autovacuumDue({ table: 't', reltuples: -1, deadTuples: 0, changedSinceAnalyze: 51 }), { vacuum: false, analyze: true });
});

test('a pass over a database analyses the table that grew, so the planner sees its rows; the next pass finds nothing due', { skip: process.env.TEST_DATABASE_URL ? false : 'PostgreSQL only (TEST_DATABASE_URL)' }, async () => {
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  const name = `commerce_t_av_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  const u = new URL(process.env.TEST_DATABASE_URL!);
  u.pathname = `/${name}`;
  const db = new pg.Client({ connectionString: u.toString() });
  try {
    await db.connect();
    await db.query('create table grown (id int primary key, v text)');
    await db.query("insert into grown select g, 'x' from generate_series(1, 5000) g");
    // A backend's counters reach the statistics views when it flushes them (at most once a second); ask for it now.
    await db.query('select pg_stat_force_next_flush()');
    const before = await db.query<{ reltuples: number }>("select reltuples from pg_class where relname = 'grown'");
    assert.ok(before.rows[0].reltuples <= 0, 'not analysed yet');
    const show = async (name: string) => (await db.query(`show ${name}`)).rows[0][name] as string;
    assert.equal(await show('vacuum_cost_delay'), '0', "a session's VACUUM runs unthrottled");
    const done = await autovacuumPass(db);
    // The pass works under autovacuum's cost-based delay, as the daemon it stands in for would.
    assert.equal(await show('vacuum_cost_delay'), await show('autovacuum_vacuum_cost_delay'));
    assert.notEqual(await show('vacuum_cost_delay'), '0');
    assert.equal(await show('vacuum_cost_limit'), (await show('autovacuum_vacuum_cost_limit')) === '-1' ? '200' : await show('autovacuum_vacuum_cost_limit'));
    assert.deepEqual(done.filter((d) => d.table === 'grown').map((d) => d.did), ['analyze']);
    const after = await db.query<{ reltuples: number }>("select reltuples from pg_class where relname = 'grown'");
    assert.equal(after.rows[0].reltuples, 5000, 'the planner now knows the rows');
    assert.deepEqual(await autovacuumPass(db), [], 'nothing is due right after');
    await db.query('delete from grown where id <= 2000');
    await db.query('select pg_stat_force_next_flush()');
    const again = await autovacuumPass(db);
    assert.deepEqual(again.filter((d) => d.table === 'grown').map((d) => d.did), ['vacuum analyze'], '2,000 dead of 5,000 rows');
  } finally {
    await db.end().catch(() => undefined);
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
});
