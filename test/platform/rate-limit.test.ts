import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer } from '../helpers/app';
import { platformTestRoutes } from '../helpers/test-routes';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config';
import { openRedis } from '../../src/platform/redis';
import { createLimiter } from '../../src/platform/http/rate-limit';

test('the 301st call in a minute gets 429 RATE_LIMITED with Retry-After; headers count down', async () => {
  const t = await createTestApp({ extraModules: [platformTestRoutes().mod] });
  try {
    const s = await createTestStore(t);
    const other = await s.newKey();
    let last;
    const started = Date.now();
    for (let i = 1; i <= 300; i++) {
      last = await t.app.inject({ url: '/v1/test/whoami', headers: bearer(s.key) });
      assert.equal(last.statusCode, 200, `call ${i}`);
      assert.equal(last.headers['x-ratelimit-remaining'], String(300 - i));
    }
    assert.equal(last!.headers['x-ratelimit-limit'], '300');
    // Reset is a Unix time on the service's clock (the injected one), within the one-minute window.
    const nowSec = Math.ceil(t.clock.now().getTime() / 1000);
    const untilReset = Number(last!.headers['x-ratelimit-reset']) - nowSec;
    assert.ok(Number.isInteger(untilReset) && untilReset >= 1 && untilReset <= 60, `X-RateLimit-Reset is ${untilReset} s away`);
    const limited = await t.app.inject({ url: '/v1/test/whoami', headers: bearer(s.key) });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, 'RATE_LIMITED');
    assert.equal(limited.headers['x-ratelimit-remaining'], '0');
    const retry = Number(limited.headers['retry-after']);
    // What is left of the window that opened with the first call: 60 s minus the (real) time the 300 calls took.
    const spent = Math.ceil((Date.now() - started) / 1000);
    assert.ok(Number.isInteger(retry) && retry <= 60 && retry >= 60 - spent - 1, `Retry-After ${retry} after ${spent} s`);
    assert.equal(Number(limited.headers['x-ratelimit-reset']), nowSec + retry, 'Reset and Retry-After name the same moment');
    // The limit is per key: another key of the same store is unaffected.
    assert.equal((await t.app.inject({ url: '/v1/test/whoami', headers: bearer(other.key) })).statusCode, 200);
  } finally {
    await t.close();
  }
});

test('with Redis, two instances share one counter', { skip: process.env.REDIS_URL ? false : 'REDIS_URL not set' }, async () => {
  const routes = platformTestRoutes();
  const a = await createTestApp({ redis: true, config: { rateLimitPerMinute: 10 }, extraModules: [routes.mod] });
  const b = await createTestApp({ database: a.deps.database, redis: true, config: { rateLimitPerMinute: 10 }, extraModules: [routes.mod] });
  try {
    const s = await createTestStore(a);
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) codes.push((await (i % 2 ? b : a).app.inject({ url: '/v1/test/whoami', headers: bearer(s.key) })).statusCode);
    assert.deepEqual(codes.filter((c) => c === 200).length, 10);
    assert.deepEqual(codes.slice(10), [429, 429]);
  } finally {
    await b.close();
    await a.close();
  }
});

test('with Redis, deployments with different REDIS_KEY_PREFIX keep separate counters', { skip: process.env.REDIS_URL ? false : 'REDIS_URL not set' }, async () => {
  const routes = platformTestRoutes();
  const run = randomBytes(4).toString('hex');
  const a = await createTestApp({ redis: true, config: { rateLimitPerMinute: 10, redisKeyPrefix: `a${run}:` }, extraModules: [routes.mod] });
  const b = await createTestApp({ database: a.deps.database, redis: true, config: { rateLimitPerMinute: 10, redisKeyPrefix: `b${run}:` }, extraModules: [routes.mod] });
  try {
    const s = await createTestStore(a);
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) codes.push((await (i % 2 ? b : a).app.inject({ url: '/v1/test/whoami', headers: bearer(s.key) })).statusCode);
    // Six calls through each: with one counter the 11th and 12th would be refused (the test above).
    assert.deepEqual(codes, Array(12).fill(200));
  } finally {
    await b.close();
    await a.close();
  }
});

test('openRedis puts REDIS_KEY_PREFIX before every key the limiters write; a bad prefix is refused at start', { skip: process.env.REDIS_URL ? false : 'REDIS_URL not set' }, async () => {
  const run = randomBytes(4).toString('hex');
  const prefix = `shop-${run}:`;
  const name = `rl_prefix_check_${run}`;
  const redis = await openRedis(process.env.REDIS_URL!, prefix);
  const raw = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
  try {
    await new Promise<void>((resolve) => (redis.status === 'ready' ? resolve() : redis.once('ready', () => resolve())));
    const limiter = createLimiter({ redis, keyPrefix: name, points: 5, durationSec: 60 });
    await limiter.consume('k1');
    assert.deepEqual(await raw.keys(`${prefix}${name}*`), [`${prefix}${name}:k1`]);
    assert.deepEqual(await raw.keys(`${name}*`), []);
  } finally {
    redis.disconnect();
    raw.disconnect();
  }
  assert.throws(() => loadConfig({ REDIS_KEY_PREFIX: 'has space' }, { dataDir: 'memory://' }), /REDIS_KEY_PREFIX/);
  assert.equal(loadConfig({ REDIS_KEY_PREFIX: 'shop-a:' }, { dataDir: 'memory://' }).redisKeyPrefix, 'shop-a:');
});

test('a 403 (scope or IP) is a call: it carries the rate-limit headers and counts toward the key limit', async () => {
  const t = await createTestApp({ config: { rateLimitPerMinute: 3 }, extraModules: [platformTestRoutes().mod] });
  try {
    const s = await createTestStore(t);
    const noScope = await s.newKey({ scopes: ['products:read'] });
    for (let i = 1; i <= 3; i++) {
      const res = await t.app.inject({ url: '/v1/test/whoami', headers: bearer(noScope.key) });
      assert.equal(res.statusCode, 403, `call ${i}`);
      assert.equal(res.json().code, 'API_KEY_SCOPE_MISSING');
      assert.equal(res.headers['x-ratelimit-limit'], '3');
      assert.equal(res.headers['x-ratelimit-remaining'], String(3 - i));
      assert.ok(res.headers['x-ratelimit-reset']);
    }
    const limited = await t.app.inject({ url: '/v1/test/whoami', headers: bearer(noScope.key) });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, 'RATE_LIMITED');

    const fenced = await s.newKey({ ipAllowlist: ['203.0.113.0/24'] });
    for (let i = 1; i <= 3; i++) {
      const res = await t.app.inject({ url: '/v1/test/whoami', headers: bearer(fenced.key), remoteAddress: '198.51.100.1' });
      assert.equal(res.statusCode, 403, `call ${i}`);
      assert.equal(res.json().code, 'API_KEY_IP_NOT_ALLOWED');
      assert.equal(res.headers['x-ratelimit-remaining'], String(3 - i));
    }
    const fromAllowed = await t.app.inject({ url: '/v1/test/whoami', headers: bearer(fenced.key), remoteAddress: '203.0.113.7' });
    assert.equal(fromAllowed.statusCode, 429, 'the refused calls spent the key budget');
  } finally {
    await t.close();
  }
});
