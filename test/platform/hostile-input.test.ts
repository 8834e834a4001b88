import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { createTestApp, createTestStore, bearer, post, TEST_ADMIN_TOKEN, type TestApp, type TestStore } from '../helpers/app';
import { createCoupon, createProduct, owner } from '../checkout/factory';
import { fingerprint } from '../../src/platform/http/idempotency';
import { depthExceeds, jsonTextDepthExceeds, MAX_JSON_DEPTH } from '../../src/platform/http/validation';

/**
 * Issue 8, items 3 and 14: input PostgreSQL cannot take (NUL, lone surrogates, huge offsets, dates out of range)
 * or that would recurse without bound is refused at the platform as 400 VALIDATION_FAILED naming the field (or
 * the route's 404 for path ids), and nothing is logged at error level. GET operations refuse unknown query
 * parameters like the lists do.
 */
let t: TestApp;
let s: TestStore;
let productId: string;
let couponId: string;
const errorLogs: string[] = [];
before(async () => {
  const stream = {
    write(line: string) {
      const e = JSON.parse(line);
      // Operations not built yet answer their documented 501 (logged as a 5xx); everything else must stay quiet.
      if (e.level >= 50 && e.code !== 'NOT_IMPLEMENTED') errorLogs.push(line);
    },
  };
  t = await createTestApp({ log: pino({ level: 'error' }, stream) });
  s = await createTestStore(t);
  productId = (await createProduct(t, s)).id;
  couponId = (await createCoupon(t, s)).id;
});
after(async () => {
  assert.deepEqual(errorLogs, [], 'nothing was logged at error level in this file');
  await t.close();
});

const json = { 'content-type': 'application/json' };

function assertField(res: { statusCode: number; body: string; json(): any }, field: string, label = field) {
  assert.equal(res.statusCode, 400, `${label}: ${res.body}`);
  const b = res.json();
  assert.equal(b.code, 'VALIDATION_FAILED', label);
  const f = b.details.fields.find((x: any) => x.field === field);
  assert.ok(f, `${label}: ${field} named in ${res.body}`);
  assert.match(f.message, /[가-힣]/);
}

test('a NUL byte in a path id answers the route\'s 404 (never reaches SQL)', async () => {
  const cases: Array<[string, string, Record<string, string>, string?]> = [
    ['/v1/orders/%00', 'ORDER_NOT_FOUND', bearer(s.key)],
    ['/v1/orders/ord_%00x', 'ORDER_NOT_FOUND', bearer(s.key)],
    ['/v1/products/%00', 'PRODUCT_NOT_FOUND', bearer(s.key)],
    ['/v1/checkout/sessions/cs%00', 'CHECKOUT_SESSION_NOT_FOUND', bearer(s.key)],
    ['/v1/licenses/%00', 'LICENSE_NOT_FOUND', bearer(s.key)],
    ['/admin/v1/products/%00', 'PRODUCT_NOT_FOUND', owner(s)],
    ['/admin/v1/coupons/%00', 'COUPON_NOT_FOUND', owner(s)],
    ['/admin/v1/licenses/%00', 'LICENSE_NOT_FOUND', owner(s)],
    ['/admin/v1/webhook-endpoints/%00', 'WEBHOOK_ENDPOINT_NOT_FOUND', owner(s)],
    ['/admin/v1/events/%00', 'EVENT_NOT_FOUND', owner(s)],
    ['/admin/v1/licenses/%00/revoke', 'LICENSE_NOT_FOUND', owner(s), 'POST'],
    ['/admin/v1/api-keys/%00/revoke', 'API_KEY_NOT_FOUND', owner(s), 'POST'],
  ];
  for (const [url, code, headers, method] of cases) {
    const res = await t.app.inject({ method: (method ?? 'GET') as any, url, headers: method ? { ...headers, ...json } : headers, payload: method ? '{}' : undefined });
    assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
    assert.equal(res.json().code, code, url);
  }
  // Authentication still comes first.
  assert.equal((await t.app.inject({ url: '/v1/orders/%00' })).statusCode, 401);
});

