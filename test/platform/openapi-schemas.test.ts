import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, owner } from '../checkout/factory';
import { ERROR_CODES } from '../../src/platform/errors';
import { lintOpenApiFiles } from '../../scripts/lint-openapi';
import { SchemaRegistry } from '../../src/platform/openapi-components';

// The documents a seller's developer generates clients from: named schemas, declared headers, described
// responses and tags, and both linters (Spectral `spectral:oas`, Redocly `recommended`) with nothing to say.

let t: TestApp;
let s: TestStore;
let v1: any;
let admin: any;
before(async () => {
  t = await createTestApp({ config: { rateLimitPerMinute: 8 } });
  s = await createTestStore(t);
  v1 = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  admin = (await t.app.inject({ url: '/admin/v1/openapi.json' })).json();
});
after(async () => {
  await t.close();
});

function* operations(doc: any): Generator<[string, string, any]> {
  for (const [path, item] of Object.entries<any>(doc.paths)) for (const [method, op] of Object.entries<any>(item)) yield [path, method, op];
}

test('Spectral (spectral:oas) and Redocly (recommended-strict) report no error, warning or hint on either document', () => {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  try {
    writeFileSync(join(dir, 'v1.json'), JSON.stringify(v1));
    writeFileSync(join(dir, 'admin.json'), JSON.stringify(admin));
    const { ok, report } = lintOpenApiFiles([join(dir, 'v1.json'), join(dir, 'admin.json')]);
    assert.ok(ok, report);
    assert.match(report, /v1\.json: 0 errors, 0 warnings/);
    assert.match(report, /admin\.json: 0 errors, 0 warnings/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every JSON request body and success answer of both documents is a named schema in components.schemas', () => {
  for (const doc of [v1, admin]) {
    for (const [path, method, op] of operations(doc)) {
      const bodies = [op.requestBody?.content?.['application/json']?.schema, ...Object.entries<any>(op.responses).map(([, r]) => r.content?.['application/json']?.schema)];
      for (const schema of bodies.filter(Boolean)) {
        assert.match(schema.$ref ?? '', /^#\/components\/schemas\/\w+$/, `${method} ${path}: ${JSON.stringify(schema).slice(0, 80)}`);
        assert.ok(doc.components.schemas[schema.$ref.split('/').pop()], `${schema.$ref} exists`);
      }
      for (const [status, r] of Object.entries<any>(op.responses)) {
        assert.notEqual(r.description, 'Default Response', `${method} ${path} ${status}`);
        assert.ok(r.description.length > 5, `${method} ${path} ${status}`);
      }
    }
  }
  for (const name of ['Order', 'OrderPage', 'CheckoutSession', 'CreateCheckoutSessionRequest', 'Product', 'ProductPage', 'License', 'LicenseActivation', 'LicenseAppResponse', 'SigningKeys', 'Subscription', 'CancelPreview', 'CancelSubscriptionRequest', 'CancelSubscriptionResult', 'PortalSession', 'Refund', 'RefundOrderRequest', 'RefundRequest', 'RefundRequestPage', 'ApiError']) {
    assert.ok(v1.components.schemas[name], `${name} is named`);
  }
  assert.deepEqual(v1.paths['/v1/orders/{id}'].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/Order' });
  // One name, one shape: the console's Order is the public Order.
  assert.deepEqual(admin.components.schemas.Order, v1.components.schemas.Order);
});

test('named request schemas carry no `default` (generated clients would make the field required); defaults are applied by the server', () => {
  for (const doc of [v1, admin]) {
    for (const [path, method, op] of operations(doc)) {
      const ref = op.requestBody?.content?.['application/json']?.schema?.$ref;
      if (!ref) continue;
      const schema = doc.components.schemas[ref.split('/').pop()];
      for (const [name, prop] of Object.entries<any>(schema.properties ?? {})) assert.ok(!('default' in prop), `${method} ${path}: ${name}`);
    }
  }
});

test('ApiError is one named schema whose code is part of the closed catalog, referenced by every error answer', () => {
  for (const doc of [v1, admin]) {
    // Each document lists only its own operations' codes (test/platform/openapi-errors.test.ts), in catalog order.
    const listed: string[] = doc.components.schemas.ApiError.properties.code.enum;
    assert.deepEqual(listed, ERROR_CODES.filter((c) => listed.includes(c)));
    for (const [path, method, op] of operations(doc)) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        assert.deepEqual(r.content['application/json'].schema, { $ref: '#/components/schemas/ApiError' }, `${method} ${path} ${status}`);
        for (const code of r.description.split(', ')) assert.ok(ERROR_CODES.includes(code as any), `${method} ${path} ${status}: ${code}`);
      }
    }
  }
});

test('both documents name the product, describe every tag they use and order operations under them', () => {
  assert.equal(v1.info.title, 'Commerce API');
  assert.match(v1.info.description, /Korea/);
  for (const doc of [v1, admin]) {
    const used = new Set([...operations(doc)].flatMap(([, , op]) => op.tags));
    assert.deepEqual(doc.tags.map((x: any) => x.name).sort(), [...used].sort());
    for (const tag of doc.tags) assert.ok(tag.description && tag.description.length > 10, tag.name);
  }
});

const SENT = ['request-id', 'idempotent-replayed', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'service-key-deprecated', 'service-signature'];

/** Every documented-kind header the service actually sent on this answer is declared on the operation's response. */
function assertDeclared(doc: any, method: string, path: string, res: { statusCode: number; headers: Record<string, unknown> }, expect: string[]) {
  const declared = Object.keys(doc.paths[path][method].responses[String(res.statusCode)]?.headers ?? {}).map((h) => h.toLowerCase());
  const sent = SENT.filter((h) => res.headers[h] !== undefined);
  for (const h of expect) assert.ok(sent.includes(h), `${method} ${path} ${res.statusCode} sends ${h}`);
  for (const h of sent) assert.ok(declared.includes(h), `${method} ${path} ${res.statusCode} declares ${h} (declared: ${declared.join(', ')})`);
  for (const h of declared) assert.ok(doc.components.headers[doc.paths[path][method].responses[String(res.statusCode)].headers[Object.keys(doc.paths[path][method].responses[String(res.statusCode)].headers).find((x) => x.toLowerCase() === h)!].$ref.split('/').pop()], h);
}

test('the response headers the service sends are the ones declared on the operations that send them', async () => {
  const product = await createProduct(t, s);
  const body = { productId: product.id, successUrl: 'https://example.com/ok' };
  const headers = post(s.key);
  const first = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers, payload: body });
  assert.equal(first.statusCode, 200, first.body);
  assertDeclared(v1, 'post', '/v1/checkout/sessions', first, ['request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
  const replay = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers, payload: body });
  assertDeclared(v1, 'post', '/v1/checkout/sessions', replay, ['request-id', 'idempotent-replayed']);

  const verify = await t.app.inject({ method: 'POST', url: '/v1/licenses/verify', payload: { productId: product.id, key: 'AAAA-BBBB-CCCC-DDDD', nonce: 'a'.repeat(64) } });
  assert.equal(verify.statusCode, 200, verify.body);
  assertDeclared(v1, 'post', '/v1/licenses/verify', verify, ['request-id', 'service-signature']);

  const notFound = await t.app.inject({ url: '/v1/orders/ord_missing', headers: bearer(s.key) });
  assertDeclared(v1, 'get', '/v1/orders/{id}', notFound, ['request-id']);

  // A rotated key's answers say when it stops working.
  const rotated = await t.app.inject({ method: 'POST', url: `/admin/v1/api-keys/${s.keyId}/rotate`, headers: owner(s), payload: { graceHours: 1 } });
  assert.equal(rotated.statusCode, 200, rotated.body);
  const old = await t.app.inject({ url: '/v1/products', headers: bearer(s.key) });
  assertDeclared(v1, 'get', '/v1/products', old, ['request-id', 'service-key-deprecated']);

  // The key's minute budget (8 here) spent: 429 with Retry-After.
  const limited = await s.newKey();
  let res;
  for (let i = 0; i < 9; i++) res = await t.app.inject({ url: '/v1/products', headers: bearer(limited.key) });
  assert.equal(res!.statusCode, 429);
  assertDeclared(v1, 'get', '/v1/products', res!, ['request-id', 'retry-after', 'x-ratelimit-remaining']);
});

test('one title names one shape: two different schemas with the same title stop the document from building', () => {
  const registry = new SchemaRegistry();
  const used = new Set<string>();
  const order = { title: 'Thing', type: 'object', properties: { id: { type: 'string' } }, description: 'first' };
  assert.deepEqual(registry.hoist({ schema: order }, used), { schema: { $ref: '#/components/schemas/Thing' } });
  // The same shape elsewhere, described differently, is the same component with its own description beside the $ref.
  assert.deepEqual(registry.hoist({ ...order, description: 'second' }, used), { $ref: '#/components/schemas/Thing', description: 'second' });
  assert.throws(() => registry.hoist({ title: 'Thing', type: 'object', properties: { id: { type: 'integer' } } }, used), /two different schemas are titled "Thing"/);
  // Titled schemas nested in a named one are named too, and the outer one refers to them.
  registry.hoist({ title: 'Outer', type: 'object', properties: { inner: { title: 'Inner', type: 'string' } } }, used);
  assert.deepEqual(registry.components(used).Outer.properties.inner, { $ref: '#/components/schemas/Inner' });
  assert.deepEqual([...used].sort(), ['Inner', 'Outer', 'Thing']);
});
