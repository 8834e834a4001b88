import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});

const SPEC_OPERATIONS = [
  'POST /v1/checkout/sessions', 'GET /v1/checkout/sessions/{id}', 'GET /v1/licenses', 'GET /v1/licenses/{id}',
  'POST /v1/licenses/activate', 'POST /v1/licenses/deactivate', 'GET /v1/licenses/signing-keys', 'POST /v1/licenses/verify',
  'GET /v1/openapi.json', 'GET /v1/orders', 'GET /v1/orders/{id}', 'POST /v1/orders/{id}/refund', 'POST /v1/portal-sessions',
  'GET /v1/products', 'GET /v1/products/{id}', 'GET /v1/refund-requests', 'GET /v1/refund-requests/{id}',
  'POST /v1/refund-requests/{id}/approve', 'POST /v1/refund-requests/{id}/hold', 'POST /v1/refund-requests/{id}/reject',
  'GET /v1/subscriptions', 'GET /v1/subscriptions/{id}', 'POST /v1/subscriptions/{id}/cancel', 'GET /v1/subscriptions/{id}/cancel-preview',
];

test('GET /v1/openapi.json is an OpenAPI 3.1 document with exactly the 24 operations of the contract', async () => {
  const res = await t.app.inject({ url: '/v1/openapi.json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  assert.equal(doc.openapi, '3.1.0');
  const ops = Object.entries<any>(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
  assert.deepEqual(ops.sort(), [...SPEC_OPERATIONS].sort());
  assert.ok(!ops.some((o) => o.includes('/admin/')), 'the seller console is not in the public document');
});

test('each operation documents its scope, idempotency header, error codes and ApiError responses', async () => {
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  const refund = doc.paths['/v1/orders/{id}/refund'].post;
  assert.equal(refund['x-required-scope'], 'refunds:write');
  assert.deepEqual(refund.security, [{ apiKey: [] }]);
  assert.ok(refund.parameters.some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key' && p.required));
  for (const code of ['REFUND_NOT_PAID', 'PG_REFUND_AMBIGUOUS', 'IDEMPOTENCY_KEY_CONFLICT', 'API_KEY_INVALID', 'RATE_LIMITED']) {
    assert.ok(refund['x-error-codes'].includes(code), code);
  }
  assert.match(refund.responses['409'].description, /REFUND_NOT_PAID/);
  const verify = doc.paths['/v1/licenses/verify'].post;
  assert.deepEqual(verify.security, []);
  assert.ok(!(verify.parameters ?? []).some((p: any) => p.name === 'Idempotency-Key'), 'the license app API takes no Idempotency-Key');
});

test('every operation of both documents lists SERVICE_UNAVAILABLE (503, the database unreachable) with its response', async () => {
  for (const url of ['/v1/openapi.json', '/admin/v1/openapi.json']) {
    const doc = (await t.app.inject({ url })).json();
    let n = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        n++;
        assert.ok(operation['x-error-codes'].includes('SERVICE_UNAVAILABLE'), `${method.toUpperCase()} ${path}`);
        assert.match(operation.responses['503']?.description ?? '', /SERVICE_UNAVAILABLE/, `${method.toUpperCase()} ${path}`);
      }
    }
    assert.ok(n >= 24, url);
  }
});

test('the seller console has its own document and both render for people', async () => {
  const admin = (await t.app.inject({ url: '/admin/v1/openapi.json' })).json();
  assert.ok(admin.paths['/admin/v1/api-keys'].post);
  assert.ok(!Object.keys(admin.paths).some((p) => p.startsWith('/v1/')));
  // /docs is the guides' index, linking the public reference (/docs/reference) and the console's (/admin/docs).
  const docs = await t.app.inject({ url: '/docs/' });
  assert.equal(docs.statusCode, 200);
  assert.match(docs.headers['content-type'] as string, /text\/html/);
  assert.match(docs.body, /href="\/docs\/reference"/);
  assert.match(docs.body, /href="\/admin\/docs"/);
  for (const [url, json] of [['/docs/reference/', '/v1/'], ['/admin/docs/', '/admin/v1/']] as const) {
    const page = await t.app.inject({ url });
    assert.equal(page.statusCode, 200, url);
    // The product's name, logo and favicon, not Swagger's.
    assert.match(page.body, /<title>Commerce API — /, url);
    assert.match(page.body, /rel="icon" type="image\/svg\+xml" href="\.\/static\/theme\/favicon\.svg"/, url);
    assert.ok(!page.body.includes('favicon-32x32.png'), `${url}: Swagger's favicon`);
    const init = (await t.app.inject({ url: `${url}static/swagger-initializer.js` })).body;
    const logo = /img\.src = 'data:image\/svg\+xml;base64,([^']+)'/.exec(init)?.[1];
    assert.ok(logo, `${url}: a logo is set`);
    assert.match(Buffer.from(logo, 'base64').toString(), />Commerce API</, `${url}: the logo names the product`);
    const icon = await t.app.inject({ url: `${url}static/theme/favicon.svg` });
    assert.equal(icon.statusCode, 200);
    const spec = (await t.app.inject({ url: `${url}json` })).json();
    assert.ok(Object.keys(spec.paths).every((p: string) => p.startsWith(json)), url);
  }
});
