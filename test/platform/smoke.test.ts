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
  const realPing = t.deps.database.ping.bind(t.deps.database);
  let pings = 0;
  t.deps.database.ping = async () => {
    pings++;
    return realPing();
  };
  try {
    assert.equal((await t.app.inject({ url: '/health' })).statusCode, 200);
    assert.equal(pings, 0, '/health does not touch the database');
    const ready = await t.app.inject({ url: '/ready' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready' });
    assert.equal(pings, 1, '/ready pings the database');
    // The answer follows the ping: a database that does not answer makes the service not ready.
    t.deps.database.ping = async () => {
      pings++;
      throw new Error('connection refused');
    };
    const down = await t.app.inject({ url: '/ready' });
    assert.equal(down.statusCode, 503);
    assert.deepEqual(down.json(), { status: 'unavailable' });
    assert.equal((await t.app.inject({ url: '/health' })).statusCode, 200, 'health is the process, not the database');
  } finally {
    t.deps.database.ping = realPing;
  }
});

test('ready is 503 once the database itself is gone (the real ping reaches it)', async () => {
  const own = await createTestApp();
  try {
    assert.equal((await own.app.inject({ url: '/ready' })).statusCode, 200);
    await own.deps.database.close();
    const res = await own.app.inject({ url: '/ready' });
    assert.equal(res.statusCode, 503);
    assert.deepEqual(res.json(), { status: 'unavailable' });
  } finally {
    await own.close().catch(() => {});
  }
});

test('a valid key passes authentication, gets its list and rate-limit headers', async () => {
  const s = await createTestStore(t);
  const res = await t.app.inject({ url: '/v1/orders', headers: bearer(s.key) });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json(), { data: [], total: 0, page: 1, limit: 20 });
  assert.equal(res.headers['x-ratelimit-limit'], '300');
  assert.equal(res.headers['x-ratelimit-remaining'], '299');
});
