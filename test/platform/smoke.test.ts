import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp } from '../helpers/app';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});

test('health answers without a database round trip and ready checks the database', async () => {
  assert.equal((await t.app.inject({ url: '/health' })).statusCode, 200);
  const ready = await t.app.inject({ url: '/ready' });
  assert.equal(ready.statusCode, 200);
  assert.deepEqual(ready.json(), { status: 'ready' });
});

test('a valid key passes authentication and gets rate-limit headers', async () => {
  const s = await createTestStore(t);
  const res = await t.app.inject({ url: '/v1/orders', headers: bearer(s.key) });
  assert.notEqual(res.statusCode, 401);
  assert.equal(res.headers['x-ratelimit-limit'], '300');
});
