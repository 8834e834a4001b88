import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { SCOPES, type Scope } from '../../src/platform/http/route';

/**
 * The spec's endpoint table (/work/shared/spec/commerce-api.md, "Endpoints"), written out here: method, path, the
 * scope the operation requires (null: no API key) and whether it requires Idempotency-Key. The expectations are
 * stated in the test, not read from the service, so a route that loses its scope or `idempotent: true` fails here
 * instead of dropping out of the matrix.
 */
const SPEC: ReadonlyArray<readonly [method: 'GET' | 'POST', path: string, scope: Scope | null, idempotent: boolean]> = [
  ['POST', '/v1/checkout/sessions', 'checkout:write', true],
  ['GET', '/v1/checkout/sessions/{id}', 'checkout:read', false],
  ['GET', '/v1/licenses', 'licenses:read', false],
  ['GET', '/v1/licenses/{id}', 'licenses:read', false],
  ['POST', '/v1/licenses/activate', null, false],
  ['POST', '/v1/licenses/deactivate', null, false],
  ['GET', '/v1/licenses/signing-keys', null, false],
  ['POST', '/v1/licenses/verify', null, false],
  ['GET', '/v1/openapi.json', null, false],
  ['GET', '/v1/orders', 'orders:read', false],
  ['GET', '/v1/orders/{id}', 'orders:read', false],
  ['POST', '/v1/orders/{id}/refund', 'refunds:write', true],
  ['POST', '/v1/portal-sessions', 'subscriptions:write', true],
  ['GET', '/v1/products', 'products:read', false],
  ['GET', '/v1/products/{id}', 'products:read', false],
  ['GET', '/v1/refund-requests', 'refunds:read', false],
  ['GET', '/v1/refund-requests/{id}', 'refunds:read', false],
  ['POST', '/v1/refund-requests/{id}/approve', 'refunds:write', true],
  ['POST', '/v1/refund-requests/{id}/hold', 'refunds:write', true],
  ['POST', '/v1/refund-requests/{id}/reject', 'refunds:write', true],
  ['GET', '/v1/subscriptions', 'subscriptions:read', false],
  ['GET', '/v1/subscriptions/{id}', 'subscriptions:read', false],
  ['POST', '/v1/subscriptions/{id}/cancel', 'subscriptions:write', true],
  ['GET', '/v1/subscriptions/{id}/cancel-preview', 'subscriptions:read', false],
];

type Op = { method: 'GET' | 'POST'; path: string; url: string; scope: Scope | null; idempotent: boolean };
const ALL: Op[] = SPEC.map(([method, path, scope, idempotent]) => ({ method, path, url: path.replace(/\{[^}]+\}/g, 'xyz_1'), scope, idempotent }));
const KEYED = ALL.filter((o) => o.scope !== null);
const name = (o: Op) => `${o.method} ${o.path}`;

let t: TestApp;
let s: TestStore;
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

/** A call with the given headers; POSTs of idempotent operations carry a fresh Idempotency-Key unless told not to. */
const call = (o: Op, headers: Record<string, string>, opts: { remoteAddress?: string; idempotencyKey?: boolean } = {}) =>
  t.app.inject({
    method: o.method,
    url: o.url,
    headers: { ...headers, ...(o.idempotent && opts.idempotencyKey !== false ? { 'idempotency-key': `m-${Math.random()}` } : {}) },
    payload: o.method === 'POST' ? {} : undefined,
    remoteAddress: opts.remoteAddress,
  });

