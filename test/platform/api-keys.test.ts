import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { platformTestRoutes } from '../helpers/test-routes';
import { checksumOf, generateApiKey, parseApiKey } from '../../src/platform/api-key-format';
import { HOUR } from '../../src/platform/clock';
import { ipAllowed } from '../../src/platform/http/auth';

let t: TestApp;
let s: TestStore;
const routes = platformTestRoutes();
before(async () => {
  t = await createTestApp({ extraModules: [routes.mod] });
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const whoami = (headers: Record<string, string> = {}, remoteAddress?: string) => t.app.inject({ url: '/v1/test/whoami', headers, remoteAddress });

describe('key format', () => {
  test('a generated key is svc_<mode>_ + 32 base62 + 6 base62 CRC-32 checksum and parses back', () => {
    const k = generateApiKey('live');
    assert.match(k.plaintext, /^svc_live_[0-9A-Za-z]{38}$/);
    const body = k.plaintext.slice(9, 41);
    assert.equal(k.plaintext.slice(41), checksumOf(body));
    assert.equal(parseApiKey(k.plaintext)?.mode, 'live');
  });
  test('a single changed character fails the checksum', () => {
    const k = generateApiKey('test').plaintext;
    const flipped = k.slice(0, 20) + (k[20] === 'a' ? 'b' : 'a') + k.slice(21);
    assert.equal(parseApiKey(flipped), null);
  });
});

describe('401 API_KEY_INVALID is identical for every failure', () => {
  test('missing, malformed, bad checksum, unknown, legacy forms, revoked and expired all give the same bytes', async () => {
    const unknown = generateApiKey('test').plaintext;
    const revoked = await s.newKey();
    await t.app.inject({ method: 'POST', url: `/admin/v1/api-keys/${revoked.id}/revoke`, headers: bearer(s.ownerToken) });
    const badChecksum = s.key.slice(0, -1) + (s.key.endsWith('0') ? '1' : '0');
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Bearer nonsense' },
      { authorization: `Basic ${s.key}` },
      { authorization: `Bearer ${badChecksum}` },
      { authorization: `Bearer ${unknown}` },
      { 'x-api-key': s.key },
      { authorization: `Bearer pk_test_${s.key.slice(9)}` },
      { authorization: `Bearer ${revoked.key}` },
      { authorization: `Bearer ${s.key.replace('svc_test_', 'svc_live_')}` },
    ];
    const bodies = new Set<string>();
    for (const headers of cases) {
      const res = await whoami(headers);
      assert.equal(res.statusCode, 401, JSON.stringify(headers));
      bodies.add(res.body);
      assert.equal(res.headers['service-key-deprecated'], undefined);
    }
    assert.equal(bodies.size, 1);
    assert.deepEqual(JSON.parse([...bodies][0]), { statusCode: 401, code: 'API_KEY_INVALID', message: 'API 키가 올바르지 않습니다.' });
  });
});

test('a key without the route scope gets 403 API_KEY_SCOPE_MISSING naming the scope', async () => {
  const k = await s.newKey({ scopes: ['products:read'] });
  const res = await whoami(bearer(k.key));
  assert.equal(res.statusCode, 403);
  assert.equal(res.json().code, 'API_KEY_SCOPE_MISSING');
  assert.deepEqual(res.json().details, { required: ['orders:read'] });
});

describe('IP allow-list', () => {
  test('an address inside an allowed CIDR passes; one outside gets 403 API_KEY_IP_NOT_ALLOWED', async () => {
    const k = await s.newKey({ ipAllowlist: ['203.0.113.0/24', '2001:db8::/32'] });
    assert.equal((await whoami(bearer(k.key), '203.0.113.7')).statusCode, 200);
    assert.equal((await whoami(bearer(k.key), '2001:db8::1')).statusCode, 200);
    assert.equal((await whoami(bearer(k.key), '::ffff:203.0.113.9')).statusCode, 200, 'IPv4-mapped IPv6 matches the IPv4 range');
    const out = await whoami(bearer(k.key), '198.51.100.1');
    assert.equal(out.statusCode, 403);
    assert.equal(out.json().code, 'API_KEY_IP_NOT_ALLOWED');
  });

  test('X-Forwarded-For is ignored without a trusted proxy', async () => {
    const k = await s.newKey({ ipAllowlist: ['203.0.113.0/24'] });
    const res = await whoami({ ...bearer(k.key), 'x-forwarded-for': '203.0.113.7' }, '10.0.0.5');
    assert.equal(res.statusCode, 403);
  });

  test('X-Forwarded-For decides the address when the proxy is trusted', async () => {
    const proxied = await createTestApp({ database: t.deps.database, config: { trustProxy: '10.0.0.0/8' }, extraModules: [platformTestRoutes().mod] });
    try {
      const k = await s.newKey({ ipAllowlist: ['203.0.113.0/24'] });
      const ok = await proxied.app.inject({ url: '/v1/test/whoami', headers: { ...bearer(k.key), 'x-forwarded-for': '203.0.113.7' }, remoteAddress: '10.0.0.5' });
      assert.equal(ok.statusCode, 200);
      const refused = await proxied.app.inject({ url: '/v1/test/whoami', headers: { ...bearer(k.key), 'x-forwarded-for': '198.51.100.1' }, remoteAddress: '10.0.0.5' });
      assert.equal(refused.statusCode, 403);
      // A forwarded header from an untrusted peer is not believed.
      const spoofed = await proxied.app.inject({ url: '/v1/test/whoami', headers: { ...bearer(k.key), 'x-forwarded-for': '203.0.113.7' }, remoteAddress: '198.51.100.9' });
      assert.equal(spoofed.statusCode, 403);
    } finally {
      await proxied.close();
    }
  });
});

describe('rotation and revocation', () => {
  test('the old key works with Service-Key-Deprecated during the grace period, then gets 401', async () => {
    const old = await s.newKey();
    const rot = await t.app.inject({ method: 'POST', url: `/admin/v1/api-keys/${old.id}/rotate`, headers: bearer(s.ownerToken), payload: {} });
    assert.equal(rot.statusCode, 200);
    const { secret, previous, apiKey } = rot.json();
    assert.equal(previous.status, 'rotating');
    assert.equal(previous.rotatedTo, apiKey.id);
    const expiry = new Date(t.clock.now().getTime() + 24 * HOUR).toISOString();
    assert.equal(previous.expiresAt, expiry);

    const during = await whoami(bearer(old.key));
    assert.equal(during.statusCode, 200);
    assert.equal(during.headers['service-key-deprecated'], expiry);
    const fresh = await whoami(bearer(secret));
    assert.equal(fresh.statusCode, 200);
    assert.equal(fresh.headers['service-key-deprecated'], undefined);

    t.clock.advance(24 * HOUR - 1);
    assert.equal((await whoami(bearer(old.key))).statusCode, 200);
    t.clock.advance(1);
    assert.equal((await whoami(bearer(old.key))).statusCode, 401);
    assert.equal((await whoami(bearer(secret))).statusCode, 200);
  });

  test('a custom grace period is honoured and a rotated key cannot be rotated again', async () => {
    const old = await s.newKey();
    const rot = await t.app.inject({ method: 'POST', url: `/admin/v1/api-keys/${old.id}/rotate`, headers: bearer(s.ownerToken), payload: { graceHours: 1 } });
    assert.equal(rot.json().previous.expiresAt, new Date(t.clock.now().getTime() + HOUR).toISOString());
    const again = await t.app.inject({ method: 'POST', url: `/admin/v1/api-keys/${old.id}/rotate`, headers: bearer(s.ownerToken), payload: {} });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().code, 'API_KEY_NOT_ACTIVE');
  });

  test('revocation is immediate', async () => {
    const k = await s.newKey();
    assert.equal((await whoami(bearer(k.key))).statusCode, 200);
    const res = await t.app.inject({ method: 'POST', url: `/admin/v1/api-keys/${k.id}/revoke`, headers: bearer(s.ownerToken) });
    assert.equal(res.json().status, 'revoked');
    assert.equal((await whoami(bearer(k.key))).statusCode, 401);
  });
});

