import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestDatabase, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { openPostgres, type Database } from '../../src/db';
import { changeFeed } from '../../src/platform/changes';

// API key rows are cached in each process for a while (here: a minute, so only an invalidation can drop them) and
// rotation or revocation drops them at once: in the process that made the change and, through the database's
// notifications, in every other process on the same database.

const LONG = { apiKeyCacheMs: 60_000 };
let t: TestApp;
let s: TestStore;
before(async () => {
  t = await createTestApp({ config: LONG });
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const owner = () => ({ authorization: `Bearer ${s.ownerToken}` });

test('a known key is authenticated from memory: repeated calls send fewer statements than the first', async () => {
  const { key } = await s.newKey();
  const stats = t.deps.database.stats;
  let before = stats.statements;
  assert.equal((await t.app.inject({ url: '/v1/products', headers: bearer(key) })).statusCode, 200);
  const first = stats.statements - before;
  before = stats.statements;
  assert.equal((await t.app.inject({ url: '/v1/products', headers: bearer(key) })).statusCode, 200);
  const second = stats.statements - before;
  assert.ok(second < first, `second call ${second} statements, first ${first}`);
});

test('revoking a cached key refuses its very next request in the same process', async () => {
  const { key, id } = await s.newKey();
  assert.equal((await t.app.inject({ url: '/v1/products', headers: bearer(key) })).statusCode, 200);
  const rev = await t.app.inject({ method: 'POST', url: `/admin/v1/api-keys/${id}/revoke`, headers: owner() });
  assert.equal(rev.statusCode, 200, rev.body);
  const res = await t.app.inject({ url: '/v1/products', headers: bearer(key) });
  assert.equal(res.statusCode, 401);
  assert.equal(res.json().code, 'API_KEY_INVALID');
});

test('rotating a cached key with no grace refuses the old key at once and accepts the new one', async () => {
  const { key, id } = await s.newKey();
  assert.equal((await t.app.inject({ url: '/v1/products', headers: bearer(key) })).statusCode, 200);
  const rot = await t.app.inject({ method: 'POST', url: `/admin/v1/api-keys/${id}/rotate`, headers: { ...owner(), 'content-type': 'application/json' }, payload: { graceHours: 0 } });
  assert.equal(rot.statusCode, 200, rot.body);
  assert.equal((await t.app.inject({ url: '/v1/products', headers: bearer(key) })).statusCode, 401);
  assert.equal((await t.app.inject({ url: '/v1/products', headers: bearer(rot.json().secret) })).statusCode, 200);
});

test('a revocation made by another process reaches this one through the database (PostgreSQL)', async (ctx) => {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    ctx.skip('needs two processes on one database: runs on the PostgreSQL pass (the embedded database admits one process)');
    return;
  }
  // Two "processes": two pools and two listeners on the same database, each app with its own cache.
  const shared = await createTestDatabase();
  const a = await createTestApp({ database: shared, config: LONG });
  const other: Database = await openPostgres(shared.url!, 4);
  // Processes of one deployment share the master key.
  (other as any).testMasterKey = (shared as any).testMasterKey;
  const b = await createTestApp({ database: other, config: LONG });
  try {
    const store = await createTestStore(a);
    const { key, id } = await store.newKey();
    await changeFeed(other).ready();
    assert.equal((await b.app.inject({ url: '/v1/products', headers: bearer(key) })).statusCode, 200, 'b has the key cached');
    const rev = await a.app.inject({ method: 'POST', url: `/admin/v1/api-keys/${id}/revoke`, headers: { authorization: `Bearer ${store.ownerToken}` } });
    assert.equal(rev.statusCode, 200);
    // The notification arrives within moments; the cache would otherwise hold the row for a minute.
    const deadline = Date.now() + 10_000;
    let status = 200;
    while (Date.now() < deadline) {
      status = (await b.app.inject({ url: '/v1/products', headers: bearer(key) })).statusCode;
      if (status === 401) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(status, 401, 'the other process refuses the revoked key');
  } finally {
    await b.close();
    await other.close();
    await a.close();
    await shared.drop();
  }
});

