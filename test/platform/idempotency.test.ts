import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { platformTestRoutes } from '../helpers/test-routes';
import { HOUR } from '../../src/platform/clock';

let t: TestApp;
let s: TestStore;
const routes = platformTestRoutes();
before(async () => {
  t = await createTestApp({ extraModules: [routes.mod] });
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const echo = (payload: unknown, idem: string | undefined, key = s.key, app = t.app) =>
  app.inject({ method: 'POST', url: '/v1/test/echo', headers: { ...bearer(key), ...(idem === undefined ? {} : { 'idempotency-key': idem }) }, payload: payload as any });

test('missing, blank or over-long Idempotency-Key → 400 VALIDATION_FAILED naming the header', async () => {
  for (const idem of [undefined, '', '   ', 'x'.repeat(256)]) {
    const res = await echo({ value: 'a' }, idem);
    assert.equal(res.statusCode, 400, String(idem));
    assert.equal(res.json().code, 'VALIDATION_FAILED');
    assert.equal(res.json().details.fields[0].field, 'Idempotency-Key');
  }
  assert.equal((await echo({ value: 'a' }, 'x'.repeat(255))).statusCode, 201, '255 characters are accepted');
  assert.equal((await echo({ value: 'a' }, '  padded-key  ')).statusCode, 201, 'surrounding whitespace is trimmed');
});

test('same key and request → the stored answer replayed with Idempotent-Replayed, handler not run again', async () => {
  const before = routes.state.calls;
  const first = await echo({ value: 'hello' }, 'replay-1');
  assert.equal(first.statusCode, 201);
  assert.equal(first.headers['idempotent-replayed'], undefined);
  const second = await echo({ value: 'hello' }, 'replay-1');
  assert.equal(second.statusCode, 201);
  assert.equal(second.headers['idempotent-replayed'], 'true');
  assert.equal(second.body, first.body);
  assert.equal(routes.state.calls, before + 1);
});

test('same key, different body → 409 IDEMPOTENCY_KEY_CONFLICT', async () => {
  await echo({ value: 'one' }, 'conflict-1');
  const res = await echo({ value: 'two' }, 'conflict-1');
  assert.equal(res.statusCode, 409);
  assert.equal(res.json().code, 'IDEMPOTENCY_KEY_CONFLICT');
});

test('keys are scoped by store and mode', async () => {
  const other = await createTestStore(t);
  const live = await s.newKey({ mode: 'live' });
  const a = await echo({ value: 'scoped' }, 'scope-1');
  const b = await echo({ value: 'different' }, 'scope-1', other.key);
  const c = await echo({ value: 'different' }, 'scope-1', live.key);
  assert.equal(a.statusCode, 201);
  assert.equal(b.statusCode, 201);
  assert.equal(b.headers['idempotent-replayed'], undefined);
  assert.equal(c.statusCode, 201);
  assert.equal(c.headers['idempotent-replayed'], undefined);
});

test('business errors are stored and replayed; validation failures and 5xx are not', async () => {
  const sold1 = await echo({ value: 'x', outcome: 'sold_out' }, 'err-1');
  assert.equal(sold1.statusCode, 409);
  const sold2 = await echo({ value: 'x', outcome: 'sold_out' }, 'err-1');
  assert.equal(sold2.headers['idempotent-replayed'], 'true');
  assert.equal(sold2.body, sold1.body);

  const bad1 = await echo({ value: 'x', extra: 1 }, 'err-2');
  assert.equal(bad1.statusCode, 400);
  const bad2 = await echo({ value: 'x', extra: 1 }, 'err-2');
  assert.equal(bad2.headers['idempotent-replayed'], undefined);
  // After a validation failure the same key may carry a corrected request.
  assert.equal((await echo({ value: 'x' }, 'err-2')).statusCode, 201);

  const boom1 = await echo({ value: 'y', outcome: 'server_error' }, 'err-3');
  assert.equal(boom1.statusCode, 500);
  assert.equal(boom1.json().code, 'INTERNAL_ERROR');
  assert.ok(!boom1.body.includes('boom'), 'internal error text never reaches the client');
  const boom2 = await echo({ value: 'y', outcome: 'server_error' }, 'err-3');
  assert.equal(boom2.headers['idempotent-replayed'], undefined);
  assert.equal(boom2.statusCode, 500);
});

test('two concurrent requests with one key: one runs, the other gets IDEMPOTENCY_IN_PROGRESS or the replay', async () => {
  let release!: () => void;
  routes.state.gate = new Promise((r) => (release = r));
  const before = routes.state.calls;
  const p1 = echo({ value: 'race' }, 'race-1');
  // Let the first request claim the key, then send the second while the first is held in its handler.
  while (routes.state.calls === before) await new Promise((r) => setTimeout(r, 5));
  const second = await echo({ value: 'race' }, 'race-1');
  assert.equal(second.statusCode, 409);
  assert.equal(second.json().code, 'IDEMPOTENCY_IN_PROGRESS');
  routes.state.gate = null;
  release();
  const first = await p1;
  assert.equal(first.statusCode, 201);
  const third = await echo({ value: 'race' }, 'race-1');
  assert.equal(third.headers['idempotent-replayed'], 'true');
  assert.equal(routes.state.calls, before + 1);
});

test('two server instances on one database agree on a single owner', async () => {
  const second = await createTestApp({ database: t.deps.database, clock: t.clock, extraModules: [routes.mod] });
  try {
    const before = routes.state.calls;
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => echo({ value: 'multi' }, 'multi-1', s.key, i % 2 ? second.app : t.app)));
    const created = results.filter((r) => r.statusCode === 201);
    const others = results.filter((r) => r.statusCode !== 201);
    assert.equal(routes.state.calls, before + 1, 'the handler ran once');
    for (const r of others) assert.equal(r.json().code, 'IDEMPOTENCY_IN_PROGRESS');
    const bodies = new Set(created.map((r) => r.body));
    assert.equal(bodies.size, 1);
    assert.equal(created.filter((r) => r.headers['idempotent-replayed'] !== 'true').length, 1);
  } finally {
    await second.close();
  }
});

