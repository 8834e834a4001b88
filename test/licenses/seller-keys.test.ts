// Issue 8 item 17: the contract says keys issued by a seller-side integration cannot be verified here. A license
// whose key came through license.issue is kept (server reads, console) but the app API answers it `not_found`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { keyFingerprint } from '../../src/licenses/keys';
import { addEndpoint, createLicenseTestApp, createProduct, licensed, licenseOf, nonce, paidOrder, signingKeys, startReceiver, verifySignature, type Receiver } from './factory';

let t: TestApp;
let s: TestStore;
let rx: Receiver;
before(async () => {
  t = await createLicenseTestApp();
  s = await createTestStore(t);
  rx = await startReceiver();
  await addEndpoint(t, s.storeId, rx.url);
});
after(async () => {
  await rx.close();
  await t.close();
});

const call = (path: 'activate' | 'deactivate' | 'verify', body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `/v1/licenses/${path}`, payload: body, headers: { 'content-type': 'application/json' } });

/** A seller-mode product bought once, its key answered by the seller's endpoint: an active seller-issued license. */
async function sellerLicense(key: string) {
  const productId = await createProduct(t, s.storeId, { licenseMode: 'seller', maxActivations: 2 });
  const orderId = await paidOrder(t, s.storeId, productId);
  rx.respond = (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ key }));
  await t.deps.worker.runOnce();
  const lic = await licenseOf(t, orderId);
  assert.deepEqual([lic.status, lic.issuer, lic.key], ['active', 'seller', key], 'the seller answered and the key is kept');
  return { productId, orderId, licenseId: lic.id, key };
}

test('a seller-issued license answers not_found, signed and bound, on activate, deactivate and verify, and no activation is made', async () => {
  const lic = await sellerLicense('SELLER-ISSUED-0001');
  const keys = await signingKeys(t);
  const typed = 'seller-issued-0001';
  for (const [path, extra] of [
    ['activate', { label: '노트북' }],
    ['verify', {}],
    ['verify', { activationId: 'act_any' }],
    ['deactivate', { activationId: 'act_any' }],
  ] as const) {
    const n = nonce();
    const res = await call(path, { key: typed, productId: lic.productId, nonce: n, ...extra });
    assert.equal(res.statusCode, 200, path);
    assert.equal(await verifySignature(keys, res.headers['service-signature'] as string, res.rawPayload), true, `${path}: signed like any 200`);
    assert.deepEqual(res.json(), {
      status: 'not_found',
      expiresAt: null,
      maxActivations: null,
      activationCount: 0,
      mode: 'test',
      activation: null,
      nonce: n,
      issuedAt: t.clock.now().toISOString(),
      productId: lic.productId,
      keyFingerprint: keyFingerprint(typed),
    });
  }
  const acts = await t.db.selectFrom('license_activations').select('id').where('license_id', '=', lic.licenseId).execute();
  assert.equal(acts.length, 0);

  // server reads and the console still show the license, active, with the seller's key
  const read = await t.app.inject({ url: `/v1/licenses/${lic.licenseId}`, headers: { authorization: `Bearer ${s.key}` } });
  assert.deepEqual([read.statusCode, read.json().status, read.json().key, read.json().maxActivations], [200, 'active', 'SELLER-ISSUED-0001', 2]);
  const list = await t.app.inject({ url: `/v1/licenses?productId=${lic.productId}`, headers: { authorization: `Bearer ${s.key}` } });
  assert.deepEqual(list.json().data.map((l: { id: string }) => l.id), [lic.licenseId]);
  const admin = await t.app.inject({ url: `/admin/v1/licenses/${lic.licenseId}`, headers: { authorization: `Bearer ${s.ownerToken}` } });
  assert.deepEqual([admin.json().status, admin.json().issuer, admin.json().key], ['active', 'seller', 'SELLER-ISSUED-0001']);
});

test('not_found holds whatever the seller-issued license\'s status; the decision follows who issued the key, not the product\'s current mode', async () => {
  const lic = await sellerLicense('SELLER-ISSUED-0002');
  await t.db.updateTable('licenses').set({ status: 'revoked', revoked_at: t.clock.now() }).where('id', '=', lic.licenseId).execute();
  assert.equal((await call('verify', { key: lic.key, productId: lic.productId, nonce: nonce() })).json().status, 'not_found');

  // the product switched to seller-side issuance: the keys the service issued earlier still verify here
  const svc = await licensed(t, s.storeId);
  await t.db.updateTable('products').set({ license_mode: 'seller' }).where('id', '=', svc.productId).execute();
  assert.equal((await call('verify', { key: svc.key, productId: svc.productId, nonce: nonce() })).json().status, 'active');
  // and seller-issued keys stay unverifiable after a switch to service-side issuance
  await t.db.updateTable('products').set({ license_mode: 'service' }).where('id', '=', lic.productId).execute();
  assert.equal((await call('verify', { key: lic.key, productId: lic.productId, nonce: nonce() })).json().status, 'not_found');
});
