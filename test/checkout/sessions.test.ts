import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, createSessionRaw, createSubscriptionProduct, owner, payPath, submitPayForm } from './factory';
import { TEST_CARDS } from '../../src/payments';

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

async function expectError(body: Record<string, unknown>, status: number, code: string, key = s.key) {
  const res = await createSessionRaw(t, key, body);
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.json().code, code);
  return res.json();
}

test('a created session has every contract field, null where empty, and a payment-page url', async () => {
  const res = await createSessionRaw(t, s.key, { productId: product.id });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['cancelUrl', 'createdAt', 'customer', 'expiresAt', 'id', 'metadata', 'mode', 'orderId', 'productId', 'status', 'successUrl', 'url'].sort());
  assert.match(body.id, /^cs_[0-9a-z]{26}$/);
  assert.equal(body.mode, 'test');
  assert.equal(body.productId, product.id);
  assert.equal(body.status, 'open');
  assert.equal(body.orderId, null);
  assert.deepEqual(body.customer, { name: null, email: null, phone: null });
  assert.equal(body.metadata, null);
  assert.equal(body.successUrl, null);
  assert.equal(body.cancelUrl, null);
  assert.equal(new Date(body.expiresAt).getTime() - new Date(body.createdAt).getTime(), 30 * 60_000);
  assert.equal(body.url, `http://localhost:3000/pay/${body.id}`);
});

test('customer, metadata and return URLs are kept as given and read back by GET', async () => {
  const created = await createSession(t, s.key, {
    productId: product.id,
    customer: { name: '홍길동', email: 'hong@example.com', phone: '010-0000-0000' },
    metadata: { userId: 'u_42', campaign: '가을' },
    successUrl: 'https://shop.example.com/done?ref=abc',
    cancelUrl: 'http://localhost:8080/cart',
  });
  const res = await t.app.inject({ url: `/v1/checkout/sessions/${created.id}`, headers: bearer(s.key) });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), created);
  assert.deepEqual(created.customer, { name: '홍길동', email: 'hong@example.com', phone: '010-0000-0000' });
  assert.deepEqual(created.metadata, { userId: 'u_42', campaign: '가을' });
  assert.equal(created.successUrl, 'https://shop.example.com/done?ref=abc');
});

test('the same Idempotency-Key replays the same session instead of creating another', async () => {
  const headers = post(s.key, 'idem-create-session-1');
  const a = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers, payload: { productId: product.id } });
  const b = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers, payload: { productId: product.id } });
  assert.equal(a.json().id, b.json().id);
  assert.equal(b.headers['idempotent-replayed'], 'true');
});

test('PRODUCT_NOT_FOUND: unknown product, another mode, or outside the key product range', async () => {
  await expectError({ productId: 'prod_nope' }, 404, 'PRODUCT_NOT_FOUND');
  const live = await createProduct(t, s, { mode: 'live' });
  await expectError({ productId: live.id }, 404, 'PRODUCT_NOT_FOUND');
  const narrow = await s.newKey({ productIds: ['prod_other'] });
  await expectError({ productId: product.id }, 404, 'PRODUCT_NOT_FOUND', narrow.key);
});

test('PRODUCT_ARCHIVED for an archived product', async () => {
  const p = await createProduct(t, s);
  await t.app.inject({ method: 'POST', url: `/admin/v1/products/${p.id}/archive`, headers: owner(s) });
  await expectError({ productId: p.id }, 409, 'PRODUCT_ARCHIVED');
});

test('NOT_STARTED before the sale window opens, and a session is possible from its start', async () => {
  const start = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
  const p = await createProduct(t, s, { saleStartsAt: start });
  await expectError({ productId: p.id }, 409, 'NOT_STARTED');
  t.clock.advance(3_600_000);
  try {
    assert.equal((await createSessionRaw(t, s.key, { productId: p.id })).statusCode, 200);
  } finally {
    t.clock.advance(-3_600_000);
  }
});

test('ENDED once the sale window has closed', async () => {
  const end = new Date(t.clock.now().getTime() - 1).toISOString();
  const p = await createProduct(t, s, { saleEndsAt: end });
  await expectError({ productId: p.id }, 409, 'ENDED');
});

test('SOLD_OUT when every unit is sold', async () => {
  const p = await createProduct(t, s, { stock: 0 });
  await expectError({ productId: p.id }, 409, 'SOLD_OUT');
  const one = await createProduct(t, s, { stock: 1 });
  const session = await createSession(t, s.key, { productId: one.id });
  const paid = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
  assert.equal(paid.statusCode, 200);
  await expectError({ productId: one.id }, 409, 'SOLD_OUT');
});