test('keys are kept 24 hours, then purged and usable afresh', async () => {
  await echo({ value: 'old' }, 'purge-1');
  t.clock.advance(24 * HOUR - 1000);
  assert.equal((await echo({ value: 'old' }, 'purge-1')).headers['idempotent-replayed'], 'true');
  t.clock.advance(1000);
  await t.deps.worker.runOnce();
  const row = await t.db.selectFrom('idempotency_keys').selectAll().where('key', '=', 'purge-1').executeTakeFirst();
  assert.equal(row, undefined, 'the purge task removed the expired record');
  const fresh = await echo({ value: 'new body' }, 'purge-1');
  assert.equal(fresh.statusCode, 201);
  assert.equal(fresh.headers['idempotent-replayed'], undefined);
});

test('a request that died mid-flight does not block its key forever', async () => {
  const now = t.clock.now();
  // A 'processing' record as left behind by a request whose process died (same fingerprint as the retry).
  const { fingerprint, keyScopedFingerprint } = await import('../../src/platform/http/idempotency');
  await t.db
    .insertInto('idempotency_keys')
    .values({ store_id: s.storeId, mode: 'test', key: 'stale-1', fingerprint: keyScopedFingerprint(s.keyId, fingerprint('POST', '/v1/test/echo', { value: 'v' })), state: 'processing', created_at: now, locked_until: new Date(now.getTime() + 60_000), expires_at: new Date(now.getTime() + 24 * HOUR) })
    .execute();
  assert.equal((await echo({ value: 'v' }, 'stale-1')).json().code, 'IDEMPOTENCY_IN_PROGRESS');
  t.clock.advance(60_000);
  assert.equal((await echo({ value: 'v' }, 'stale-1')).statusCode, 201);
});

test("a stored answer belongs to its API key: a narrower key replaying a wider key's request gets a conflict, not the session", async () => {
  const product = await createProductVia(s);
  const other = await createProductVia(s, '다른 상품');
  const wide = await s.newKey();
  const narrow = await s.newKey({ productIds: [other.id] });
  const body = { productId: product.id };
  const first = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...bearer(wide.key), 'idempotency-key': 'range-1' }, payload: body });
  assert.equal(first.statusCode, 200, first.body);
  const replayed = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...bearer(narrow.key), 'idempotency-key': 'range-1' }, payload: body });
  assert.equal(replayed.statusCode, 409);
  assert.equal(replayed.json().code, 'IDEMPOTENCY_KEY_CONFLICT');
  assert.equal(replayed.headers['idempotent-replayed'], undefined);
  assert.ok(!replayed.body.includes(first.json().id), "the other key's session is not shown");
  // The key that made it still gets its replay.
  const again = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...bearer(wide.key), 'idempotency-key': 'range-1' }, payload: body });
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.json().id, first.json().id);
});

async function createProductVia(store: TestStore, name = '전자책') {
  const res = await t.app.inject({ method: 'POST', url: '/admin/v1/products', headers: bearer(store.ownerToken), payload: { mode: 'test', type: 'one_time', name, pricing: { price: 15_000 } } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}