describe('auth matrix over the 24 operations of the spec', () => {
  test('the table is the spec\'s: 24 operations, 19 behind an API key, 7 requiring Idempotency-Key', () => {
    assert.equal(ALL.length, 24);
    assert.equal(new Set(ALL.map(name)).size, 24);
    assert.equal(KEYED.length, 19);
    assert.equal(ALL.filter((o) => o.idempotent).length, 7);
    for (const o of ALL) assert.ok(o.scope === null || (SCOPES as readonly string[]).includes(o.scope), name(o));
    // Every POST that takes an API key requires Idempotency-Key; no other operation does.
    for (const o of ALL) assert.equal(o.idempotent, o.method === 'POST' && o.scope !== null, name(o));
  });

  test('no key → the same 401 API_KEY_INVALID on every keyed operation; the open ones do not ask for one', async () => {
    const bodies = new Set<string>();
    for (const o of KEYED) {
      const res = await call(o, {});
      assert.equal(res.statusCode, 401, name(o));
      bodies.add(res.body);
    }
    assert.equal(bodies.size, 1);
    for (const o of ALL.filter((x) => x.scope === null)) {
      const res = await call(o, {});
      assert.notEqual(res.statusCode, 401, `${name(o)} needs no key`);
      assert.ok(res.statusCode === 200 || (res.statusCode === 400 && res.json().code === 'VALIDATION_FAILED'), `${name(o)}: ${res.statusCode} ${res.body}`);
    }
  });

  test('a key holding every scope but the required one → 403 API_KEY_SCOPE_MISSING naming exactly that scope', async () => {
    for (const o of KEYED) {
      const k = await s.newKey({ scopes: SCOPES.filter((x) => x !== o.scope) });
      const res = await call(o, bearer(k.key));
      assert.equal(res.statusCode, 403, name(o));
      assert.equal(res.json().code, 'API_KEY_SCOPE_MISSING', name(o));
      assert.deepEqual(res.json().details, { required: [o.scope] }, name(o));
    }
  });

  test('a key with only the required scope gets past the scope check', async () => {
    for (const o of KEYED) {
      const k = await s.newKey({ scopes: [o.scope!] });
      const res = await call(o, bearer(k.key));
      assert.ok(![401, 403].includes(res.statusCode), `${name(o)}: ${res.statusCode} ${res.body}`);
    }
  });

  test('a key used from an address outside its allow-list → 403 API_KEY_IP_NOT_ALLOWED', async () => {
    const k = await s.newKey({ ipAllowlist: ['192.0.2.1'] });
    for (const o of KEYED) {
      const res = await call(o, bearer(k.key), { remoteAddress: '198.51.100.2' });
      assert.equal(res.statusCode, 403, name(o));
      assert.equal(res.json().code, 'API_KEY_IP_NOT_ALLOWED', name(o));
    }
  });

  test('each idempotent POST without Idempotency-Key → 400 naming the header (after authentication); the others never ask for it', async () => {
    for (const o of ALL.filter((x) => x.idempotent)) {
      const res = await call(o, bearer(s.key), { idempotencyKey: false });
      assert.equal(res.statusCode, 400, name(o));
      assert.equal(res.json().code, 'VALIDATION_FAILED', name(o));
      assert.equal(res.json().details.fields[0].field, 'Idempotency-Key', name(o));
      // Authentication first: without a key the same request is a 401, not a complaint about the header.
      assert.equal((await call(o, {}, { idempotencyKey: false })).statusCode, 401, name(o));
    }
    for (const o of ALL.filter((x) => x.method === 'POST' && !x.idempotent)) {
      const res = await call(o, o.scope ? bearer(s.key) : {}, { idempotencyKey: false });
      const fields = res.statusCode === 400 ? (res.json().details?.fields ?? []) : [];
      assert.ok(!fields.some((f: { field: string }) => f.field === 'Idempotency-Key'), `${name(o)} takes no Idempotency-Key`);
    }
  });

  test('the published OpenAPI document says what the table says', async () => {
    const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
    const documented = Object.entries<any>(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
    assert.deepEqual(documented.sort(), ALL.map(name).sort());
    for (const o of ALL) {
      const d = doc.paths[o.path][o.method.toLowerCase()];
      assert.equal(d['x-required-scope'], o.scope, name(o));
      assert.equal(d['x-idempotent'], o.idempotent, name(o));
      assert.equal((d.security ?? []).some((x: any) => 'apiKey' in x), o.scope !== null, name(o));
      const header = (d.parameters ?? []).some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key' && p.required);
      assert.equal(header, o.idempotent, `${name(o)}: Idempotency-Key header documented`);
    }
  });
});
