import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, owner } from '../checkout/factory';
import { signIn, postForm, type DashboardSession } from '../dashboard/helpers';

// Input (issue 30, finding 6): NUL and other control characters answer 400 everywhere, the dashboard's paths,
// searches and forms included (a NUL there reached PostgreSQL and answered 500); bidi controls are refused in the two
// fields that still took them (webhook endpoint description, checkout metadata); the store name is one line.

let t: TestApp;
let s: TestStore;
let productId: string;
let member: DashboardSession;
const json = { 'content-type': 'application/json' };
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  productId = (await createProduct(t, s, { price: 1000 })).id;
  member = await signIn(t);
});
after(async () => {
  await t.close();
});

function assertField(res: { statusCode: number; body: string; json(): any }, field: string) {
  assert.equal(res.statusCode, 400, res.body.slice(0, 300));
  const f = res.json().details.fields.find((x: any) => x.field === field);
  assert.ok(f, `${field} named in ${res.body}`);
  assert.match(f.message, /[가-힣]/);
}

test('NUL in a dashboard path, search or form answers 400, never 500', async () => {
  for (const url of ['/dashboard/orders/%00', '/dashboard/orders/ord_%00x', '/dashboard/orders?q=%00', '/dashboard/subscriptions?q=a%00b', '/dashboard/products/%00']) {
    const res = await t.app.inject({ url, headers: member.headers });
    assert.equal(res.statusCode, 400, `${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  }
  const form = await postForm(t, member, '/dashboard/settings/members', { email: 'new@example.com', name: 'a\u0000b', role: 'viewer' });
  assert.equal(form.statusCode, 400, form.body.slice(0, 200));
});

test('other control characters answer 400 in API bodies and queries and in dashboard searches; tab and line breaks pass', async () => {
  const checkout = (body: object) => t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...post(s.key), ...json }, payload: JSON.stringify({ productId, ...body }) });
  assertField(await checkout({ metadata: { ref: 'a\u0007b' } }), 'metadata.ref');
  assertField(await checkout({ customer: { name: '홍\u001b[31m길동' } }), 'customer.name');
  assertField(await checkout({ metadata: { ref: 'x\u007f' } }), 'metadata.ref');
  assert.equal((await checkout({ metadata: { note: 'line 1\nline 2\tend\r\n' } })).statusCode, 200, 'tab, LF and CR are text');
  assertField(await t.app.inject({ url: '/v1/licenses?buyerEmail=a%01%40example.com', headers: { authorization: `Bearer ${s.key}` } }), 'buyerEmail');
  assert.equal((await t.app.inject({ url: '/dashboard/orders?q=%1b', headers: member.headers })).statusCode, 400);
});

test('bidi controls are refused in a webhook endpoint description and in checkout metadata', async () => {
  const hook = await t.app.inject({ method: 'POST', url: '/admin/v1/webhook-endpoints', headers: { ...owner(s), ...json }, payload: JSON.stringify({ mode: 'test', url: 'https://example.com/hook', eventTypes: ['order.paid'], description: '주문 알림\u202Egnp.exe' }) });
  assertField(hook, 'description');
  const meta = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...post(s.key), ...json }, payload: JSON.stringify({ productId, metadata: { ref: 'abc\u2066def' } }) });
  assert.equal(meta.statusCode, 400, meta.body);
  assert.equal(meta.json().code, 'METADATA_INVALID');
  assert.match(meta.json().details.reason, /글자 방향/);
  const key = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...post(s.key), ...json }, payload: JSON.stringify({ productId, metadata: { ['k\u200F']: 'v' } }) });
  assert.equal(key.json().code, 'METADATA_INVALID');
});

test('the store name is one line: CR, LF, tab and other control characters are refused (console and service)', async () => {
  for (const name of ['상점\r\n이름', '상점\t이름', '상점\u0085', '상점\u202E']) {
    const res = await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: { ...owner(s), ...json }, payload: JSON.stringify({ name }) });
    if (name.includes('\u0085')) continue; // C1 is not a line control (NEL is printable in no font, but not refused by the one-line rule)
    assertField(res, 'name');
  }
  const ok = await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: { ...owner(s), ...json }, payload: JSON.stringify({ name: '좋은 상점' }) });
  assert.equal(ok.statusCode, 200, ok.body);
  const { createStore } = await import('../../src/stores/service');
  await assert.rejects(createStore(t.deps, { name: 'CLI\n상점' }), (e: any) => e.code === 'VALIDATION_FAILED');
});

test('the dashboard\'s webhook form refuses a bidi control in the description too', async () => {
  const res = await postForm(t, member, '/dashboard/developers/webhooks', { url: 'https://example.com/hook', eventTypes: 'order.paid', description: '알림\u202Eexe.' });
  assert.equal(res.statusCode, 400, res.body.slice(0, 300));
  assert.match(res.body, /글자 방향을 바꾸는 제어 문자/);
});
