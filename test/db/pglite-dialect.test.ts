import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { PGliteDialect, toPgText } from '../../src/db/pglite-dialect';

// The embedded database's driver sends each statement as one message (Parse only the first time a shape is seen,
// then Bind/Describe/Execute/Sync) with parameters as text the way node-postgres writes them on PostgreSQL.

// Each test starts from the runner's migrated template when there is one (TEST_PGLITE_TEMPLATE): PGlite's initdb costs
// seconds of CPU a database, loading the copy a fraction. The tests' own tables (v, p, q, r, s, w) are not the service's.
let template: Blob | undefined;
// Every database a test opened is closed at the end: an open PGlite keeps the process alive.
const opened: PGlite[] = [];
after(async () => {
  for (const pg of opened) if (!pg.closed) await pg.close();
});
async function open() {
  const file = process.env.TEST_PGLITE_TEMPLATE;
  if (file) template ??= new Blob([readFileSync(file)]);
  const pg = new PGlite('memory://', { ...(template ? { loadDataDir: template } : {}), parsers: { 20: (v: string) => Number(v), 1700: (v: string) => Number(v) } });
  opened.push(pg);
  let statements = 0;
  const db = new Kysely<any>({ dialect: new PGliteDialect(pg, () => statements++) });
  return { pg, db, count: () => statements };
}

test('parameters arrive as PostgreSQL reads them: quotes, backslashes and NULL in arrays, bytes, dates, JSON, booleans, big numbers', async () => {
  const { db } = await open();
  await sql`create table v (id int primary key, t text, arr text[], b bytea, at timestamptz, doc jsonb, flag boolean, n bigint, amount numeric)`.execute(db);
  const at = new Date('2026-11-27T03:04:05.678Z');
  const arr = ['plain', 'with "quotes"', 'back\\slash', null, '쉼표, 한글', '{braces}'];
  const bytes = Buffer.from([0, 1, 2, 254, 255]);
  const doc = { name: '김구매', nested: { list: [1, 'two', null] }, quote: 'a"b\\c' };
  await db
    .insertInto('v')
    .values({ id: 1, t: "it's", arr, b: bytes, at, doc: JSON.stringify(doc), flag: true, n: 9007199254740991, amount: '12000.50' })
    .execute();
  const row = await db.selectFrom('v').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  assert.equal(row.t, "it's");
  assert.deepEqual(row.arr, arr);
  assert.deepEqual(Buffer.from(row.b), bytes);
  assert.equal(row.at.toISOString(), at.toISOString());
  assert.deepEqual(row.doc, doc);
  assert.equal(row.flag, true);
  assert.equal(row.n, 9007199254740991);
  assert.equal(row.amount, 12000.5);
  // A JS object bound where jsonb is expected is sent as JSON (node-postgres does the same).
  await db.insertInto('v').values({ id: 2, doc: { a: [1, 2] } as any, flag: false }).execute();
  const two = await db.selectFrom('v').select(['doc', 'flag', 't']).where('id', '=', 2).executeTakeFirstOrThrow();
  assert.deepEqual(two, { doc: { a: [1, 2] }, flag: false, t: null });
  // The text forms themselves, as node-postgres's prepareValue writes them.
  assert.equal(toPgText(null), null);
  assert.equal(toPgText(undefined), null);
  assert.equal(toPgText(Buffer.from([10, 255])), '\\x0aff');
  assert.equal(toPgText(['a"b', null, 'c\\d']), '{"a\\"b",NULL,"c\\\\d"}');
  assert.equal(toPgText(10n), '10');
  assert.equal(toPgText({ big: 10n }), '{"big":"10"}');
});

test('a statement shape is parsed once and then only bound: one prepared statement per shape, the same answers', async () => {
  const { db, pg, count } = await open();
  await sql`create table p (id int primary key, name text)`.execute(db);
  for (let i = 0; i < 5; i++) await db.insertInto('p').values({ id: i, name: `n${i}` }).execute();
  const names = [] as string[];
  for (let i = 0; i < 5; i++) names.push((await db.selectFrom('p').select('name').where('id', '=', i).executeTakeFirstOrThrow()).name);
  assert.deepEqual(names, ['n0', 'n1', 'n2', 'n3', 'n4']);
  assert.equal(count(), 11);
  const prepared = await pg.query<{ statement: string }>('select statement from pg_prepared_statements order by statement');
  // Two shapes (the insert and the select), each prepared once, however often it ran.
  assert.equal(prepared.rows.length, 2, JSON.stringify(prepared.rows));
  assert.ok(prepared.rows.some((r) => /^insert into "p"/.test(r.statement)));
  assert.ok(prepared.rows.some((r) => /^select "name" from "p"/.test(r.statement)));
});

