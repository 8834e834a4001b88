import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { SCOPES } from '../../src/platform/http/route';

/**
 * One matrix over every public operation that takes an API key, read from the OpenAPI document so a new
 * route is covered the day it is added: no key → 401, a key without the scope → 403 naming it,
 * a key from a disallowed address → 403.
 */
let t: TestApp;
let s: TestStore;
let ops: Array<{ method: string; url: string; scope: string | null; idempotent: boolean }> = [];
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, o] of Object.entries<any>(item)) {
      if (!(o.security ?? []).some((x: any) => 'apiKey' in x)) continue;
      ops.push({ method: method.toUpperCase(), url: path.replace(/\{[^}]+\}/g, 'xyz_1'), scope: o['x-required-scope'], idempotent: o['x-idempotent'] });
    }
  }
});
after(async () => {
  await t.close();
});

const call = (o: (typeof ops)[number], headers: Record<string, string>, remoteAddress?: string) =>
  t.app.inject({ method: o.method as any, url: o.url, headers: { ...headers, ...(o.idempotent ? { 'idempotency-key': `m-${Math.random()}` } : {}) }, payload: o.method === 'POST' ? {} : undefined, remoteAddress });

describe('auth matrix over every API-key operation', () => {
  test('the document lists the 19 API-key operations, each with a scope', () => {
    assert.equal(ops.length, 19);
    for (const o of ops) assert.ok(o.scope && (SCOPES as readonly string[]).includes(o.scope), `${o.method} ${o.url}`);
  });

  test('no key → the same 401 API_KEY_INVALID everywhere', async () => {
    const bodies = new Set<string>();
    for (const o of ops) {
      const res = await call(o, {});
      assert.equal(res.statusCode, 401, `${o.method} ${o.url}`);
      bodies.add(res.body);
    }
    assert.equal(bodies.size, 1);
  });

  test('a key lacking the scope → 403 API_KEY_SCOPE_MISSING with details.required', async () => {
    for (const o of ops) {
      const others = SCOPES.filter((x) => x !== o.scope);
      const k = await s.newKey({ scopes: [...others] });
      const res = await call(o, bearer(k.key));
      assert.equal(res.statusCode, 403, `${o.method} ${o.url}`);
      assert.deepEqual(res.json().details, { required: [o.scope] });
    }
  });

  test('a key used from an address outside its allow-list → 403 API_KEY_IP_NOT_ALLOWED', async () => {
    const k = await s.newKey({ ipAllowlist: ['192.0.2.1'] });
    for (const o of ops) {
      const res = await call(o, bearer(k.key), '198.51.100.2');
      assert.equal(res.statusCode, 403, `${o.method} ${o.url}`);
      assert.equal(res.json().code, 'API_KEY_IP_NOT_ALLOWED');
    }
  });

  test('a POST without Idempotency-Key → 400 naming the header (after authentication)', async () => {
    for (const o of ops.filter((x) => x.idempotent)) {
      const res = await t.app.inject({ method: 'POST', url: o.url, headers: bearer(s.key), payload: {} });
      assert.equal(res.statusCode, 400, o.url);
      assert.equal(res.json().details.fields[0].field, 'Idempotency-Key');
    }
  });
});