test('CHECKOUT_URL_INVALID for relative, non-http(s) or credentialed URLs', async () => {
  for (const url of ['/done', 'ftp://example.com/x', 'javascript:alert(1)', 'https://user:pw@example.com/', 'not a url', '']) {
    const body = await expectError({ productId: product.id, successUrl: url }, 400, 'CHECKOUT_URL_INVALID');
    assert.equal(body.details.field, 'successUrl');
  }
  const body = await expectError({ productId: product.id, cancelUrl: 'mailto:a@example.com' }, 400, 'CHECKOUT_URL_INVALID');
  assert.equal(body.details.field, 'cancelUrl');
});

test('RETURN_URL_NOT_ALLOWED unless the host is an allow-listed domain or its subdomain', async () => {
  await expectError({ productId: product.id, successUrl: 'https://evil.test/done' }, 400, 'RETURN_URL_NOT_ALLOWED');
  await expectError({ productId: product.id, successUrl: 'https://example.com.evil.test/' }, 400, 'RETURN_URL_NOT_ALLOWED');
  await expectError({ productId: product.id, cancelUrl: 'https://notexample.com/' }, 400, 'RETURN_URL_NOT_ALLOWED');
  for (const ok of ['https://example.com/a', 'https://pay.shop.example.com/a', 'http://localhost:5173/x', 'http://127.0.0.1/x']) {
    assert.equal((await createSessionRaw(t, s.key, { productId: product.id, successUrl: ok })).statusCode, 200, ok);
  }
});

test('METADATA_INVALID for anything but a flat string map within the limits', async () => {
  const cases: unknown[] = [
    { nested: { a: 'b' } },
    { n: 1 },
    { b: true },
    { x: null },
    ['a'],
    'text',
    Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])),
    { ['k'.repeat(41)]: 'v' },
    { '': 'v' },
    { k: 'v'.repeat(501) },
  ];
  for (const metadata of cases) await expectError({ productId: product.id, metadata }, 400, 'METADATA_INVALID');
  const edge = { ...Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v'])), ['k'.repeat(40)]: 'v'.repeat(500) };
  assert.equal((await createSessionRaw(t, s.key, { productId: product.id, metadata: edge })).statusCode, 200);
  assert.equal((await createSessionRaw(t, s.key, { productId: product.id, metadata: null })).json().metadata, null);
});

test('PUBLIC_CONTACT_VERIFICATION_REQUIRED gates live sessions only: an unverified store sells in test mode, not in live', async () => {
  const unverified = await createTestStore(t, { verified: false });
  // Test mode moves no money: a new store tries its checkout before the operator has verified anything.
  const p = await createProduct(t, unverified);
  const test = await createSessionRaw(t, unverified.key, { productId: p.id });
  assert.equal(test.statusCode, 200, test.body);
  const live = await unverified.newKey({ mode: 'live' });
  const lp = await createProduct(t, unverified, { mode: 'live' });
  await expectError({ productId: lp.id }, 409, 'PUBLIC_CONTACT_VERIFICATION_REQUIRED', live.key);
});

test('CHECKOUT_NOT_CONFIGURED when the mode has no payment provider (live without Toss keys)', async () => {
  const live = await s.newKey({ mode: 'live' });
  const p = await createProduct(t, s, { mode: 'live' });
  await expectError({ productId: p.id }, 500, 'CHECKOUT_NOT_CONFIGURED', live.key);
  // A 5xx is not stored: fixing the setup and retrying with the same key works.
});

test('subscriptions need planId and interval together; one-time products refuse them (VALIDATION_FAILED)', async () => {
  const sub = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: null }] });
  const field = async (body: Record<string, unknown>) => {
    const r = await expectError(body, 400, 'VALIDATION_FAILED');
    return r.details.fields[0].field;
  };
  assert.equal(await field({ productId: sub.id }), 'planId');
  assert.equal(await field({ productId: sub.id, planId: 'basic' }), 'interval');
  assert.equal(await field({ productId: sub.id, interval: 'monthly' }), 'planId');
  assert.equal(await field({ productId: sub.id, planId: 'gold', interval: 'monthly' }), 'planId');
  assert.equal(await field({ productId: sub.id, planId: 'basic', interval: 'yearly' }), 'interval');
  assert.equal(await field({ productId: product.id, planId: 'basic', interval: 'monthly' }), 'planId');
  assert.equal(await field({ productId: product.id, interval: 'monthly' }), 'interval');
  assert.equal(await field({ productId: product.id, sort: 'x' }), 'sort');
  assert.equal((await createSessionRaw(t, s.key, { productId: sub.id, planId: 'basic', interval: 'monthly' })).statusCode, 200);
});

