// Issue 8 item 2: a signed license answer names the product and the key it is about, and the client library holds
// both to what it asked, so a proxy on the buyer's machine cannot pass one license's signed answer off as another's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { createTestStore, type TestApp } from '../helpers/app';
import { keyFingerprint } from '../../src/licenses/keys';
import { LicenseClient, LicenseVerificationError, type FetchLike, type VerificationFailure } from '../../packages/license-client/src/index';
import { createLicenseTestApp, licensed, signingKeys, verifySignature } from './factory';

let t: TestApp;
before(async () => {
  t = await createLicenseTestApp();
});
after(async () => {
  await t.close();
});

interface Exchange {
  path: string;
  /** The body the client sent, before the proxy touched it. */
  sent: Record<string, unknown> | null;
  /** The body that reached the service. */
  forwarded: Record<string, unknown> | null;
  res: LightMyRequestResponse;
}

/**
 * The client library's transport: a fetch that hands the request to the app in process, through an optional
 * rewriting step standing in for a proxy on the buyer's machine. The service's answer is passed back untouched.
 */
function proxyFetch(log: Exchange[], rewrite?: (path: string, body: Record<string, unknown>) => Record<string, unknown>): FetchLike {
  return async (url, init) => {
    const path = new URL(url).pathname;
    const sent = typeof init.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : null;
    const forwarded = sent && rewrite ? rewrite(path, sent) : sent;
    const res = await t.app.inject({
      method: init.method as 'GET' | 'POST',
      url: path,
      ...(forwarded ? { payload: JSON.stringify(forwarded), headers: { 'content-type': 'application/json' } } : {}),
    });
    log.push({ path, sent, forwarded, res });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : String(v));
    return new Response(new Uint8Array(res.rawPayload), { status: res.statusCode, headers });
  };
}

/** The last app call (the client fetches the signing-keys list after its first answer arrives). */
const lastCall = (log: Exchange[]) => log.filter((e) => e.sent !== null).at(-1)!;

const clientFor = (productId: string, fetch: FetchLike) => new LicenseClient({ baseUrl: 'http://commerce.test', productId, fetch, now: () => t.clock.now() });

async function refused(p: Promise<unknown>, reason: VerificationFailure): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof LicenseVerificationError, `expected LicenseVerificationError, got ${String(err)}`);
    assert.equal(err.reason, reason);
    return true;
  });
}

test('the client library accepts the service\'s own answers: both sides compute the same keyFingerprint (key typed in lower case with spaces)', async () => {
  const s1 = await createTestStore(t);
  const a = await licensed(t, s1.storeId);
  const log: Exchange[] = [];
  const c = clientFor(a.productId, proxyFetch(log));
  const typed = ` ${a.key.toLowerCase().replace(/-/g, ' - ')} `;
  const act = await c.activate(typed, { label: '내 PC' });
  assert.deepEqual([act.status, act.productId, act.keyFingerprint], ['active', a.productId, keyFingerprint(a.key)]);
  const v = await c.verify(typed, { activationId: act.activation!.id });
  assert.equal(v.status, 'active');
  const d = await c.deactivate(typed, act.activation!.id);
  assert.notEqual(d.activation?.deactivatedAt, null);
  // not_found answers are bound the same way, so the client accepts them as about its own question
  const nf = await c.verify('NOPE0-NOPE0-NOPE0-NOPE0-NOPE0');
  assert.deepEqual([nf.status, nf.productId, nf.keyFingerprint], ['not_found', a.productId, keyFingerprint('NOPE0-NOPE0-NOPE0-NOPE0-NOPE0')]);
});

