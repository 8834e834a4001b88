import { test } from 'node:test';
import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { createTestStore, type TestApp } from '../helpers/app';
import { createLicenseTestApp, licensed, nonce } from './factory';

const verify = (t: TestApp, body: Record<string, unknown>, ip = '203.0.113.10') =>
  t.app.inject({ method: 'POST', url: '/v1/licenses/verify', payload: body, remoteAddress: ip });

test('per license key: above LICENSE_RATE_LIMIT_PER_MINUTE the answer is 429 LICENSE_RATE_LIMITED with Retry-After, unsigned', async () => {
  const t = await createLicenseTestApp({ config: { licenseRateLimitPerMinute: 3, licenseIpRateLimitPerMinute: 1000 } });
  try {
    const s = await createTestStore(t);
    const a = await licensed(t, s.storeId);
    const b = await licensed(t, s.storeId);
    // the same key from different addresses still counts together
    for (let i = 0; i < 3; i++) assert.equal((await verify(t, { key: a.key, productId: a.productId, nonce: nonce() }, `198.51.100.${i + 1}`)).statusCode, 200);
    const limited = await verify(t, { key: a.key.toLowerCase(), productId: a.productId, nonce: nonce() }, '198.51.100.9');
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, 'LICENSE_RATE_LIMITED');
    const retry = Number(limited.headers['retry-after']);
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${limited.headers['retry-after']}`);
    assert.equal(limited.headers['service-signature'], undefined);
    // another key is not affected
    assert.equal((await verify(t, { key: b.key, productId: b.productId, nonce: nonce() })).statusCode, 200);
  } finally {
    await t.close();
  }
});

test('per client address: above LICENSE_IP_RATE_LIMIT_PER_MINUTE the answer is 429 LICENSE_RATE_LIMITED, whatever the body', async () => {
  const t = await createLicenseTestApp({ config: { licenseRateLimitPerMinute: 1000, licenseIpRateLimitPerMinute: 4 } });
  try {
    const s = await createTestStore(t);
    const a = await licensed(t, s.storeId);
    for (let i = 0; i < 3; i++) assert.equal((await verify(t, { key: a.key, productId: a.productId, nonce: nonce() })).statusCode, 200);
    // malformed requests spend the address's budget as well
    assert.equal((await verify(t, { key: a.key })).statusCode, 400);
    const limited = await verify(t, { key: a.key, productId: a.productId, nonce: nonce() });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, 'LICENSE_RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal(limited.headers['service-signature'], undefined);
    // another address is not affected; an IPv6 neighbour in the same /64 shares one budget
    assert.equal((await verify(t, { key: a.key, productId: a.productId, nonce: nonce() }, '203.0.113.11')).statusCode, 200);
    for (let i = 0; i < 4; i++) await verify(t, { key: a.key, productId: a.productId, nonce: nonce() }, `2001:db8:0:1::${i + 1}`);
    assert.equal((await verify(t, { key: a.key, productId: a.productId, nonce: nonce() }, '2001:db8:0:1::ffff')).statusCode, 429);
  } finally {
    await t.close();
  }
});

test('an address with more than LICENSE_NOT_FOUND_LIMIT not_found answers is blocked with 429 LICENSE_LOOKUP_BLOCKED, even for valid keys', async () => {
  const t = await createLicenseTestApp({ config: { licenseNotFoundLimit: 5, licenseNotFoundWindowSeconds: 600, licenseNotFoundBlockSeconds: 900, licenseIpRateLimitPerMinute: 1000, licenseRateLimitPerMinute: 1000 } });
  try {
    const s = await createTestStore(t);
    const a = await licensed(t, s.storeId);
    const guess = (i: number) => ({ key: `GUESS-${String(i).padStart(5, '0')}`, productId: a.productId, nonce: nonce() });
    for (let i = 0; i < 5; i++) {
      const r = await verify(t, guess(i));
      assert.equal(r.statusCode, 200);
      assert.equal(r.json().status, 'not_found');
    }
    // found keys do not count towards the limit
    assert.equal((await verify(t, { key: a.key, productId: a.productId, nonce: nonce() })).statusCode, 200);

    const sixth = await verify(t, guess(6));
    assert.equal(sixth.statusCode, 429);
    assert.equal(sixth.json().code, 'LICENSE_LOOKUP_BLOCKED');
    assert.equal(sixth.headers['service-signature'], undefined);
    const retry = Number(sixth.headers['retry-after']);
    assert.ok(retry > 800 && retry <= 900, `Retry-After ${retry} ≈ the block of 900 s`);

    for (const path of ['verify', 'activate'] as const) {
      const blocked = await t.app.inject({ method: 'POST', url: `/v1/licenses/${path}`, payload: { key: a.key, productId: a.productId, nonce: nonce() }, remoteAddress: '203.0.113.10' });
      assert.equal(blocked.statusCode, 429, path);
      assert.equal(blocked.json().code, 'LICENSE_LOOKUP_BLOCKED');
      assert.ok(Number(blocked.headers['retry-after']) >= 1);
    }
    // other addresses keep working
    assert.equal((await verify(t, { key: a.key, productId: a.productId, nonce: nonce() }, '203.0.113.99')).json().status, 'active');
  } finally {
    await t.close();
  }
});

test('with Redis, two instances count the key budget and the not_found block together', { skip: process.env.REDIS_URL ? false : 'REDIS_URL not set' }, async () => {
  const masterKey = randomBytes(32);
  const config = { masterKey, licenseRateLimitPerMinute: 4, licenseIpRateLimitPerMinute: 1000, licenseNotFoundLimit: 3 };
  const a = await createLicenseTestApp({ redis: true, config });
  const b = await createLicenseTestApp({ database: a.deps.database, redis: true, config });
  try {
    const s = await createTestStore(a);
    const lic = await licensed(a, s.storeId);
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await verify(i % 2 ? b : a, { key: lic.key, productId: lic.productId, nonce: nonce() }, randomIp())).statusCode);
    assert.deepEqual(codes, [200, 200, 200, 200, 429, 429]);

    // Redis outlives test runs: a fresh random address keeps reruns independent.
    const ip = randomIp();
    const nf: number[] = [];
    for (let i = 0; i < 4; i++) nf.push((await verify(i % 2 ? b : a, { key: `NOPE-${i}-${ip}`, productId: lic.productId, nonce: nonce() }, ip)).statusCode);
    assert.deepEqual(nf, [200, 200, 200, 429]);
    assert.equal((await verify(a, { key: 'ANY', productId: lic.productId, nonce: nonce() }, ip)).json().code, 'LICENSE_LOOKUP_BLOCKED');
  } finally {
    await b.close();
    await a.close();
  }
});

test('with Redis, a verify spends one Redis round trip for its limits, and the address limit holds there too', { skip: process.env.REDIS_URL ? false : 'REDIS_URL not set' }, async () => {
  const t = await createLicenseTestApp({ redis: true, config: { licenseRateLimitPerMinute: 1000, licenseIpRateLimitPerMinute: 3 } });
  try {
    const s = await createTestStore(t);
    const lic = await licensed(t, s.storeId);
    const redis = t.deps.redis!;
    let commands = 0;
    const send = redis.sendCommand.bind(redis);
    (redis as any).sendCommand = (...args: any[]) => {
      commands++;
      return send(...(args as [any]));
    };
    const ip = randomIp();
    // The first call may load the script (EVALSHA answered NOSCRIPT, then EVAL); every later one is a single EVALSHA.
    assert.equal((await verify(t, { key: lic.key, productId: lic.productId, nonce: nonce() }, ip)).json().status, 'active');
    commands = 0;
    const second = await verify(t, { key: lic.key, productId: lic.productId, nonce: nonce() }, ip);
    assert.equal(second.json().status, 'active');
    assert.equal(commands, 1, 'address check and key check in one round trip');
    assert.equal((await verify(t, { key: lic.key, productId: lic.productId, nonce: nonce() }, ip)).statusCode, 200);
    const limited = await verify(t, { key: lic.key, productId: lic.productId, nonce: nonce() }, ip);
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, 'LICENSE_RATE_LIMITED');
    const retry = Number(limited.headers['retry-after']);
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
  } finally {
    await t.close();
  }
});

function randomIp(): string {
  const b = randomBytes(3);
  return `10.${b[0]}.${b[1]}.${b[2]}`;
}