test('the key decides store, mode and product range', async () => {
  const live = await s.newKey({ mode: 'live', productIds: ['prd_a'] });
  const res = await whoami(bearer(live.key));
  assert.deepEqual(res.json(), { storeId: s.storeId, mode: 'live', keyId: live.id, productIds: ['prd_a'], note: null });
  const other = await createTestStore(t);
  assert.equal((await whoami(bearer(other.key))).json().storeId, other.storeId);
});

test('the console shows when a key was last used', async () => {
  const k = await s.newKey();
  const listed = async () => (await t.app.inject({ url: '/admin/v1/api-keys?limit=100', headers: bearer(s.ownerToken) })).json().data.find((x: any) => x.id === k.id);
  assert.equal((await listed()).lastUsedAt, null);
  await whoami(bearer(k.key));
  let seen = null;
  for (let i = 0; i < 50 && !seen; i++) {
    seen = (await listed()).lastUsedAt;
    if (!seen) await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(seen, t.clock.now().toISOString());
});

test('keys are stored only as a hash', async () => {
  const rows = await t.db.selectFrom('api_keys').selectAll().where('store_id', '=', s.storeId).execute();
  for (const r of rows) {
    assert.match(r.key_hash, /^[0-9a-f]{64}$/);
    assert.ok(!JSON.stringify(r).includes(s.key.slice(9)));
  }
});

describe('IP allow-list entries must be canonical', () => {
  const createKey = (ipAllowlist: string[]) =>
    t.app.inject({ method: 'POST', url: '/admin/v1/api-keys', headers: bearer(s.ownerToken), payload: { mode: 'test', name: 'ip', scopes: ['orders:read'], ipAllowlist } });

  const accepted: Array<[string, string]> = [
    ['10.1.2.3', '10.1.2.3'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['255.255.255.255', '255.255.255.255'],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['192.168.0.1/32', '192.168.0.1/32'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8::/32', '2001:db8::/32'],
    ['2001:db8::1/128', '2001:db8::1/128'],
    ['::1', '::1'],
    ['::/0', '::/0'],
    ['::ffff:1.2.3.4', '::ffff:1.2.3.4'],
    ['0:0:0:0:0:ffff:0102:0304', '::ffff:1.2.3.4'],
    ['::1.2.3.4', '::102:304'],
    ['FE80::1', 'fe80::1'],
  ];
  const refused = [
    '010.1.2.3',
    '10.01.2.3',
    '0x0a.1.2.3',
    '0xa010203',
    '10.1.2',
    '10.1',
    '167772161',
    '256.1.2.3',
    '10.1.2.3/33',
    '10.1.2.3/08',
    '10.1.2.3/',
    '10.1.2.3/8/8',
    ' 10.1.2.3',
    '2001:db8::/129',
    '2001:db8::1%eth0',
    '::ffff:010.1.2.3',
    '12345::1',
    '1:2:3:4:5:6:7:8:9',
    '2001:db8::g',
    '1::2::3',
    'localhost',
  ];

  test('canonical IPv4 and any RFC 4291 IPv6 form are accepted; IPv6 is stored and shown in RFC 5952 form', async () => {
    for (const [typed, shown] of accepted) {
      const res = await createKey([typed]);
      assert.equal(res.statusCode, 201, `${typed}: ${res.body}`);
      assert.deepEqual(res.json().apiKey.ipAllowlist, [shown], typed);
      const row = await t.db.selectFrom('api_keys').select('ip_allowlist').where('id', '=', res.json().apiKey.id).executeTakeFirstOrThrow();
      assert.deepEqual(row.ip_allowlist, [shown], `${typed} stored canonical`);
    }
  });

  test('legacy and malformed forms are refused with VALIDATION_FAILED naming the entry', async () => {
    for (const typed of refused) {
      const res = await createKey(['10.0.0.0/8', typed]);
      assert.equal(res.statusCode, 400, typed);
      assert.equal(res.json().code, 'VALIDATION_FAILED');
      assert.deepEqual(res.json().details.fields.map((f: any) => f.field), ['ipAllowlist.1'], typed);
    }
  });

  test('a canonicalised IPv6 entry is enforced; a legacy entry already stored matches nothing', async () => {
    const k = await s.newKey({ ipAllowlist: ['2001:0DB8:0000::/48'] });
    assert.equal((await whoami(bearer(k.key), '2001:db8::5')).statusCode, 200);
    assert.equal((await whoami(bearer(k.key), '2001:db9::5')).statusCode, 403);
    assert.equal(ipAllowed('8.1.2.3', ['010.1.2.3']), false, 'octal-looking entry is not read as 8.1.2.3');
    assert.equal(ipAllowed('10.1.2.3', ['010.1.2.3']), false);
    assert.equal(ipAllowed('10.1.2.3', ['::ffff:10.1.2.0/120']), true, 'IPv4-mapped range applies to IPv4 clients');
  });
});
