// The regression guard of the hot paths that needs no quiet machine: SQL statements sent per request (counted by
// database.stats.statements, the db_statements_total metric) once each path is warm. A change that adds a query to
// one of them fails here, whatever the machine's load. When a change removes one, lower the budget with it.
// PGlite by default; PostgreSQL when TEST_DATABASE_URL is set (the counts are the same on both).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct } from '../checkout/factory';
import { createLicenseTestApp, licenseNotificationsDelivered, licensed, nonce, statementsOf as statementsOfApp } from '../licenses/factory';
import { writeEvent } from '../../src/platform/events';
import { API_KEY_CHANGED, CATALOG_CHANGED, STORE_CHANGED } from '../../src/platform/changes';
import { LICENSE_CHANGED } from '../../src/licenses/verify-cache';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { createEndpoint } from '../webhooks/setup';

/** GET /v1/products, warm: the API key and the product page come from the per-process caches. */
const PRODUCTS_LIST = 0;
/** POST /v1/checkout/sessions, warm (key, product, store settings cached): one INSERT … that writes the session and claims and stores the Idempotency-Key together. */
const CHECKOUT_CREATE = 1;
/** POST /v1/licenses/verify of a real key, warm: the license row comes from the verify cache, the signing key list from the signer's. */
const VERIFY_REAL = 0;
/** POST /v1/licenses/verify of a key never issued (the abuse path), warm: the verify cache's negative entry answers. */
const VERIFY_UNKNOWN = 0;
/** POST /v1/licenses/activate: BEGIN, the license row FOR UPDATE, the live activation count, the activation INSERT, COMMIT. */
const LICENSE_ACTIVATE = 5;
/**
 * Webhook delivery: statements for a batch of WEBHOOK_BATCH events to one endpoint through the worker's runOnce, less
 * those of a runOnce that finds nothing to do. Fan-out (events locked, deliveries inserted, events marked, per 200
 * events), then per lane batch of 25 a lease and one transaction recording attempts and outcomes: a handful per batch,
 * not per event (0.54 per delivery at 50).
 */
const WEBHOOK_BATCH_STATEMENTS = 27;
const WEBHOOK_BATCH = 50;

let t: TestApp;
let s: TestStore;
let rx: Receiver;

before(async () => {
  // Cache lifetimes long enough that a slow machine cannot let a warm entry expire between warm-up and count; the
  // caches themselves are what production runs (their defaults are a few seconds).
  t = await createLicenseTestApp({ config: { licenseCacheMs: 3_600_000, productCacheMs: 3_600_000, apiKeyCacheMs: 3_600_000 } });
  s = await createTestStore(t);
  rx = await startReceiver();
});
after(async () => {
  await rx.close();
  await t.close();
});

const statementsOf = (f: () => Promise<unknown>) => statementsOfApp(t, f);
/** Every change notification of the cached rows (licenses, catalog, store settings, API keys) has arrived. */
const notificationsDelivered = () => licenseNotificationsDelivered(t, [LICENSE_CHANGED, CATALOG_CHANGED, STORE_CHANGED, API_KEY_CHANGED]);

async function ok(p: Promise<{ statusCode: number; body: string }>, status = 200): Promise<void> {
  const res = await p;
  assert.equal(res.statusCode, status, res.body);
}

const appCall = (path: 'verify' | 'activate', body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `/v1/licenses/${path}`, payload: body, headers: { 'content-type': 'application/json' } });

test('GET /v1/products, warm', async () => {
  await createProduct(t, s);
  await notificationsDelivered();
  const list = () => ok(t.app.inject({ method: 'GET', url: '/v1/products', headers: bearer(s.key) }));
  await list();
  assert.equal(await statementsOf(list), PRODUCTS_LIST);
});

test('POST /v1/checkout/sessions, warm', async () => {
  const product = await createProduct(t, s);
  await notificationsDelivered();
  const create = () => ok(t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(s.key), payload: { productId: product.id, metadata: { cartId: 'c1' } } }));
  await create();
  assert.equal(await statementsOf(create), CHECKOUT_CREATE);
});

test('POST /v1/licenses/verify of a real key, warm', async () => {
  const { key, productId } = await licensed(t, s.storeId);
  await notificationsDelivered();
  const verify = () => ok(appCall('verify', { key, productId, nonce: nonce() }));
  await verify();
  assert.equal(await statementsOf(verify), VERIFY_REAL);
});

test('POST /v1/licenses/verify of an unknown key, warm', async () => {
  const { productId } = await licensed(t, s.storeId);
  await notificationsDelivered();
  const key = 'ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ';
  const verify = async () => {
    const res = await appCall('verify', { key, productId, nonce: nonce() });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().status, 'not_found');
  };
  await verify();
  assert.equal(await statementsOf(verify), VERIFY_UNKNOWN);
});

test('POST /v1/licenses/activate', async () => {
  const { key, productId } = await licensed(t, s.storeId, { maxActivations: null });
  await notificationsDelivered();
  const activate = () => ok(appCall('activate', { key, productId, nonce: nonce(), label: 'laptop' }));
  await activate();
  assert.equal(await statementsOf(activate), LICENSE_ACTIVATE);
});

test('webhook deliveries through the worker, per delivery', async () => {
  await createEndpoint(t, s, { url: rx.url('/hook'), eventTypes: ['order.paid'] });
  const emit = (n: number) =>
    t.db.transaction().execute(async (trx) => {
      for (let i = 0; i < n; i++) await writeEvent(trx, t.clock, { storeId: s.storeId, mode: 'test', type: 'order.paid', data: { orderId: `ord_${i}` } });
    });
  // Warm: one event through the whole pipeline, then a pass with nothing to do (what every pass costs regardless).
  await emit(1);
  await t.deps.worker.runOnce();
  const idle = await statementsOf(() => t.deps.worker.runOnce());
  // On PostgreSQL the four delivery lanes lease concurrently (FOR UPDATE SKIP LOCKED), and on a loaded machine a lane
  // can catch a few rows another has not locked yet: one more, smaller batch with its own lease and record (seen once
  // in CI: 39 instead of 27). That split depends on timing, not on the code; a statement added to the path costs on
  // every try. So the batch is measured up to three times and the best try is held to the budget.
  const tries: number[] = [];
  for (let i = 0; i < 3; i++) {
    await emit(WEBHOOK_BATCH);
    const delivered = rx.received.length;
    const busy = await statementsOf(() => t.deps.worker.runOnce());
    assert.equal(rx.received.length - delivered, WEBHOOK_BATCH, 'every event delivered in one pass');
    tries.push(busy - idle);
    if (busy - idle <= WEBHOOK_BATCH_STATEMENTS) break;
  }
  const best = Math.min(...tries);
  console.log(`webhooks: ${best} statements for ${WEBHOOK_BATCH} deliveries (${(best / WEBHOOK_BATCH).toFixed(2)} each; an idle pass sends ${idle}; tries: ${tries.join(', ')})`);
  assert.ok(best <= WEBHOOK_BATCH_STATEMENTS, `${best} statements for ${WEBHOOK_BATCH} deliveries at best (tries: ${tries.join(', ')}), budget ${WEBHOOK_BATCH_STATEMENTS}`);
});