test('NUL in any string of a body or query → 400 VALIDATION_FAILED naming the field', async () => {
  const verify = await t.app.inject({ method: 'POST', url: '/v1/licenses/verify', headers: json, payload: JSON.stringify({ productId: 'p\u0000', key: 'ABCD-EFGH', nonce: 'n'.repeat(24) }) });
  assertField(verify, 'productId');
  const checkout = (body: object) => t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...post(s.key), ...json }, payload: JSON.stringify({ productId, ...body }) });
  assertField(await checkout({ customer: { name: '홍\u0000길동' } }), 'customer.name');
  assertField(await checkout({ customer: { email: 'a\u0000@example.com' } }), 'customer.email');
  assertField(await checkout({ metadata: { ref: 'x\u0000' } }), 'metadata.ref');
  assertField(await checkout({ metadata: { 'k\u0000': 'v' } }), 'metadata.k\\u0000');
  const product = await t.app.inject({ method: 'POST', url: '/admin/v1/products', headers: { ...owner(s), ...json }, payload: JSON.stringify({ mode: 'test', type: 'one_time', name: '책\u0000', pricing: { price: 1000 } }) });
  assertField(product, 'name', 'console product name');
  const coupon = await t.app.inject({ method: 'PATCH', url: `/admin/v1/coupons/${couponId}`, headers: { ...owner(s), ...json }, payload: JSON.stringify({ name: '\u0000' }) });
  assertField(coupon, 'name', 'console coupon name');
  const store = await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: { ...owner(s), ...json }, payload: JSON.stringify({ name: 'a\u0000' }) });
  assertField(store, 'name', 'console store name');
  assertField(await t.app.inject({ url: '/v1/licenses?productId=%00', headers: bearer(s.key) }), 'productId', 'query filter');
});

test('a lone surrogate in metadata (or any string) → 400 VALIDATION_FAILED naming the field', async () => {
  for (const [raw, field] of [
    [`{"productId":"${'PID'}","metadata":{"a":"\\ud800"}}`, 'metadata.a'],
    [`{"productId":"${'PID'}","metadata":{"a":"x\\udc00y"}}`, 'metadata.a'],
    [`{"productId":"${'PID'}","customer":{"name":"\\udbff"}}`, 'customer.name'],
  ]) {
    const res = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...post(s.key), ...json }, payload: raw.replace('PID', productId) });
    assertField(res, field);
  }
  // A proper pair (an emoji) is fine.
  const ok = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...post(s.key), ...json }, payload: `{"productId":"${productId}","metadata":{"a":"\\ud83d\\ude00"}}` });
  assert.ok(ok.statusCode < 300, ok.body);
});

test('page of 1e19, 1e300, Infinity or above 1,000,000 → 400 VALIDATION_FAILED on page, on every list', async () => {
  const lists: Array<[string, Record<string, string>]> = [];
  for (const [docUrl, auth] of [['/v1/openapi.json', bearer(s.key)], ['/admin/v1/openapi.json', owner(s)]] as const) {
    const doc = (await t.app.inject({ url: docUrl })).json();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const page = item.get?.parameters?.find((p: any) => p.in === 'query' && p.name === 'page');
      if (!page) continue;
      assert.equal(page.schema.maximum, 1_000_000, `${path}: the page maximum is documented`);
      lists.push([path, auth]);
    }
  }
  assert.ok(lists.length >= 9, `found ${lists.length} lists`);
  for (const [path, headers] of lists) {
    for (const page of ['1e19', '1e300', 'Infinity', '-Infinity', 'NaN', '9007199254740993', '1000001']) {
      assertField(await t.app.inject({ url: `${path}?page=${page}`, headers }), 'page', `${path}?page=${page}`);
    }
    const last = await t.app.inject({ url: `${path}?page=1000000`, headers });
    assert.ok(last.statusCode === 200 || last.statusCode === 501, `${path}?page=1000000 → ${last.statusCode} ${last.body}`);
  }
});

