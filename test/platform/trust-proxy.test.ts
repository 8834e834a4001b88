import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config';
import { createTestApp, createTestStore, bearer } from '../helpers/app';
import { platformTestRoutes } from '../helpers/test-routes';
import { createLicenseTestApp, licensed, nonce } from '../licenses/factory';

const env = (TRUST_PROXY: string) => ({ TRUST_PROXY, DATA_DIR: 'memory://', MASTER_KEY: 'a'.repeat(64) });

test('TRUST_PROXY=true is refused at start, saying to use a hop count or the proxies addresses', () => {
  for (const v of ['true', 'TRUE', 'yes', 'on']) {
    assert.throws(() => loadConfig(env(v)), (e: Error) => /TRUST_PROXY/.test(e.message) && /number of proxies|hop count/.test(e.message) && /addresses/.test(e.message), v);
  }
  assert.throws(() => loadConfig(env('10.0.0.0/8,not-an-address')), /TRUST_PROXY/);
  assert.equal(loadConfig(env('')).trustProxy, false);
  assert.equal(loadConfig(env('false')).trustProxy, false);
  assert.equal(loadConfig(env('1')).trustProxy, 1);
  assert.equal(loadConfig(env('2')).trustProxy, 2);
  assert.deepEqual(loadConfig(env('10.0.0.0/8, 192.168.1.5,loopback')).trustProxy, ['10.0.0.0/8', '192.168.1.5', 'loopback']);
});

test('TRUST_PROXY=1: a client-written left-most X-Forwarded-For entry does not decide the address', async () => {
  const t = await createTestApp({ config: { trustProxy: loadConfig(env('1')).trustProxy }, extraModules: [platformTestRoutes().mod] });
  try {
    const s = await createTestStore(t);
    const k = await s.newKey({ ipAllowlist: ['203.0.113.0/24'] });
    // The client wrote the allow-listed address; the one proxy appended the real peer (198.51.100.1).
    const spoofed = await t.app.inject({ url: '/v1/test/whoami', headers: { ...bearer(k.key), 'x-forwarded-for': '203.0.113.7, 198.51.100.1' }, remoteAddress: '10.0.0.5' });
    assert.equal(spoofed.statusCode, 403);
    assert.equal(spoofed.json().code, 'API_KEY_IP_NOT_ALLOWED');
    // The address the proxy saw decides: an allowed client behind the proxy passes, whatever it wrote itself.
    const real = await t.app.inject({ url: '/v1/test/whoami', headers: { ...bearer(k.key), 'x-forwarded-for': '198.51.100.1, 203.0.113.7' }, remoteAddress: '10.0.0.5' });
    assert.equal(real.statusCode, 200, real.body);
  } finally {
    await t.close();
  }
});

test('TRUST_PROXY=1: the license not_found limiter blocks an address even when the client rotates X-Forwarded-For', async () => {
  const t = await createLicenseTestApp({
    config: { trustProxy: 1, licenseNotFoundLimit: 5, licenseNotFoundWindowSeconds: 600, licenseNotFoundBlockSeconds: 900, licenseIpRateLimitPerMinute: 1000, licenseRateLimitPerMinute: 1000 },
  });
  try {
    const s = await createTestStore(t);
    const a = await licensed(t, s.storeId);
    const codes: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/licenses/verify',
        payload: { key: `GUESS-${String(i).padStart(5, '0')}`, productId: a.productId, nonce: nonce() },
        headers: { 'x-forwarded-for': `192.0.2.${i + 1}, 198.51.100.77` },
        remoteAddress: '10.0.0.5',
      });
      codes.push(res.statusCode);
      if (res.statusCode === 429) assert.equal(res.json().code, 'LICENSE_LOOKUP_BLOCKED');
    }
    assert.deepEqual(codes, [200, 200, 200, 200, 200, 429, 429, 429]);
  } finally {
    await t.close();
  }
});