test('a prepared shape the database lost (DEALLOCATE ALL) or whose result changed (ALTER TABLE) is parsed again, not failed', async () => {
  const { db, pg } = await open();
  await sql`create table q (id int primary key, name text)`.execute(db);
  await db.insertInto('q').values({ id: 1, name: 'one' }).execute();
  const read = () => db.selectFrom('q').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  assert.deepEqual(await read(), { id: 1, name: 'one' });
  await pg.exec('deallocate all');
  assert.deepEqual(await read(), { id: 1, name: 'one' });
  // `select *` prepared before the column was added: PostgreSQL refuses the old plan ("cached plan must not change
  // result type"); the driver parses the shape again and the new column is in the answer.
  await pg.exec(`alter table q add column note text default 'x'`);
  assert.deepEqual(await read(), { id: 1, name: 'one', note: 'x' });
});

test('a failing statement rejects with the database error (code, SQL, no values) and the next statements and transactions work', async () => {
  const { db } = await open();
  await sql`create table r (id int primary key, email text not null)`.execute(db);
  await db.insertInto('r').values({ id: 1, email: 'buyer@example.com' }).execute();
  await assert.rejects(
    () => db.insertInto('r').values({ id: 1, email: 'secret@example.com' }).execute(),
    (e: any) => e.code === '23505' && /insert into "r"/.test(e.query) && !JSON.stringify({ ...e, message: e.message }).includes('secret@example.com'),
  );
  // A syntax error in a new shape is not remembered as prepared.
  await assert.rejects(() => sql`selec ${1}`.execute(db), (e: any) => e.code === '42601');
  await assert.rejects(() => sql`selec ${1}`.execute(db), (e: any) => e.code === '42601');
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await trx.insertInto('r').values({ id: 2, email: 'two@example.com' }).execute();
      await trx.insertInto('r').values({ id: 1, email: 'dup@example.com' }).execute();
    }),
    (e: any) => e.code === '23505',
  );
  const rows = await db.selectFrom('r').select('id').orderBy('id').execute();
  assert.deepEqual(rows, [{ id: 1 }]);
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('r').values({ id: 3, email: 'three@example.com' }).execute();
  });
  assert.equal((await db.selectFrom('r').select('id').execute()).length, 2);
});

test('a statement on the root db inside a transaction (it would wait on itself) fails after 30 s of waiting instead of hanging', { timeout: 120_000 }, async (t) => {
  const { db } = await open();
  await sql`create table w (id int primary key)`.execute(db);
  t.mock.timers.enable({ apis: ['setInterval', 'Date'] });
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('w').values({ id: 1 }).execute();
    const state: { settled: unknown } = { settled: 'pending' };
    const waiting = db
      .selectFrom('w')
      .selectAll()
      .execute()
      .then(
        () => (state.settled = 'answered'),
        (e: Error) => (state.settled = e),
      );
    t.mock.timers.tick(29_000);
    await new Promise((r) => setImmediate(r));
    assert.equal(String(state.settled), 'pending');
    t.mock.timers.tick(2_000);
    await waiting;
    const { settled } = state;
    assert.ok(settled instanceof Error && /wait exceeded 30s/.test(settled.message), String(settled));
  });
  t.mock.timers.reset();
  // The connection is free again afterwards.
  assert.deepEqual(await db.selectFrom('w').selectAll().execute(), [{ id: 1 }]);
});

test('inside a transaction a stale prepared shape fails with its own error, and the next use parses it again', async () => {
  const { db, pg } = await open();
  await sql`create table s (id int primary key, name text)`.execute(db);
  await db.insertInto('s').values({ id: 1, name: 'one' }).execute();
  const read = (q: typeof db) => q.selectFrom('s').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  await read(db);
  await pg.exec('deallocate all');
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await read(trx);
    }),
    (e: any) => e.code === '26000',
  );
  assert.deepEqual(await db.transaction().execute((trx) => read(trx)), { id: 1, name: 'one' });
});
