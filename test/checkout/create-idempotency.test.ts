// Session creation claims its Idempotency-Key in the statement that writes the session (claimInWrite). These tests hold
// it to the same answers every other idempotent route gives, and to its one round trip.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, owner } from './factory';

let t: TestApp;
let s: TestStore;
let product: any;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  product = await createProduct(t, s);
});
after(async () => {
  await t.close();
});

const create = (key: string, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(s.key, key), payload });
const sessionsWithKey = async (key: string) =>
  (await t.db.selectFrom('idempotency_keys').selectAll().where('store_id', '=', s.storeId).where('key', '=', key).execute()).length;
const sessionCount = async () => Number((await t.db.selectFrom('checkout_sessions').select((eb) => eb.fn.countAll().as('n')).where('store_id', '=', s.storeId).executeTakeFirstOrThrow()).n);

test('a new key creates the session and stores its answer in one statement (once the product and settings are cached)', async () => {
  await create('warm-caches', { productId: product.id });
  const before = t.deps.database.stats.statements;
  const res = await create('one-statement', { productId: product.id, metadata: { a: 'b' } });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(t.deps.database.stats.statements - before, 1);
  const stored = await t.db.selectFrom('idempotency_keys').selectAll().where('store_id', '=', s.storeId).where('key', '=', 'one-statement').executeTakeFirstOrThrow();
  assert.equal(stored.state, 'done');
  assert.equal(stored.response_status, 200);
  assert.equal(stored.response_body, res.body);
  const row = await t.db.selectFrom('checkout_sessions').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
  assert.deepEqual(row.metadata, { a: 'b' });
  assert.equal(row.amount, 15_000);
  assert.equal(row.status, 'open');
});

test('the same key and body replays the stored session; no second session is written', async () => {
  const n = await sessionCount();
  const a = await create('replay-1', { productId: product.id });
  const b = await create('replay-1', { productId: product.id });
  assert.equal(b.statusCode, 200);
  assert.equal(b.headers['idempotent-replayed'], 'true');
  assert.equal(b.body, a.body);
  assert.equal(await sessionCount(), n + 1);
});

test('the same key with another body answers IDEMPOTENCY_KEY_CONFLICT, before the body is even validated', async () => {
  await create('conflict-1', { productId: product.id });
  const other = await create('conflict-1', { productId: product.id, metadata: { x: 'y' } });
  assert.equal(other.statusCode, 409);
  assert.equal(other.json().code, 'IDEMPOTENCY_KEY_CONFLICT');
  const invalid = await create('conflict-1', { productId: product.id, unknownField: 1 });
  assert.equal(invalid.statusCode, 409);
  assert.equal(invalid.json().code, 'IDEMPOTENCY_KEY_CONFLICT');
});

test('a refusal is stored and replayed; a stored success is replayed even after the product was archived', async () => {
  const p = await createProduct(t, s);
  const ok = await create('archived-later', { productId: p.id });
  assert.equal(ok.statusCode, 200);
  await t.app.inject({ method: 'POST', url: `/admin/v1/products/${p.id}/archive`, headers: owner(s) });
  const again = await create('archived-later', { productId: p.id });
  assert.equal(again.statusCode, 200);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.body, ok.body);

  const refused = await create('refused-1', { productId: p.id });
  assert.equal(refused.statusCode, 409);
  assert.equal(refused.json().code, 'PRODUCT_ARCHIVED');
  assert.equal(await sessionsWithKey('refused-1'), 1, 'the refusal is stored under its key');
  const replay = await create('refused-1', { productId: p.id });
  assert.equal(replay.headers['idempotent-replayed'], 'true');
  assert.equal(replay.body, refused.body);
});

test('a validation failure is not stored: the key can carry the corrected request', async () => {
  const bad = await create('fix-me', { productId: product.id, planId: 'basic' });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().code, 'VALIDATION_FAILED');
  assert.equal(await sessionsWithKey('fix-me'), 0);
  const good = await create('fix-me', { productId: product.id });
  assert.equal(good.statusCode, 200);
  assert.equal(good.headers['idempotent-replayed'], undefined);
});

test('an expired stored answer is not replayed: the key creates a new session', async () => {
  const first = await create('expires-1', { productId: product.id });
  t.clock.advance(25 * 3_600_000);
  const second = await create('expires-1', { productId: product.id });
  assert.equal(second.statusCode, 200);
  assert.equal(second.headers['idempotent-replayed'], undefined);
  assert.notEqual(second.json().id, first.json().id);
});

test('ten concurrent requests with one key write one session; every answer is that session or IN_PROGRESS', async () => {
  const n = await sessionCount();
  const results = await Promise.all(Array.from({ length: 10 }, () => create('race-create', { productId: product.id })));
  const ids = new Set<string>();
  for (const r of results) {
    if (r.statusCode === 200) ids.add(r.json().id);
    else assert.equal(r.json().code, 'IDEMPOTENCY_IN_PROGRESS');
  }
  assert.equal(ids.size, 1);
  assert.equal(await sessionCount(), n + 1);
});
