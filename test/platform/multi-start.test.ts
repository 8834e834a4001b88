// @slow: starts three built service processes at the same moment on a fresh PostgreSQL database
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { freePort } from '../helpers/ports';
import pg from 'pg';
import { listMigrations, openPostgres } from '../../src/db';
import { createDemoIfEmpty } from '../../src/demo';
import { loadConfig } from '../../src/config';
import { systemClock } from '../../src/platform/clock';

const BIN = join(process.cwd(), 'bin/commerce.js');
const BASE_URL = process.env.TEST_DATABASE_URL;

/** The same server URL with another database name. */
function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function waitReady(port: number, child: ChildProcess, out: () => string): Promise<number> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`process exited ${child.exitCode}: ${out()}`);
    const res = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => null);
    if (res) return res.status;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`port ${port} never answered: ${out()}`);
}

test('three `start --demo` processes at once on an empty PostgreSQL database: one migration run, one demo store, all ready', { skip: BASE_URL ? false : 'PostgreSQL only: set TEST_DATABASE_URL (PGlite admits one process per data directory)' }, async () => {
  const name = `wt_ops_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = withDatabase(BASE_URL!, name);
  const children: ChildProcess[] = [];
  try {
    const masterKey = randomBytes(32).toString('hex');
    const ports = await Promise.all([freePort(), freePort(), freePort()]);
    const outs = ports.map(() => ({ text: '' }));
    ports.forEach((port, i) => {
      const env: Record<string, string> = { ...(process.env as Record<string, string>), DATABASE_URL: url, MASTER_KEY: masterKey, PORT: String(port), LOG_LEVEL: 'info', LOG_FORMAT: 'json', DRAIN_DELAY_MS: '0' };
      delete env.REDIS_URL;
      const child = spawn(process.execPath, [BIN, 'start', '--demo'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout!.on('data', (d) => (outs[i].text += d));
      child.stderr!.on('data', (d) => (outs[i].text += d));
      children.push(child);
    });
    const statuses = await Promise.all(ports.map((port, i) => waitReady(port, children[i], () => outs[i].text)));
    assert.deepEqual(statuses, [200, 200, 200], 'all three answer /ready');

    const check = new pg.Client({ connectionString: url });
    await check.connect();
    try {
      const rows = (await check.query('select version, count(*)::int as n from schema_migrations group by version order by version')).rows;
      assert.deepEqual(
        rows.map((r) => r.version),
        listMigrations().map((m) => m.version),
        'every migration is recorded',
      );
      assert.ok(rows.every((r) => r.n === 1), 'each applied once');
      const stores = (await check.query('select id, name from stores')).rows;
      assert.equal(stores.length, 1, `one demo store, not one per process: ${JSON.stringify(stores)}`);
    } finally {
      await check.end();
    }
    const applied = outs.filter((o) => /migrations applied: 001_/.test(o.text));
    assert.equal(applied.length, 1, `exactly one process says it applied the migrations:\n${outs.map((o) => o.text.slice(0, 400)).join('\n---\n')}`);
    const banners = outs.filter((o) => o.text.includes('Demo store created'));
    assert.equal(banners.length, 1, 'exactly one process created (and printed) the demo store');
    assert.equal(outs.filter((o) => o.text.includes('created at an earlier start')).length, 2, 'the other two found it');
    // The printed key works on every process: they share the database.
    const key = /test API key : (svc_test_\S+)/.exec(banners[0].text)![1];
    for (const port of ports) {
      const res = await fetch(`http://127.0.0.1:${port}/v1/products`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(res.status, 200);
    }
    const exits = children.map((c) => new Promise<number | null>((r) => c.on('exit', (code) => r(code))));
    for (const c of children) c.kill('SIGTERM');
    assert.deepEqual(await Promise.all(exits), [0, 0, 0], 'all stop cleanly');
  } finally {
    for (const c of children) c.kill('SIGKILL');
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end();
  }
});

test('demo creation asked for by three connections at the same moment makes one store (the check and the creation share a lock)', { skip: BASE_URL ? false : 'PostgreSQL only: set TEST_DATABASE_URL' }, async () => {
  const name = `wt_ops_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = withDatabase(BASE_URL!, name);
  const databases = await Promise.all([1, 2, 3].map(() => openPostgres(url, 3)));
  try {
    await databases[0].migrate();
    const config = loadConfig({ DATABASE_URL: url, MASTER_KEY: randomBytes(32).toString('hex') });
    const results = await Promise.all(databases.map((database) => createDemoIfEmpty({ database, db: database.db, clock: systemClock, config })));
    assert.equal(results.filter((r) => r !== null).length, 1, 'one caller created it, the others found a store');
    const stores = await databases[0].db.selectFrom('stores').select('id').execute();
    assert.equal(stores.length, 1);
  } finally {
    await Promise.all(databases.map((d) => d.close()));
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end();
  }
});