test('JSON nested past the limit → 400 VALIDATION_FAILED on body (idempotent and console POSTs)', async () => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  for (const raw of [nested(10_000), objects(10_000), nested(MAX_JSON_DEPTH + 1), `{"productId":"x","metadata":${objects(5_000)}}`]) {
    assertField(await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...post(s.key), ...json }, payload: raw }), 'body', `checkout ${raw.length}`);
    assertField(await t.app.inject({ method: 'POST', url: '/admin/v1/products', headers: { ...owner(s), ...json }, payload: raw }), 'body', `console ${raw.length}`);
  }
  // Exactly at the limit parses (and then fails the schema like any other wrong body), and brackets in strings do not count.
  const atLimit = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...post(s.key), ...json }, payload: nested(MAX_JSON_DEPTH) });
  assert.equal(atLimit.statusCode, 400);
  assert.notDeepEqual(atLimit.json().details.fields, [{ field: 'body', message: `JSON 중첩 깊이는 ${MAX_JSON_DEPTH}단계 이하여야 합니다.` }]);
  assert.equal(jsonTextDepthExceeds(JSON.stringify({ a: '['.repeat(1000) })), false);
  assert.equal(jsonTextDepthExceeds(JSON.stringify({ a: '\\"[[[[' })), false);
});

test('idempotency hashing never recurses without bound', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.equal(depthExceeds(deep), true);
  assert.throws(() => fingerprint('POST', '/v1/checkout/sessions', deep), (e: any) => e.code === 'VALIDATION_FAILED' && e.details.fields[0].field === 'body');
  assert.match(fingerprint('POST', '/v1/x', { a: [1, { b: 2 }] }), /^[0-9a-f]{64}$/);
});

test('dates outside 1970..9999 (or not real instants) → 400 VALIDATION_FAILED naming the field; the range ends are accepted', async () => {
  const productWith = (body: object) =>
    t.app.inject({ method: 'POST', url: '/admin/v1/products', headers: { ...owner(s), ...json }, payload: JSON.stringify({ mode: 'test', type: 'one_time', name: '책', pricing: { price: 1000 }, ...body }) });
  for (const d of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00Z', '1969-12-31T23:59:59Z', '9999-12-31T23:59:59-01:00', '2026-02-30T00:00:00Z', '2026-06-30T23:59:60Z']) {
    assertField(await productWith({ saleStartsAt: d }), 'saleStartsAt', d);
    assertField(await productWith({ saleEndsAt: d }), 'saleEndsAt', d);
    const coupon = await t.app.inject({ method: 'PATCH', url: `/admin/v1/coupons/${couponId}`, headers: { ...owner(s), ...json }, payload: JSON.stringify({ validUntil: d }) });
    assertField(coupon, 'validUntil', `coupon ${d}`);
  }
  const ends = await productWith({ saleStartsAt: '1970-01-01T00:00:00Z', saleEndsAt: '9999-12-31T23:59:59.999Z' });
  assert.equal(ends.statusCode, 201, ends.body);
  assert.equal(ends.json().saleEndsAt, '9999-12-31T23:59:59.999Z');
});

test('unknown query parameters on by-id and other GET operations → 400 VALIDATION_FAILED naming the parameter', async () => {
  const p = (await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...post(s.key), ...json }, payload: JSON.stringify({ productId }) })).json();
  const cases: Array<[string, Record<string, string>]> = [
    ['/v1/orders/ord_missing', bearer(s.key)],
    [`/v1/products/${productId}`, bearer(s.key)],
    [`/v1/checkout/sessions/${p.id}`, bearer(s.key)],
    ['/v1/licenses/lic_missing', bearer(s.key)],
    ['/v1/licenses/signing-keys', {}],
    ['/admin/v1/signing-keys', { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }],
    ['/v1/subscriptions/sub_missing', bearer(s.key)],
    ['/v1/refund-requests/rr_missing', bearer(s.key)],
    [`/admin/v1/products/${productId}`, owner(s)],
    [`/admin/v1/coupons/${couponId}`, owner(s)],
    ['/admin/v1/store', owner(s)],
    ['/v1/openapi.json', {}],
  ];
  for (const [url, headers] of cases) {
    const plain = await t.app.inject({ url, headers });
    assert.notEqual(plain.statusCode, 400, `${url} without a query: ${plain.body}`);
    const res = await t.app.inject({ url: `${url}?x=1`, headers });
    assertField(res, 'x', `${url}?x=1`);
  }
});