test('proxy attack: activate for product A (store 1) rewritten to a cheap product B (store 2) keeping the nonce gets a valid signed active answer, and the client refuses it', async () => {
  const s1 = await createTestStore(t);
  const s2 = await createTestStore(t);
  const a = await licensed(t, s1.storeId, { name: '프로 에디션' });
  const b = await licensed(t, s2.storeId, { name: '저가 유틸' });

  const log: Exchange[] = [];
  // The buyer owns only B's key; the proxy turns every app call of A's app into the same call for B, nonce kept.
  const toB = (path: string, body: Record<string, unknown>) => (path.startsWith('/v1/licenses/') && 'nonce' in body ? { ...body, key: b.key, productId: b.productId } : body);
  const appA = clientFor(a.productId, proxyFetch(log, toB));
  const keys = await signingKeys(t);

  for (const typed of [b.key, 'ANYTH-INGTH-EBUYE-RTYPE-DXXXX']) {
    await refused(appA.activate(typed), 'product_mismatch');
    const ex = lastCall(log);
    assert.equal(ex.path, '/v1/licenses/activate');
    // the rewritten request reached the service with the client's own nonce...
    assert.deepEqual(ex.forwarded, { ...ex.sent, key: b.key, productId: b.productId });
    assert.equal(ex.sent!.productId, a.productId);
    // ...and the service answered it: 200, signed by a listed key over these bytes, active, the client's nonce, fresh
    assert.equal(ex.res.statusCode, 200);
    assert.equal(await verifySignature(keys, ex.res.headers['service-signature'] as string, ex.res.rawPayload), true);
    const body = ex.res.json();
    assert.equal(body.status, 'active');
    assert.equal(body.nonce, ex.sent!.nonce);
    assert.equal(body.issuedAt, t.clock.now().toISOString());
    // what gives it away: the answer says it is about B and B's key
    assert.deepEqual([body.productId, body.keyFingerprint], [b.productId, keyFingerprint(b.key)]);
  }
  // verify is refused the same way
  await refused(appA.verify(b.key), 'product_mismatch');
  assert.equal(lastCall(log).res.json().status, 'active');
});

test('proxy attack within one product: a request for a revoked key rewritten to another buyer\'s active key of the same product → key_mismatch', async () => {
  const s1 = await createTestStore(t);
  const mine = await licensed(t, s1.storeId);
  await t.db.updateTable('licenses').set({ status: 'revoked', revoked_at: t.clock.now() }).where('id', '=', mine.licenseId).execute();
  // another license of the same product (a leaked key)
  const { paidOrder, licenseOf } = await import('./factory');
  const leaked = await licenseOf(t, await paidOrder(t, s1.storeId, mine.productId));

  const log: Exchange[] = [];
  const swap = (path: string, body: Record<string, unknown>) => (path.startsWith('/v1/licenses/') && 'nonce' in body ? { ...body, key: leaked.key } : body);
  const app = clientFor(mine.productId, proxyFetch(log, swap));
  await refused(app.verify(mine.key), 'key_mismatch');
  const body = lastCall(log).res.json();
  assert.deepEqual([body.status, body.productId, body.nonce], ['active', mine.productId, lastCall(log).sent!.nonce]);
  await refused(app.activate(mine.key), 'key_mismatch');

  // without the proxy the buyer hears the truth
  assert.equal((await clientFor(mine.productId, proxyFetch([])).verify(mine.key)).status, 'revoked');
});

test('the served OpenAPI document lists productId and keyFingerprint as required fields of every signed answer, after the contract\'s', async () => {
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  const resolve = (schema: { $ref?: string }): any => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema);
  for (const op of ['activate', 'deactivate', 'verify']) {
    const schema = resolve(doc.paths[`/v1/licenses/${op}`].post.responses['200'].content['application/json'].schema);
    assert.deepEqual(Object.keys(schema.properties), ['status', 'expiresAt', 'maxActivations', 'activationCount', 'mode', 'activation', 'nonce', 'issuedAt', 'productId', 'keyFingerprint'], op);
    assert.ok(schema.required.includes('productId') && schema.required.includes('keyFingerprint'), op);
    assert.match(schema.properties.keyFingerprint.description, /commerce-license-key-fingerprint:v1:/);
    assert.match(schema.properties.keyFingerprint.examples[0], new RegExp(schema.properties.keyFingerprint.pattern));
  }
});
