import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestStore, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/app';
import { HOUR, MINUTE } from '../../src/platform/clock';
import { createLicenseTestApp, licensed, nonce, parseSignatureHeader, signingKeys, verifySignature } from './factory';

const operator = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const verify = (t: TestApp, key: string, productId: string) =>
  t.app.inject({ method: 'POST', url: '/v1/licenses/verify', payload: { key, productId, nonce: nonce() } });

test('the signing-keys list has the raw 32-byte Ed25519 public key, kid and createdAt; private keys are stored sealed', async () => {
  const t = await createLicenseTestApp();
  try {
    const res = await t.app.inject({ method: 'GET', url: '/v1/licenses/signing-keys' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['cache-control']), /max-age=60/);
    const { keys } = res.json();
    assert.equal(keys.length, 1);
    assert.deepEqual(Object.keys(keys[0]), ['kid', 'publicKey', 'createdAt']);
    assert.equal(Buffer.from(keys[0].publicKey, 'base64').length, 32);
    assert.equal(keys[0].createdAt, t.clock.now().toISOString());

    const row = await t.db.selectFrom('signing_keys').selectAll().executeTakeFirstOrThrow();
    assert.match(row.private_key_sealed, /^v1\./, 'sealed with the master key (AES-256-GCM)');
    assert.ok(!row.private_key_sealed.includes('PRIVATE KEY'));
    // a second app on the same database with another master key cannot use it: the seal is bound to the key
    const other = await createLicenseTestApp({ database: t.deps.database, clock: t.clock, config: { masterKey: randomBytes(32) } });
    try {
      const s = await createTestStore(other);
      const lic = await licensed(other, s.storeId);
      const r = await verify(other, lic.key, lic.productId);
      assert.equal(r.statusCode, 500, 'the sealed private key does not open under another master key');
    } finally {
      await other.close();
    }
  } finally {
    await t.close();
  }
});

test('rotation: the new key is listed at once, signs from 5 minutes later; answers from the old and the new key both verify', async () => {
  const t = await createLicenseTestApp();
  try {
    const s = await createTestStore(t);
    const lic = await licensed(t, s.storeId);
    const before = await verify(t, lic.key, lic.productId);
    const oldKid = parseSignatureHeader(before.headers['service-signature'] as string)!.kid;

    t.clock.advance(HOUR);
    const rot = await t.app.inject({ method: 'POST', url: '/admin/v1/signing-keys/rotate', headers: operator, payload: {} });
    assert.equal(rot.statusCode, 201);
    const newKey = rot.json();
    assert.equal(newKey.state, 'scheduled');
    assert.equal(newKey.listed, true);
    assert.equal(newKey.signsFrom, new Date(t.clock.now().getTime() + 5 * MINUTE).toISOString());
    assert.notEqual(newKey.kid, oldKid);

    // published before it signs: the list already has both, the old key still signs
    const listed = await signingKeys(t);
    assert.deepEqual([...listed.keys()], [newKey.kid, oldKid], 'newest first');
    const during = await verify(t, lic.key, lic.productId);
    assert.equal(parseSignatureHeader(during.headers['service-signature'] as string)!.kid, oldKid);

    t.clock.advance(5 * MINUTE);
    const after = await verify(t, lic.key, lic.productId);
    assert.equal(parseSignatureHeader(after.headers['service-signature'] as string)!.kid, newKey.kid);

    // both answers verify against the list as it is now
    const keys = await signingKeys(t);
    assert.equal(await verifySignature(keys, before.headers['service-signature'] as string, before.rawPayload), true);
    assert.equal(await verifySignature(keys, after.headers['service-signature'] as string, after.rawPayload), true);
    // and an answer by the old key does not verify under the new key
    const forged = (before.headers['service-signature'] as string).replace(oldKid, newKey.kid);
    assert.equal(await verifySignature(keys, forged, before.rawPayload), false);

    const admin = await t.app.inject({ method: 'GET', url: '/admin/v1/signing-keys', headers: operator });
    assert.equal(admin.statusCode, 200);
    const [n, o] = admin.json().keys;
    assert.deepEqual([n.kid, n.state, o.kid, o.state], [newKey.kid, 'active', oldKid, 'retired']);
    assert.equal(o.stopsSigningAt, newKey.signsFrom);
    assert.equal(o.listedUntil, new Date(new Date(newKey.signsFrom).getTime() + 24 * HOUR).toISOString());

    // the old key stays listed for 24 hours after it stopped signing, then leaves the list
    t.clock.advance(24 * HOUR - 1);
    assert.deepEqual([...(await signingKeys(t)).keys()], [newKey.kid, oldKid]);
    t.clock.advance(1);
    assert.deepEqual([...(await signingKeys(t)).keys()], [newKey.kid]);
  } finally {
    await t.close();
  }
});

test('a rotation made by another instance is picked up without a restart', async () => {
  const t = await createLicenseTestApp();
  const other = await createLicenseTestApp({ database: t.deps.database, clock: t.clock, config: { masterKey: t.deps.config.masterKey } });
  try {
    const s = await createTestStore(t);
    const lic = await licensed(t, s.storeId);
    const first = parseSignatureHeader((await verify(t, lic.key, lic.productId)).headers['service-signature'] as string)!.kid;
    const rot = await other.app.inject({ method: 'POST', url: '/admin/v1/signing-keys/rotate', headers: operator, payload: {} });
    assert.equal(rot.statusCode, 201);
    t.clock.advance(5 * MINUTE);
    const kid = parseSignatureHeader((await verify(t, lic.key, lic.productId)).headers['service-signature'] as string)!.kid;
    assert.notEqual(kid, first);
    assert.equal(kid, rot.json().kid);
  } finally {
    await other.close();
    await t.close();
  }
});

test('signing keys are the operator\'s: store owners and API keys cannot list or rotate them', async () => {
  const t = await createLicenseTestApp();
  try {
    const s = await createTestStore(t);
    for (const headers of [{ authorization: `Bearer ${s.ownerToken}` }, { authorization: `Bearer ${s.key}` }, {}]) {
      assert.equal((await t.app.inject({ method: 'POST', url: '/admin/v1/signing-keys/rotate', headers, payload: {} })).statusCode, 401);
      assert.equal((await t.app.inject({ method: 'GET', url: '/admin/v1/signing-keys', headers })).statusCode, 401);
    }
    assert.equal((await t.db.selectFrom('signing_keys').select('kid').execute()).length <= 1, true);
  } finally {
    await t.close();
  }
});
