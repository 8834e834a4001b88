import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config';
import { buildApp } from '../../src/app';
import { Worker } from '../../src/jobs/worker';
import { ManualClock } from '../../src/platform/clock';
import type { App, AppDeps, Module } from '../../src/deps';
import { createTestDatabase } from '../helpers/app';

const EMAIL = 'kim.buyer+secret@example.com';
const PHONE = '010-9876-5432';

let app: App;
let deps: AppDeps;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
const lines: string[] = [];

// Routes that run failing queries carrying buyer data as parameters, the way a repo function would.
const probe: Module = async (scope, d) => {
  scope.get('/probe/insert', async () => {
    await sql`insert into log_probe (email, phone) values (${EMAIL}, ${PHONE})`.execute(d.db);
    return {};
  });
  scope.get('/probe/transaction', async () => {
    await d.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      await sql`insert into log_probe (email, phone) values (${EMAIL}, ${PHONE})`.execute(trx);
    });
    return {};
  });
  scope.get('/probe/unique', async () => {
    await sql`insert into log_probe_unique (email) values (${EMAIL})`.execute(d.db);
    await sql`insert into log_probe_unique (email) values (${EMAIL})`.execute(d.db);
    return {};
  });
};

before(async () => {
  database = await createTestDatabase();
  await sql`create table log_probe (email text not null, phone text not null, constraint log_probe_no_email check (email not like '%@%'))`.execute(database.db);
  await sql`create table log_probe_unique (email text primary key)`.execute(database.db);
  const config = loadConfig(
    { ...process.env, DATABASE_URL: '', REDIS_URL: '' },
    { dataDir: 'memory://', masterKey: randomBytes(32), runWorkers: false, publicBaseUrl: 'http://localhost:3000' },
  );
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const log = pino({ level: 'info' }, stream);
  const clock = new ManualClock();
  deps = { config, database, db: database.db, clock, redis: null, log: log as any, worker: new Worker(database.db, clock, log as any) };
  app = await buildApp(deps, { extraModules: [probe] });
});

after(async () => {
  await app.close();
  await database.drop();
});

for (const path of ['/probe/insert', '/probe/transaction', '/probe/unique']) {
  test(`a failing query's buyer data never reaches the logs (${path}, ${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, async () => {
    lines.length = 0;
    const res = await app.inject({ url: path });
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().code, 'INTERNAL_ERROR');
    const logged = lines.join('');
    // The failure itself is logged, with what debugging needs (the SQLSTATE code and the constraint).
    assert.match(logged, /request failed/);
    assert.match(logged, /"code":"(23514|23505)"/);
    assert.match(logged, /log_probe/);
    assert.ok(!logged.includes(EMAIL), `the e-mail is not logged: ${logged}`);
    assert.ok(!logged.includes('kim.buyer'), 'not even part of it');
    assert.ok(!logged.includes(PHONE), 'the phone number is not logged');
    assert.ok(!res.body.includes(EMAIL), 'nor answered');
  });
}

test('errors thrown by the database carry no parameters and no row values', async () => {
  const err: any = await sql`insert into log_probe (email, phone) values (${EMAIL}, ${PHONE})`.execute(deps.db).then(
    () => assert.fail('the insert must fail'),
    (e: unknown) => e,
  );
  assert.equal(err.code, '23514');
  assert.equal(err.params, undefined);
  assert.equal(err.parameters, undefined);
  assert.ok(!JSON.stringify(err).includes(EMAIL), JSON.stringify(err));
  assert.ok(!String(err.detail ?? '').includes(EMAIL));

  // A value in the wrong type is quoted in the message itself.
  const cast: any = await sql`select ${EMAIL}::int as n`.execute(deps.db).then(
    () => assert.fail('the cast must fail'),
    (e: unknown) => e,
  );
  assert.equal(cast.code, '22P02');
  assert.match(cast.message, /^invalid input syntax for type integer/);
  assert.ok(!cast.message.includes(EMAIL), cast.message);
  assert.ok(!String(cast.stack).includes(EMAIL), cast.stack);
  assert.ok(!JSON.stringify(cast).includes(EMAIL));
});
