import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, createSessionRaw, owner, submitPayForm } from './factory';
import { TEST_CARDS } from '../../src/payments';

// Session creation and product pages read products and settings from a short-lived cache. Here it holds entries
// for a minute, so every change below is seen only because the seller's write emptied the cache.
let t: TestApp;
let s: TestStore;
before(async () => {
  t = await createTestApp({ config: { productCacheMs: 60_000 } });
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const json = () => ({ ...owner(s), 'content-type': 'application/json' });

test('a cached product answers with fewer statements, and archiving it is seen by the very next session', async () => {
  const p = await createProduct(t, s);
  await createSession(t, s.key, { productId: p.id });
  const before = t.deps.database.stats.statements;
  await createSession(t, s.key, { productId: p.id });
  const warm = t.deps.database.stats.statements - before;
  assert.ok(warm <= 2, `a warm session creation sends ${warm} statements (idempotency claim, then session + stored answer)`);
  const arch = await t.app.inject({ method: 'POST', url: `/admin/v1/products/${p.id}/archive`, headers: owner(s) });
  assert.equal(arch.statusCode, 200, arch.body);
  const res = await createSessionRaw(t, s.key, { productId: p.id });
  assert.equal(res.statusCode, 409, res.body);
  assert.equal(res.json().code, 'PRODUCT_ARCHIVED');
});

test('an edited sale window and price are seen at once by sessions and by the product list', async () => {
  const p = await createProduct(t, s, { price: 15_000 });
  await createSession(t, s.key, { productId: p.id });
  const list1 = (await t.app.inject({ url: '/v1/products?limit=100', headers: bearer(s.key) })).json();
  assert.equal(list1.data.find((x: any) => x.id === p.id).pricing.price, 15_000);
  const upd = await t.app.inject({ method: 'PATCH', url: `/admin/v1/products/${p.id}`, headers: json(), payload: { pricing: { price: 9_000 }, saleEndsAt: '2026-10-01T00:00:00Z' } });
  assert.equal(upd.statusCode, 200, upd.body);
  const list2 = (await t.app.inject({ url: '/v1/products?limit=100', headers: bearer(s.key) })).json();
  assert.equal(list2.data.find((x: any) => x.id === p.id).pricing.price, 9_000);
  const res = await createSessionRaw(t, s.key, { productId: p.id });
  assert.equal(res.json().code, 'ENDED');
});

test('a new product appears in the next list page', async () => {
  const before = (await t.app.inject({ url: '/v1/products?limit=100', headers: bearer(s.key) })).json().total;
  await createProduct(t, s, { name: '새 상품' });
  const after = (await t.app.inject({ url: '/v1/products?limit=100', headers: bearer(s.key) })).json().total;
  assert.equal(after, before + 1);
});

test('a return-URL allow-list change is seen by the very next session', async () => {
  const p = await createProduct(t, s);
  await createSession(t, s.key, { productId: p.id, successUrl: 'https://example.com/ok' });
  const put = await t.app.inject({ method: 'PUT', url: '/admin/v1/store/settings/test', headers: json(), payload: { returnUrlDomains: ['localhost'] } });
  assert.equal(put.statusCode, 200, put.body);
  const res = await createSessionRaw(t, s.key, { productId: p.id, successUrl: 'https://example.com/ok' });
  assert.equal(res.json().code, 'RETURN_URL_NOT_ALLOWED');
  await t.app.inject({ method: 'PUT', url: '/admin/v1/store/settings/test', headers: json(), payload: { returnUrlDomains: ['localhost', '127.0.0.1', 'example.com'] } });
});

test('a product with a stock limit is never served from the cache: SOLD_OUT the moment the last unit is sold', async () => {
  const p = await createProduct(t, s, { stock: 1 });
  const session = await createSession(t, s.key, { productId: p.id });
  const paid = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
  assert.ok(paid.statusCode === 303 || paid.statusCode === 200, paid.body);
  const res = await createSessionRaw(t, s.key, { productId: p.id });
  assert.equal(res.json().code, 'SOLD_OUT');
});