test('checks run in the documented order: the first failing one answers', async () => {
  const archived = await createProduct(t, s);
  await t.app.inject({ method: 'POST', url: `/admin/v1/products/${archived.id}/archive`, headers: owner(s) });
  // metadata before URLs before the product
  await expectError({ productId: 'prod_nope', metadata: { a: 1 }, successUrl: 'ftp://x' }, 400, 'METADATA_INVALID');
  await expectError({ productId: 'prod_nope', successUrl: 'ftp://x' }, 400, 'CHECKOUT_URL_INVALID');
  // product state before the return-URL allow-list and the store's setup
  await expectError({ productId: archived.id, successUrl: 'https://evil.test/' }, 409, 'PRODUCT_ARCHIVED');
  const unverified = await createTestStore(t, { verified: false });
  const soldOut = await createProduct(t, unverified, { stock: 0 });
  await expectError({ productId: soldOut.id }, 409, 'SOLD_OUT', unverified.key);
  const p = await createProduct(t, unverified);
  await expectError({ productId: p.id, successUrl: 'https://evil.test/' }, 400, 'RETURN_URL_NOT_ALLOWED', unverified.key);
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  const description: string = doc.paths['/v1/checkout/sessions'].post.description;
  const order = ['METADATA_INVALID', 'CHECKOUT_URL_INVALID', 'PRODUCT_NOT_FOUND', 'PRODUCT_ARCHIVED', 'NOT_STARTED', 'ENDED', 'SOLD_OUT', 'RETURN_URL_NOT_ALLOWED', 'PUBLIC_CONTACT_VERIFICATION_REQUIRED', 'CHECKOUT_NOT_CONFIGURED'];
  const positions = order.map((c) => description.indexOf(`\`${c}\`:`));
  assert.ok(positions.every((p) => p >= 0), 'every check is documented');
  assert.deepEqual([...positions].sort((a, b) => a - b), positions, 'documented in the order the code runs them');
});

test('a session expires 30 minutes after creation: GET says expired and the page refuses payment', async () => {
  const session = await createSession(t, s.key, { productId: product.id });
  t.clock.advance(30 * 60_000 - 1);
  assert.equal((await t.app.inject({ url: `/v1/checkout/sessions/${session.id}`, headers: bearer(s.key) })).json().status, 'open');
  t.clock.advance(1);
  try {
    assert.equal((await t.app.inject({ url: `/v1/checkout/sessions/${session.id}`, headers: bearer(s.key) })).json().status, 'expired');
    assert.equal((await t.app.inject({ url: payPath(session) })).statusCode, 410);
    const pay = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.equal(pay.statusCode, 410);
    assert.match(pay.body, /만료/);
    const orders = await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', session.id).execute();
    assert.equal(orders.length, 0);
  } finally {
    t.clock.advance(-30 * 60_000);
  }
});

test('GET answers CHECKOUT_SESSION_NOT_FOUND for unknown ids, other stores, other modes and products outside the key range', async () => {
  const session = await createSession(t, s.key, { productId: product.id });
  const get = (key: string, id = session.id) => t.app.inject({ url: `/v1/checkout/sessions/${id}`, headers: bearer(key) });
  assert.equal((await get(s.key, 'cs_00000000000000000000000000')).json().code, 'CHECKOUT_SESSION_NOT_FOUND');
  const other = await createTestStore(t);
  assert.equal((await get(other.key)).statusCode, 404);
  assert.equal((await get((await s.newKey({ mode: 'live' })).key)).statusCode, 404);
  assert.equal((await get((await s.newKey({ productIds: ['prod_other'] })).key)).statusCode, 404);
  assert.equal((await get((await s.newKey({ productIds: [product.id] })).key)).statusCode, 200);
});

test('scopes: creating needs checkout:write and reading needs checkout:read', async () => {
  const readOnly = await s.newKey({ scopes: ['checkout:read'] });
  const res = await createSessionRaw(t, readOnly.key, { productId: product.id });
  assert.equal(res.statusCode, 403);
  assert.deepEqual(res.json().details.required, ['checkout:write']);
  const writeOnly = await s.newKey({ scopes: ['checkout:write'] });
  const created = await createSession(t, writeOnly.key, { productId: product.id });
  const get = await t.app.inject({ url: `/v1/checkout/sessions/${created.id}`, headers: bearer(writeOnly.key) });
  assert.equal(get.statusCode, 403);
});

test('the JSON API does not take form bodies (the form parser belongs to the payment pages only)', async () => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/checkout/sessions',
    headers: { ...post(s.key), 'content-type': 'application/x-www-form-urlencoded' },
    payload: `productId=${product.id}`,
  });
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().code, 'VALIDATION_FAILED');
  assert.equal(res.json().details.fields[0].field, 'Content-Type');
});
