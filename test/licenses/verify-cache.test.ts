// POST /v1/licenses/verify reads the license through a per-process cache (src/licenses/verify-cache.ts). What an app
// relies on: the answer is never older than the last change it could know of, and status and expiry are decided at
// the moment of the request, cached row or not.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { DAY } from '../../src/platform/clock';
import { createLicenseTestApp, licenseNotificationsDelivered, licensed, nonce, statementsOf as statementsOfApp } from './factory';

let t: TestApp;
let s: TestStore;
before(async () => {
  // A cache that never expires on its own: only invalidation can make an answer change.
  t = await createLicenseTestApp({ config: { licenseCacheMs: 3_600_000 } });
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const call = (path: 'activate' | 'deactivate' | 'verify', body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `/v1/licenses/${path}`, payload: body, headers: { 'content-type': 'application/json' } });
const verify = async (key: string, productId: string, extra: Record<string, unknown> = {}) => {
  const res = await call('verify', { key, productId, nonce: nonce(), ...extra });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};
const statementsOf = (f: () => Promise<unknown>) => statementsOfApp(t, f);
const notificationsDelivered = () => licenseNotificationsDelivered(t);

test('a warm verify sends no statement, and expiry is still decided against the clock at request time', async () => {
  const { key, productId } = await licensed(t, s.storeId, { validityDays: 30 });
  await notificationsDelivered();
  assert.equal((await verify(key, productId)).status, 'active');
  let answer: any;
  assert.equal(await statementsOf(async () => (answer = await verify(key, productId))), 0);
  assert.equal(answer.status, 'active');
  t.clock.advance(31 * DAY);
  await verify(key, productId); // the signing-key list (cached for a minute of clock time) is read again here
  assert.equal(await statementsOf(async () => (answer = await verify(key, productId))), 0, 'served from the cache');
  assert.equal(answer.status, 'expired');
});

test('a revoked license answers revoked on the very next verify, with the cache warm', async () => {
  const { key, productId, licenseId } = await licensed(t, s.storeId);
  await verify(key, productId);
  assert.equal((await verify(key, productId)).status, 'active');
  const res = await t.app.inject({ method: 'POST', url: `/admin/v1/licenses/${licenseId}/revoke`, headers: { authorization: `Bearer ${s.ownerToken}` }, payload: { reason: 'chargeback' } });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal((await verify(key, productId)).status, 'revoked');
});

test('activations and deactivations change activationCount on the next verify', async () => {
  const { key, productId } = await licensed(t, s.storeId, { maxActivations: 5 });
  assert.equal((await verify(key, productId)).activationCount, 0);
  const act = await call('activate', { key, productId, nonce: nonce(), label: 'laptop' });
  assert.equal(act.statusCode, 200, act.body);
  assert.equal((await verify(key, productId)).activationCount, 1);
  const activationId = act.json().activation.id;
  await call('deactivate', { key, productId, nonce: nonce(), activationId });
  assert.equal((await verify(key, productId)).activationCount, 0);
});

test('a verify with an activationId records lastVerifiedAt without emptying the cache', async () => {
  const { key, productId } = await licensed(t, s.storeId, { maxActivations: 5 });
  const act = await call('activate', { key, productId, nonce: nonce() });
  const activationId = act.json().activation.id;
  await notificationsDelivered();
  await verify(key, productId);
  t.clock.advance(60_000);
  const withActivation = await verify(key, productId, { activationId });
  assert.equal(withActivation.activation.lastVerifiedAt, t.clock.now().toISOString());
  // Had recording lastVerifiedAt announced a license change, its notification would be handled by now.
  await notificationsDelivered();
  assert.equal(await statementsOf(() => verify(key, productId)), 0, 'the license row stayed cached');
});

test("a change this process did not write through its query builder (another process's) reaches the cache by notification", async () => {
  const { key, productId, licenseId } = await licensed(t, s.storeId);
  await verify(key, productId);
  assert.equal((await verify(key, productId)).status, 'active');
  // Raw SQL is invisible to this process's write watch: only the database trigger's notification can tell the cache.
  await sql`update licenses set status = 'revoked', revoked_at = now() where id = ${licenseId}`.execute(t.db);
  // The notification travels over the listening connection after the commit; allow it to arrive (the cache itself
  // would hold the row for an hour).
  let status = '';
  for (let i = 0; i < 500 && status !== 'revoked'; i++) {
    status = (await verify(key, productId)).status;
    if (status !== 'revoked') await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(status, 'revoked');
});

/**
 * A second product whose order's license was never issued (removed before the test looks), and a function that
 * issues it with the key of license `licenseId`: the insert that must end a negative entry of that key.
 */
async function productAwaitingKeyOf(licenseId: string, how: 'builder' | 'raw') {
  const other = await licensed(t, s.storeId);
  await sql`delete from licenses where id = ${other.licenseId}`.execute(t.db);
  await notificationsDelivered();
  const issue = async () => {
    const id = `lic_copy_${nonce().slice(0, 16)}`;
    if (how === 'raw') {
      // Raw SQL is invisible to this process's write watch: only the database trigger's notification can tell the cache.
      await sql`insert into licenses select (jsonb_populate_record(l, jsonb_build_object('id', ${id}::text, 'product_id', ${other.productId}::text, 'order_id', ${other.orderId}::text))).* from licenses l where l.id = ${licenseId}`.execute(t.db);
      return;
    }
    const row = await t.db.selectFrom('licenses').selectAll().where('id', '=', licenseId).executeTakeFirstOrThrow();
    await t.db.insertInto('licenses').values({ ...row, id, product_id: other.productId, order_id: other.orderId }).execute();
  };
  return { productId: other.productId, issue };
}

test('an unknown key is remembered (no statement on the next call), and issuing it in this process answers at once', async () => {
  const { key, licenseId } = await licensed(t, s.storeId);
  const other = await productAwaitingKeyOf(licenseId, 'builder');
  assert.equal((await verify(key, other.productId)).status, 'not_found');
  let answer: any;
  assert.equal(await statementsOf(async () => (answer = await verify(key, other.productId))), 0, 'the negative entry answers');
  assert.equal(answer.status, 'not_found');
  assert.equal(answer.mode, 'test');
  await other.issue();
  assert.equal((await verify(key, other.productId)).status, 'active');
});

test('a license issued by another process (seen only by notification) ends the negative entry', async () => {
  const { key, licenseId } = await licensed(t, s.storeId);
  const other = await productAwaitingKeyOf(licenseId, 'raw');
  assert.equal((await verify(key, other.productId)).status, 'not_found');
  assert.equal(await statementsOf(() => verify(key, other.productId)), 0, 'the negative entry answers');
  await other.issue();
  let status = '';
  for (let i = 0; i < 500 && status !== 'active'; i++) {
    status = (await verify(key, other.productId)).status;
    if (status !== 'active') await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(status, 'active');
});
