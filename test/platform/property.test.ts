import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';

/**
 * Random bodies, queries and headers against every documented route: the service never answers 5xx
 * (except a documented 501 for operations not built yet) and every non-2xx answer is an ApiError.
 */
let t: TestApp;
let s: TestStore;
let routes: Array<{ method: string; path: string }> = [];
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  for (const docUrl of ['/v1/openapi.json', '/admin/v1/openapi.json']) {
    const doc = (await t.app.inject({ url: docUrl })).json();
    for (const [path, item] of Object.entries<any>(doc.paths)) for (const m of Object.keys(item)) routes.push({ method: m.toUpperCase(), path });
  }
});
after(async () => {
  await t.close();
});

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const body = fc.oneof(
  fc.dictionary(fc.oneof(fc.constantFrom('productId', 'key', 'nonce', 'amount', 'metadata', 'customer', 'mode', 'name', 'scopes', 'url', 'timing', 'reason'), fc.string({ maxLength: 12 })), jsonValue, { maxKeys: 6 }),
  jsonValue,
  fc.string({ maxLength: 40 }).map((raw) => ({ raw })),
);

test('no random request produces a 5xx or a non-ApiError error body', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.nat({ max: 1000 }),
      fc.oneof(fc.constantFrom('xyz', 'prd_1', '%00', '..', 'a'.repeat(150)), fc.string({ minLength: 1, maxLength: 20 })),
      fc.dictionary(fc.oneof(fc.constantFrom('page', 'limit', 'sort', 'mode', 'status'), fc.string({ maxLength: 8 })), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
      fc.constantFrom('none', 'key', 'owner', 'garbage'),
      fc.option(fc.string({ maxLength: 300 })),
      body,
      fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', undefined),
      async (ri, seg, query, authKind, idem, payload, contentType) => {
        const r = routes[ri % routes.length];
        const url = r.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(seg)) + '?' + new URLSearchParams(query).toString();
        const headers: Record<string, string> = {};
        if (authKind === 'key') headers.authorization = `Bearer ${s.key}`;
        if (authKind === 'owner') headers.authorization = `Bearer ${s.ownerToken}`;
        if (authKind === 'garbage') headers.authorization = 'Bearer svc_test_' + seg;
        if (idem !== null) headers['idempotency-key'] = idem;
        if (contentType && r.method !== 'GET') headers['content-type'] = contentType;
        const isRaw = payload !== null && typeof payload === 'object' && !Array.isArray(payload) && Object.keys(payload).length === 1 && 'raw' in payload;
        const raw = isRaw ? String((payload as { raw: unknown }).raw) : JSON.stringify(payload);
        const res = await t.app.inject({ method: r.method as any, url, headers, payload: r.method === 'GET' ? undefined : raw });
        const ok = res.statusCode < 500 || (res.statusCode === 501 && res.json().code === 'NOT_IMPLEMENTED');
        assert.ok(ok, `${r.method} ${url} → ${res.statusCode} ${res.body.slice(0, 300)}`);
        if (res.statusCode >= 400) {
          const b = res.json();
          assert.equal(b.statusCode, res.statusCode);
          assert.equal(typeof b.code, 'string');
          assert.match(b.message, /[가-힣]/);
          assert.ok(!/at .*\.ts:\d+|Error:/.test(res.body), 'no stack trace');
        }
      },
    ),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 400) },
  );
});
