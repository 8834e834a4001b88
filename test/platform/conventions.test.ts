import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { platformTestRoutes } from '../helpers/test-routes';

let t: TestApp;
let s: TestStore;
before(async () => {
  t = await createTestApp({ extraModules: [platformTestRoutes().mod], config: { bodyLimitBytes: 4096 } });
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const post = (payload: string | object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/v1/test/echo', headers: { ...bearer(s.key), 'idempotency-key': `k-${Math.random()}`, 'content-type': 'application/json', ...headers }, payload: payload as any });

test('every unknown or failing body field is listed in details.fields with a Korean message', async () => {
  const res = await post({ value: 5, surprise: true, count: 99 });
  assert.equal(res.statusCode, 400);
  const body = res.json();
  assert.equal(body.code, 'VALIDATION_FAILED');
  const fields = Object.fromEntries(body.details.fields.map((f: any) => [f.field, f.message]));
  assert.ok('surprise' in fields, 'unknown field named');
  assert.ok('value' in fields, 'wrong type named');
  assert.ok('count' in fields, 'out of range named');
  for (const m of Object.values(fields)) assert.match(String(m), /[가-힣]/);
  assert.equal(body.details.required, undefined);
});

test('a missing required field is named', async () => {
  const res = await post({});
  assert.deepEqual(res.json().details.fields, [{ field: 'value', message: '필수 항목입니다.' }]);
});

test('malformed JSON → 400 VALIDATION_FAILED', async () => {
  const res = await post('{"value": ');
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().code, 'VALIDATION_FAILED');
});

test('a body that is not JSON → 400 VALIDATION_FAILED naming Content-Type', async () => {
  const res = await post('value=1', { 'content-type': 'text/plain' });
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().details.fields[0].field, 'Content-Type');
});

test('an oversized body → 413 ApiError', async () => {
  const res = await post({ value: 'x'.repeat(10_000) });
  assert.equal(res.statusCode, 413);
  assert.equal(res.json().code, 'PAYLOAD_TOO_LARGE');
  assert.equal(res.json().statusCode, 413);
});

test('an unknown route → 404 ApiError', async () => {
  const res = await t.app.inject({ url: '/v1/nothing-here' });
  assert.equal(res.statusCode, 404);
  assert.deepEqual(res.json(), { statusCode: 404, code: 'NOT_FOUND', message: '요청한 리소스를 찾을 수 없습니다.' });
});

test('list queries: sort and order are refused, limit is 1..100, page ≥ 1, unknown query fields refused', async () => {
  const q = (qs: string) => t.app.inject({ url: `/admin/v1/api-keys?${qs}`, headers: bearer(s.ownerToken) });
  for (const qs of ['sort=createdAt', 'order=desc', 'limit=101', 'limit=0', 'page=0', 'page=abc', 'color=red']) {
    const res = await q(qs);
    assert.equal(res.statusCode, 400, qs);
    assert.equal(res.json().code, 'VALIDATION_FAILED', qs);
    assert.ok(res.json().details.fields.length >= 1);
  }
  const ok = await q('limit=100&page=1');
  assert.equal(ok.statusCode, 200);
  const body = ok.json();
  assert.deepEqual(Object.keys(body).sort(), ['data', 'limit', 'page', 'total']);
  assert.equal(body.limit, 100);
  const dflt = (await q('')).json();
  assert.equal(dflt.page, 1);
  assert.equal(dflt.limit, 20);
});

test('list pages are newest first and page through', async () => {
  for (let i = 0; i < 3; i++) {
    await s.newKey();
    t.clock.advance(1000);
  }
  const p1 = (await t.app.inject({ url: '/admin/v1/api-keys?limit=2&page=1', headers: bearer(s.ownerToken) })).json();
  const p2 = (await t.app.inject({ url: '/admin/v1/api-keys?limit=2&page=2', headers: bearer(s.ownerToken) })).json();
  assert.equal(p1.total, 4);
  assert.equal(p1.data.length, 2);
  assert.equal(p2.data.length, 2);
  const all = [...p1.data, ...p2.data].map((k: any) => k.createdAt);
  assert.deepEqual(all, [...all].sort().reverse());
});

test('fields without a value are null, never omitted; date-times are ISO UTC with milliseconds', async () => {
  const res = await t.app.inject({ url: '/admin/v1/api-keys', headers: bearer(s.ownerToken) });
  const key = res.json().data[0];
  for (const f of ['ipAllowlist', 'productIds', 'expiresAt', 'revokedAt', 'rotatedTo']) {
    assert.ok(f in key, `${f} present`);
    assert.equal(key[f], null);
  }
  assert.match(key.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
});

test('every answer carries a request id; an incoming X-Request-Id is kept', async () => {
  const a = await t.app.inject({ url: '/health' });
  assert.match(String(a.headers['request-id']), /^req_[0-9a-f]{32}$/);
  const b = await t.app.inject({ url: '/health', headers: { 'x-request-id': 'trace-abc-12345' } });
  assert.equal(b.headers['request-id'], 'trace-abc-12345');
});

test('metrics are exposed in Prometheus format with route and status', async () => {
  await t.app.inject({ url: '/v1/test/whoami', headers: bearer(s.key) });
  const res = await t.app.inject({ url: '/metrics' });
  assert.equal(res.statusCode, 200);
  assert.match(res.body, /http_requests_total\{method="GET",route="\/v1\/test\/whoami",status_code="200"\} \d+/);
  assert.match(res.body, /http_request_duration_seconds_bucket/);
});
