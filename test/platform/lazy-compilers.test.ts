import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct } from '../checkout/factory';
import { compiledSerializers } from '../../src/platform/http/lazy-serializer';
import { validatorsCompiled } from '../../src/platform/http/validation';
import { Type } from '@sinclair/typebox';
import type { Module } from '../../src/deps';
import { op } from '../../src/platform/http/route';
import { Obj } from '../../src/platform/http/schemas';

// @alone: it counts the serializers and validators compiled in the whole process, so no other file may have started
// an app in it first (scripts/run-tests.mjs runs fast files in shared processes otherwise).
//
// Idle memory (issue 43): the ~150 response serializers and several hundred request validators are compiled on the
// first request that needs each one, not when the server starts (each compiled one stays in the heap for good).
// The answers must be the same: serialized by the route's response schema, validated by its request schema.

let t: TestApp;
let s: TestStore;
let productId: string;
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  productId = (await createProduct(t, s, { price: 1000 })).id;
});
after(async () => {
  await t.close();
});

test('a started app (a store and a product made) has compiled next to none of its serializers and validators', () => {
  // The app has about 150 response schemas and several hundred request schemas; setting up compiles at most a couple.
  assert.ok(compiledSerializers() <= 2, `serializers compiled at start: ${compiledSerializers()}`);
  assert.ok(validatorsCompiled() <= 2, `validators compiled at start: ${validatorsCompiled()}`);
});

test('a route compiles its serializer once, on its first answer, and answers by its schema', async () => {
  const first = await t.app.inject({ method: 'GET', url: '/v1/products', headers: bearer(s.key) });
  assert.equal(first.statusCode, 200);
  const afterFirst = compiledSerializers();
  assert.ok(afterFirst >= 1, 'the list was serialized by a compiled serializer');
  const body = first.json();
  assert.ok(body.data.some((p: { id: string }) => p.id === productId));
  const second = await t.app.inject({ method: 'GET', url: '/v1/products', headers: bearer(s.key) });
  assert.equal(second.statusCode, 200);
  assert.equal(second.body, first.body);
  assert.equal(compiledSerializers(), afterFirst, 'the second answer reuses the compiled serializer');
});

test('a request validator compiled on first use refuses a bad body as at start, with the field named', async () => {
  const bad = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...post(s.key), 'content-type': 'application/json' }, payload: { productId: 42 } });
  assert.equal(bad.statusCode, 400, bad.body);
  assert.equal(bad.json().code, 'VALIDATION_FAILED');
  assert.deepEqual(bad.json().details.fields.map((f: { field: string }) => f.field), ['productId']);
  const compiled = validatorsCompiled();
  assert.ok(compiled >= 1);
  const good = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...post(s.key), 'content-type': 'application/json' }, payload: { productId } });
  assert.equal(good.statusCode, 200, good.body);
  assert.equal(validatorsCompiled(), compiled, 'the second request reuses the compiled validator');
});

test('an answer carries only what its response schema declares: a field the handler adds is dropped, compiled late or not', async () => {
  // The response schema is the contract of what leaves the service (an internal field a handler returns must not).
  const leaky: Module = async (app) => {
    app.get(
      '/v1/test/leaky',
      op({ operationId: 'testLeaky', summary: 'test', tags: ['Test'] }, { auth: 'api_key', scope: 'orders:read' }, {
        response: { 200: Obj({ id: Type.String(), amount: Type.Integer() }) },
      }),
      async () => ({ id: 'x_1', amount: 1000, sealedSecret: 'must-not-leave', internal: { note: 'nor this' } }),
    );
  };
  const t2 = await createTestApp({ extraModules: [leaky] });
  try {
    const s2 = await createTestStore(t2);
    for (const round of ['first answer (compiles)', 'second answer (compiled)']) {
      const res = await t2.app.inject({ url: '/v1/test/leaky', headers: bearer(s2.key) });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { id: 'x_1', amount: 1000 }, round);
      assert.ok(!res.body.includes('must-not-leave'), round);
    }
  } finally {
    await t2.close();
  }
});
