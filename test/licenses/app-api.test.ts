import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { MINUTE, DAY } from '../../src/platform/clock';
import { keyFingerprint } from '../../src/licenses/keys';
import { createLicenseTestApp, createProduct, licensed, nonce, paidOrder, licenseOf, signingKeys, verifySignature } from './factory';

let t: TestApp;
let s: TestStore;
before(async () => {
  t = await createLicenseTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const call = (path: 'activate' | 'deactivate' | 'verify', body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `/v1/licenses/${path}`, payload: body, headers: { 'content-type': 'application/json', ...headers } });

test('a verify answer is signed over the exact body bytes with a key from the signing-keys list; a changed byte fails', async () => {
  const { key, productId } = await licensed(t, s.storeId);
  const n = nonce();
  const res = await call('verify', { key, productId, nonce: n });
  assert.equal(res.statusCode, 200);
  assert.match(res.headers['content-type'] as string, /^application\/json/);
  const header = res.headers['service-signature'] as string;
  assert.match(header, /^kid="lsk_[0-9a-z]+", alg="ed25519", sig="[A-Za-z0-9+/]{86}=="$/);

  const keys = await signingKeys(t);
  const raw = res.rawPayload;
  assert.equal(await verifySignature(keys, header, raw), true);

  // one changed byte anywhere: the signature no longer holds
  for (const i of [0, Math.floor(raw.length / 2), raw.length - 1]) {
    const tampered = Buffer.from(raw);
    tampered[i] ^= 0x01;
    assert.equal(await verifySignature(keys, header, tampered), false, `byte ${i} changed`);
  }
  // a valid body re-serialized differently (whitespace) is not what was signed either
  assert.equal(await verifySignature(keys, header, JSON.stringify(res.json(), null, 1)), false);

  const body = res.json();
  // the contract's fields in its order, then the two additions that say what the answer is about
  assert.deepEqual(Object.keys(body), ['status', 'expiresAt', 'maxActivations', 'activationCount', 'mode', 'activation', 'nonce', 'issuedAt', 'productId', 'keyFingerprint']);
  assert.equal(body.productId, productId);
  assert.equal(body.keyFingerprint, keyFingerprint(key));
  assert.match(body.keyFingerprint, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(raw.includes(Buffer.from(key)), false, 'the key itself is not in the answer');
  assert.equal(body.status, 'active');
  assert.equal(body.nonce, n);
  assert.equal(body.issuedAt, t.clock.now().toISOString());
  assert.equal(body.mode, 'test');
  assert.equal(body.maxActivations, 3);
  assert.equal(body.activationCount, 0);
  assert.equal(body.activation, null);
  assert.equal(body.expiresAt, null);
});

test('the app API needs no API key and no Idempotency-Key, and browsers may call it from any origin', async () => {
  const { key, productId } = await licensed(t, s.storeId);
  const pre = await t.app.inject({
    method: 'OPTIONS',
    url: '/v1/licenses/activate',
    headers: { origin: 'https://app.example.net', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
  assert.ok(pre.statusCode === 204 || pre.statusCode === 200);
  assert.equal(pre.headers['access-control-allow-origin'], '*');
  const res = await call('activate', { key, productId, nonce: nonce() }, { origin: 'https://app.example.net' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['access-control-allow-origin'], '*');
  assert.match(String(res.headers['access-control-expose-headers']), /Service-Signature/);
  const keysRes = await t.app.inject({ method: 'GET', url: '/v1/licenses/signing-keys', headers: { origin: 'https://app.example.net' } });
  assert.equal(keysRes.headers['access-control-allow-origin'], '*');
});

test('server-to-server routes give browsers no CORS grant (only the app API and signing keys do)', async () => {
  const origin = { origin: 'https://evil.example.net' };
  for (const url of ['/v1/orders', '/v1/products', '/health', '/v1/openapi.json']) {
    const res = await t.app.inject({ method: 'GET', url, headers: { ...origin, authorization: `Bearer ${s.key}` } });
    assert.equal(res.headers['access-control-allow-origin'], undefined, url);
  }
  const pre = await t.app.inject({
    method: 'OPTIONS',
    url: '/v1/checkout/sessions',
    headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
  });
  assert.equal(pre.headers['access-control-allow-origin'], undefined);
});

test('the key is matched ignoring case and surrounding or inner spaces', async () => {
  const { key, productId } = await licensed(t, s.storeId);
  const res = await call('verify', { key: ` ${key.toLowerCase().replace(/-/g, '- ')} `, productId, nonce: nonce() });
  assert.equal(res.json().status, 'active');
});

test('status per state: active, expired (clock moved past expiresAt), revoked, pending, not_found', async () => {
  const { key, productId, licenseId } = await licensed(t, s.storeId, { validityDays: 30 });
  const v = async (k = key, p = productId) => (await call('verify', { key: k, productId: p, nonce: nonce() })).json();

  const active = await v();
  assert.equal(active.status, 'active');
  assert.equal(active.expiresAt, new Date(t.clock.now().getTime() + 30 * DAY).toISOString());

  const clock = t.clock.now();
  t.clock.advance(30 * DAY - 1);
  assert.equal((await v()).status, 'active', 'a millisecond before expiry');
  t.clock.advance(1);
  assert.equal((await v()).status, 'expired', 'at expiresAt');
  // an expired license gets no activation
  const act = await call('activate', { key, productId, nonce: nonce() });
  assert.equal(act.statusCode, 200);
  assert.equal(act.json().status, 'expired');
  assert.equal(act.json().activation, null);
  t.clock.set(clock);

  await t.db.updateTable('licenses').set({ status: 'revoked', revoked_at: t.clock.now() }).where('id', '=', licenseId).execute();
  assert.equal((await v()).status, 'revoked');
  const actRevoked = await call('activate', { key, productId, nonce: nonce() });
  assert.deepEqual([actRevoked.json().status, actRevoked.json().activation], ['revoked', null]);

  // A pending license has no key in normal operation; a row that is pending with a key is answered `pending`, no activation.
  await t.db.updateTable('licenses').set({ status: 'pending', revoked_at: null }).where('id', '=', licenseId).execute();
  assert.equal((await v()).status, 'pending');
  const actPending = await call('activate', { key, productId, nonce: nonce() });
  assert.deepEqual([actPending.json().status, actPending.json().activation], ['pending', null]);
  const rows = await t.db.selectFrom('license_activations').select('id').where('license_id', '=', licenseId).execute();
  assert.equal(rows.length, 0, 'no activation was created for a license that is not active');

  const nf = await call('verify', { key: 'NOPE0-NOPE0-NOPE0-NOPE0-NOPE0', productId, nonce: nonce() });
  assert.equal(nf.statusCode, 200);
  assert.ok(nf.headers['service-signature'], 'not_found is a normal, signed answer');
  assert.deepEqual(
    { ...(nf.json() as Record<string, unknown>), nonce: undefined, issuedAt: undefined },
    {
      status: 'not_found',
      expiresAt: null,
      maxActivations: null,
      activationCount: 0,
      mode: 'test',
      activation: null,
      nonce: undefined,
      issuedAt: undefined,
      productId,
      keyFingerprint: keyFingerprint('NOPE0-NOPE0-NOPE0-NOPE0-NOPE0'),
    },
  );
});

test('a key answers not_found for another product, and an unknown key takes its mode from the product it names', async () => {
  const a = await licensed(t, s.storeId);
  const other = await createProduct(t, s.storeId);
  assert.equal((await call('verify', { key: a.key, productId: other, nonce: nonce() })).json().status, 'not_found');
  const liveProduct = await createProduct(t, s.storeId, { mode: 'live' });
  assert.equal((await call('verify', { key: 'UNKNOWN-KEY', productId: liveProduct, nonce: nonce() })).json().mode, 'live');
  assert.equal((await call('verify', { key: 'UNKNOWN-KEY', productId: 'prod_does_not_exist', nonce: nonce() })).json().mode, 'test');
});

test('live licenses answer mode live on the same endpoints', async () => {
  const productId = await createProduct(t, s.storeId, { mode: 'live' });
  const lic = await licenseOf(t, await paidOrder(t, s.storeId, productId));
  const res = await call('verify', { key: lic.key!, productId, nonce: nonce() });
  assert.equal(res.json().mode, 'live');
  assert.equal(res.json().status, 'active');
});

test('activate creates an activation with its label; at the limit the answer is 409 MAX_ACTIVATIONS_REACHED; deactivate frees a slot', async () => {
  const { key, productId } = await licensed(t, s.storeId, { maxActivations: 2 });
  const a1 = await call('activate', { key, productId, nonce: nonce(), label: '사무실 PC' });
  assert.equal(a1.statusCode, 200);
  const b1 = a1.json();
  assert.equal(b1.status, 'active');
  assert.equal(b1.activationCount, 1);
  assert.match(b1.activation.id, /^act_/);
  assert.deepEqual({ ...b1.activation, id: undefined }, { id: undefined, label: '사무실 PC', activatedAt: t.clock.now().toISOString(), lastVerifiedAt: null, deactivatedAt: null });

  const a2 = (await call('activate', { key, productId, nonce: nonce() })).json();
  assert.equal(a2.activationCount, 2);
  assert.equal(a2.activation.label, null);

  const full = await call('activate', { key, productId, nonce: nonce() });
  assert.equal(full.statusCode, 409);
  assert.equal(full.json().code, 'MAX_ACTIVATIONS_REACHED');
  assert.equal(full.headers['service-signature'], undefined, 'errors are never signed');

  t.clock.advance(MINUTE);
  const d = await call('deactivate', { key, productId, nonce: nonce(), activationId: b1.activation.id });
  assert.equal(d.statusCode, 200);
  assert.ok(d.headers['service-signature']);
  assert.equal(d.json().activationCount, 1);
  assert.equal(d.json().activation.id, b1.activation.id);
  assert.equal(d.json().activation.deactivatedAt, t.clock.now().toISOString());

  // deactivating again is harmless and answers the same record
  const again = (await call('deactivate', { key, productId, nonce: nonce(), activationId: b1.activation.id })).json();
  assert.equal(again.activation.deactivatedAt, d.json().activation.deactivatedAt);
  assert.equal(again.activationCount, 1);
  // an activation id that is not this license's
  const unknown = (await call('deactivate', { key, productId, nonce: nonce(), activationId: 'act_unknown' })).json();
  assert.equal(unknown.activation, null);
  assert.equal(unknown.status, 'active');

  const a3 = await call('activate', { key, productId, nonce: nonce() });
  assert.equal(a3.statusCode, 200, 'the freed slot can be used again');
  assert.equal(a3.json().activationCount, 2);
});

test('20 concurrent activations against a limit of 3 give exactly 3 activations and 17 MAX_ACTIVATIONS_REACHED', async () => {
  const { key, productId, licenseId } = await licensed(t, s.storeId, { maxActivations: 3 });
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call('activate', { key, productId, nonce: nonce(), label: `device ${i}` })));
  const codes = results.map((r) => r.statusCode);
  assert.equal(codes.filter((c) => c === 200).length, 3);
  assert.equal(results.filter((r) => r.statusCode === 409 && r.json().code === 'MAX_ACTIVATIONS_REACHED').length, 17);
  const rows = await t.db.selectFrom('license_activations').select('id').where('license_id', '=', licenseId).execute();
  assert.equal(rows.length, 3);
});

test('an unlimited license (maxActivations null) accepts any number of activations', async () => {
  const { key, productId } = await licensed(t, s.storeId, { maxActivations: 0 });
  for (let i = 0; i < 5; i++) assert.equal((await call('activate', { key, productId, nonce: nonce() })).statusCode, 200);
  const v = (await call('verify', { key, productId, nonce: nonce() })).json();
  assert.equal(v.maxActivations, null);
  assert.equal(v.activationCount, 5);
});

test('verify with activationId updates lastVerifiedAt; a deactivated activation is answered unchanged', async () => {
  const { key, productId } = await licensed(t, s.storeId);
  const act = (await call('activate', { key, productId, nonce: nonce() })).json().activation;
  t.clock.advance(5 * MINUTE);
  const v1 = (await call('verify', { key, productId, nonce: nonce(), activationId: act.id })).json();
  assert.equal(v1.activation.id, act.id);
  assert.equal(v1.activation.lastVerifiedAt, t.clock.now().toISOString());
  assert.equal(v1.activationCount, 1);

  t.clock.advance(MINUTE);
  const read = await t.app.inject({ method: 'GET', url: `/v1/licenses?productId=${productId}`, headers: { authorization: `Bearer ${s.key}` } });
  assert.equal(read.json().data[0].activations[0].lastVerifiedAt, v1.activation.lastVerifiedAt, 'the server read shows the verify time');

  await call('deactivate', { key, productId, nonce: nonce(), activationId: act.id });
  const deactivatedAt = t.clock.now().toISOString();
  t.clock.advance(MINUTE);
  const v2 = (await call('verify', { key, productId, nonce: nonce(), activationId: act.id })).json();
  assert.equal(v2.activation.deactivatedAt, deactivatedAt);
  assert.equal(v2.activation.lastVerifiedAt, v1.activation.lastVerifiedAt);
  assert.equal(v2.activationCount, 0);
  assert.equal((await call('verify', { key, productId, nonce: nonce(), activationId: 'act_nope' })).json().activation, null);
});

test('request validation: unknown fields, missing fields and bad nonces are 400 VALIDATION_FAILED, unsigned', async () => {
  const { key, productId } = await licensed(t, s.storeId);
  const cases: Array<[string, 'activate' | 'deactivate' | 'verify', Record<string, unknown>, string]> = [
    ['unknown field', 'verify', { key, productId, nonce: nonce(), extra: 1 }, 'extra'],
    ['missing nonce', 'verify', { key, productId }, 'nonce'],
    ['missing key', 'activate', { productId, nonce: nonce() }, 'key'],
    ['missing activationId on deactivate', 'deactivate', { key, productId, nonce: nonce() }, 'activationId'],
    ['label on verify is not a field of verify', 'verify', { key, productId, nonce: nonce(), label: 'x' }, 'label'],
    ['nonce too short', 'verify', { key, productId, nonce: 'abc' }, 'nonce'],
    ['nonce: 21 hex digits', 'verify', { key, productId, nonce: 'a'.repeat(21) }, 'nonce'],
    ['nonce: 3 padding', 'activate', { key, productId, nonce: 'AbCdEfGhIjKlMnOpQrSt====' }, 'nonce'],
    ['nonce: not a string', 'verify', { key, productId, nonce: 12345678901234567890123 }, 'nonce'],
    ['apiKey-era field', 'verify', { key, productId, nonce: nonce(), apiKey: 'svc_test_x' }, 'apiKey'],
  ];
  for (const [name, path, body, field] of cases) {
    const res = await call(path, body);
    assert.equal(res.statusCode, 400, name);
    assert.equal(res.json().code, 'VALIDATION_FAILED', name);
    assert.ok(res.json().details.fields.some((f: { field: string }) => f.field === field), `${name}: ${JSON.stringify(res.json().details)}`);
    assert.equal(res.headers['service-signature'], undefined, `${name}: unsigned`);
  }
  const notJson = await t.app.inject({ method: 'POST', url: '/v1/licenses/verify', payload: '{"key":', headers: { 'content-type': 'application/json' } });
  assert.equal(notJson.statusCode, 400);
  assert.equal(notJson.headers['service-signature'], undefined);
});

test('each answer echoes its own nonce and carries the signing time', async () => {
  const { key, productId } = await licensed(t, s.storeId);
  const keys = await signingKeys(t);
  const n1 = nonce();
  const n2 = Buffer.from(nonce(), 'hex').toString('base64url');
  const r1 = await call('verify', { key, productId, nonce: n1 });
  t.clock.advance(90_000);
  const r2 = await call('verify', { key, productId, nonce: n2 });
  assert.equal(r1.json().nonce, n1);
  assert.equal(r2.json().nonce, n2);
  assert.equal(new Date(r2.json().issuedAt).getTime() - new Date(r1.json().issuedAt).getTime(), 90_000);
  assert.equal(await verifySignature(keys, r1.headers['service-signature'] as string, r1.rawPayload), true);
  assert.equal(await verifySignature(keys, r2.headers['service-signature'] as string, r2.rawPayload), true);
  // the signature of one answer does not cover another
  assert.equal(await verifySignature(keys, r1.headers['service-signature'] as string, r2.rawPayload), false);
});
