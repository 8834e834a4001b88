import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { DAY } from '../../src/platform/clock';
import { RETRY_SCHEDULE_MS } from '../../src/jobs/queue';
import { runLicenseIssue } from '../../src/licenses/issue-job';
import { LICENSE_ISSUE_JOB } from '../../src/licenses/issuance';
import { issueLicensesForOrder } from '../../src/licenses/issue-on-payment';
import { createLicenseTestApp, addEndpoint, createProduct, licenseOf, nonce, paidOrder, startReceiver, type Receiver } from './factory';

let t: TestApp;
let s: TestStore;
let rx: Receiver;
const GENEROUS_MS = 10_000;
let issueTimeoutMs = GENEROUS_MS;
before(async () => {
  t = await createLicenseTestApp();
  s = await createTestStore(t);
  rx = await startReceiver();
  // Same handler, with a deadline the tests choose: generous, so a loaded machine never turns an answer into a
  // timeout; only the case whose receiver never answers shortens it (to keep that test quick).
  t.deps.worker.registerJob(LICENSE_ISSUE_JOB, (p) => runLicenseIssue(t.deps, String(p.licenseId), { timeoutMs: issueTimeoutMs }));
});
after(async () => {
  await rx.close();
  await t.close();
});

const verify = (key: string, productId: string) =>
  t.app.inject({ method: 'POST', url: '/v1/licenses/verify', payload: { key, productId, nonce: nonce() } });
const issueJob = (licenseId: string) =>
  t.db.selectFrom('jobs').selectAll().where('name', '=', LICENSE_ISSUE_JOB).where('dedupe_key', '=', `license.issue:${licenseId}`).executeTakeFirstOrThrow();

// ---------- issued by the service ----------

test('a paid order of a service-licensed product gets an active license with a readable key, limit and expiry from the product', async () => {
  const productId = await createProduct(t, s.storeId, { maxActivations: 2, validityDays: 365 });
  const orderId = await paidOrder(t, s.storeId, productId, { buyerEmail: 'kim@example.com', buyerName: '김철수' });
  const lic = await licenseOf(t, orderId);
  assert.equal(lic.status, 'active');
  assert.match(lic.key!, /^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){4}$/);
  assert.equal(lic.max_activations, 2);
  assert.equal(lic.expires_at?.toISOString(), new Date(t.clock.now().getTime() + 365 * DAY).toISOString());
  assert.deepEqual([lic.buyer_email, lic.buyer_name, lic.product_id, lic.mode], ['kim@example.com', '김철수', productId, 'test']);
  // the key is not stored in clear: only its HMAC and the sealed form
  assert.notEqual(lic.key_hash, lic.key);
  assert.ok(!lic.key_sealed!.includes(lic.key!));
  assert.equal((await verify(lic.key!, productId)).json().status, 'active');
});

test('issuance is idempotent per order, and products without licenses issue nothing', async () => {
  const productId = await createProduct(t, s.storeId);
  const orderId = await paidOrder(t, s.storeId, productId);
  await t.db.transaction().execute((trx) => issueLicensesForOrder(trx, t.deps, orderId));
  assert.equal((await t.db.selectFrom('licenses').select('id').where('order_id', '=', orderId).execute()).length, 1);

  const none = await createProduct(t, s.storeId, { licenseMode: 'none' });
  const o2 = await paidOrder(t, s.storeId, none);
  assert.equal((await t.db.selectFrom('licenses').select('id').where('order_id', '=', o2).execute()).length, 0);
});

test('a subscription license expires at the paid period end, and a renewal order extends it instead of issuing another key', async () => {
  const productId = await createProduct(t, s.storeId, { type: 'subscription', validityDays: 999 });
  const periodEnd = new Date(t.clock.now().getTime() + 30 * DAY);
  const first = await paidOrder(t, s.storeId, productId, { subscriptionId: 'sub_test_1', periodEnd });
  const lic = await licenseOf(t, first);
  assert.equal(lic.expires_at?.toISOString(), periodEnd.toISOString());

  const nextEnd = new Date(periodEnd.getTime() + 31 * DAY);
  const renewal = await paidOrder(t, s.storeId, productId, { subscriptionId: 'sub_test_1', periodEnd: nextEnd });
  assert.equal((await t.db.selectFrom('licenses').select('id').where('order_id', '=', renewal).execute()).length, 0);
  const after = await t.db.selectFrom('licenses').select(['expires_at']).where('id', '=', lic.id).executeTakeFirstOrThrow();
  assert.equal(after.expires_at?.toISOString(), nextEnd.toISOString());
  // a late order of an earlier period never shortens it
  await paidOrder(t, s.storeId, productId, { subscriptionId: 'sub_test_1', periodEnd });
  assert.equal((await t.db.selectFrom('licenses').select(['expires_at']).where('id', '=', lic.id).executeTakeFirstOrThrow()).expires_at?.toISOString(), nextEnd.toISOString());
});

test('a renewal finds the subscription\'s license through its first order even when that order got its subscription id later', async () => {
  const productId = await createProduct(t, s.storeId, { type: 'subscription' });
  const periodEnd = new Date(t.clock.now().getTime() + 30 * DAY);
  const first = await paidOrder(t, s.storeId, productId, { periodEnd });
  const lic = await licenseOf(t, first);
  await t.db.updateTable('orders').set({ subscription_id: 'sub_test_late' }).where('id', '=', first).execute();
  const nextEnd = new Date(periodEnd.getTime() + 30 * DAY);
  const renewal = await paidOrder(t, s.storeId, productId, { subscriptionId: 'sub_test_late', periodEnd: nextEnd });
  assert.equal((await t.db.selectFrom('licenses').select('id').where('order_id', '=', renewal).execute()).length, 0);
  const after = await t.db.selectFrom('licenses').select(['expires_at', 'subscription_id']).where('id', '=', lic.id).executeTakeFirstOrThrow();
  assert.deepEqual([after.expires_at?.toISOString(), after.subscription_id], [nextEnd.toISOString(), 'sub_test_late']);
});

// ---------- issued by the seller (license.issue) ----------

test('seller-side issuance: license.issue is signed like a webhook with the request data; the answered key becomes an active license (server reads only)', async () => {
  const store = await createTestStore(t);
  const ep = await addEndpoint(t, store.storeId, rx.url);
  const productId = await createProduct(t, store.storeId, { licenseMode: 'seller', maxActivations: 5, validityDays: 30 });
  const orderId = await paidOrder(t, store.storeId, productId, { buyerEmail: 'lee@example.com', buyerName: '이영희' });
  const pending = await licenseOf(t, orderId);
  assert.deepEqual([pending.status, pending.key, pending.key_hash], ['pending', null, null]);

  const read = await t.app.inject({ url: `/v1/licenses/${pending.id}`, headers: { authorization: `Bearer ${store.key}` } });
  assert.deepEqual([read.json().status, read.json().key], ['pending', null]);

  rx.received.length = 0;
  rx.respond = (req, res) => {
    const data = JSON.parse(req.body).data;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...data, key: 'seller-key-0001', maxActivations: 0 }));
  };
  await t.deps.worker.runOnce();

  assert.equal(rx.received.length, 1);
  const got = rx.received[0];
  // signed with the endpoint's secret, standard-webhooks scheme, over the raw body
  const envelope = new Webhook(ep.secret).verify(got.body, got.headers as Record<string, string>) as any;
  assert.equal(envelope.type, 'license.issue');
  assert.match(envelope.id, /^evt_/);
  assert.equal(got.headers['webhook-id'], envelope.id);
  assert.deepEqual(envelope.data, {
    mode: 'test',
    licenseId: pending.id,
    orderId,
    productId,
    planId: null,
    interval: null,
    buyer: { email: 'lee@example.com', name: '이영희' },
    maxActivations: 5,
    expiresAt: new Date(t.clock.now().getTime() + 30 * DAY).toISOString(),
  });

  const issued = await licenseOf(t, orderId);
  assert.equal(issued.status, 'active');
  assert.equal(issued.key, 'seller-key-0001', 'the key is kept as the seller wrote it');
  assert.equal(issued.max_activations, null, 'maxActivations 0 is unlimited');
  assert.equal(issued.expires_at?.toISOString(), pending.expires_at?.toISOString(), 'omitted expiresAt keeps the requested one');
  // kept for server reads and the console, but not verified by the app API (the contract: no record here)
  const v = (await verify('SELLER-KEY-0001', productId)).json();
  assert.deepEqual([v.status, v.maxActivations], ['not_found', null]);
  const readIssued = await t.app.inject({ url: `/v1/licenses/${pending.id}`, headers: { authorization: `Bearer ${store.key}` } });
  assert.deepEqual([readIssued.json().status, readIssued.json().key, readIssued.json().maxActivations], ['active', 'seller-key-0001', null]);
  assert.equal((await issueJob(pending.id)).status, 'done');

  const admin = await t.app.inject({ url: `/admin/v1/licenses/${pending.id}`, headers: { authorization: `Bearer ${store.ownerToken}` } });
  assert.equal(admin.json().issuer, 'seller');
  assert.deepEqual(
    admin.json().issueAttempts.map((a: any) => [a.outcome, a.httpStatus, a.endpointId]),
    [['issued', 200, ep.id]],
  );
});

test('seller-side issuance retries on garbage, non-2xx, a timeout and no endpoint, staying pending, with the same event id each time', async () => {
  const store = await createTestStore(t);
  const productId = await createProduct(t, store.storeId, { licenseMode: 'seller', maxActivations: 2 });
  const orderId = await paidOrder(t, store.storeId, productId);
  const lic = await licenseOf(t, orderId);

  // 1. no endpoint subscribed to license.issue yet (one exists, for another event type)
  await addEndpoint(t, store.storeId, rx.url, { eventTypes: ['order.paid'] });
  await t.deps.worker.runOnce();
  let job = await issueJob(lic.id);
  assert.deepEqual([job.status, job.attempts], ['pending', 1]);
  assert.equal(job.run_at.getTime() - t.clock.now().getTime(), RETRY_SCHEDULE_MS[0], 'retried on the webhook schedule');
  assert.equal((await licenseOf(t, orderId)).status, 'pending');

  const ep = await addEndpoint(t, store.storeId, rx.url);
  const step = async (respond: Receiver['respond'], expectAttempts: number) => {
    rx.respond = respond;
    t.clock.set(job.run_at);
    await t.deps.worker.runOnce();
    job = await issueJob(lic.id);
    assert.equal(job.attempts, expectAttempts);
    return job;
  };

  // 2. garbage
  rx.received.length = 0;
  await step((_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks!'), 2);
  assert.equal(job.status, 'pending');
  assert.match(job.last_error ?? '', /malformed answer/);
  // 3. a well-formed JSON answer without a key
  await step((_q, res) => res.writeHead(200).end(JSON.stringify({ ok: true })), 3);
  // 4. a key that is too long
  await step((_q, res) => res.writeHead(200).end(JSON.stringify({ key: 'x'.repeat(257) })), 4);
  // 5. non-2xx
  await step((_q, res) => res.writeHead(503).end(JSON.stringify({ key: 'NOT-ACCEPTED' })), 5);
  assert.match(job.last_error ?? '', /HTTP 503/);
  // 6. a timeout (the receiver never answers; the deadline only decides how long this step waits)
  issueTimeoutMs = 300;
  try {
    await step(() => {}, 6);
  } finally {
    issueTimeoutMs = GENEROUS_MS;
  }
  assert.match(job.last_error ?? '', /timeout/);
  assert.equal((await licenseOf(t, orderId)).status, 'pending');
  assert.equal(job.run_at.getTime() - t.clock.now().getTime(), RETRY_SCHEDULE_MS[5]);

  const ids = new Set(rx.received.map((r) => r.headers['webhook-id']));
  assert.equal(rx.received.length, 5);
  assert.equal(ids.size, 1, 'every retry carries the same event id');

  // 7. a good answer at last, with its own expiry and limit
  await step((_q, res) => res.writeHead(201).end(JSON.stringify({ key: 'LATE-KEY-42', expiresAt: '2027-12-31T15:00:00Z', maxActivations: 7, ignored: true })), 7);
  assert.equal(job.status, 'done');
  const done = await licenseOf(t, orderId);
  assert.deepEqual([done.status, done.key, done.max_activations, done.expires_at?.toISOString()], ['active', 'LATE-KEY-42', 7, '2027-12-31T15:00:00.000Z']);

  const admin = (await t.app.inject({ url: `/admin/v1/licenses/${lic.id}`, headers: { authorization: `Bearer ${store.ownerToken}` } })).json();
  assert.deepEqual(
    admin.issueAttempts.map((a: any) => a.outcome),
    ['issued', 'failed', 'failed', 'failed', 'failed', 'failed', 'no_endpoint'],
  );
  assert.equal(admin.issueAttempts[0].endpointId, ep.id);
});

test('a seller key already used by another license of the product is refused and retried', async () => {
  const store = await createTestStore(t);
  await addEndpoint(t, store.storeId, rx.url);
  const productId = await createProduct(t, store.storeId, { licenseMode: 'seller' });
  const o1 = await paidOrder(t, store.storeId, productId);
  rx.respond = (_q, res) => res.writeHead(200).end(JSON.stringify({ key: 'SAME-KEY' }));
  await t.deps.worker.runOnce();
  assert.equal((await licenseOf(t, o1)).status, 'active');

  const o2 = await paidOrder(t, store.storeId, productId);
  const l2 = await licenseOf(t, o2);
  rx.respond = (_q, res) => res.writeHead(200).end(JSON.stringify({ key: 'same-key' }));
  await t.deps.worker.runOnce();
  assert.equal((await licenseOf(t, o2)).status, 'pending');
  assert.match((await issueJob(l2.id)).last_error ?? '', /duplicate key/);
});

test('a pending seller license revoked in the console stops its license.issue requests', async () => {
  const store = await createTestStore(t);
  await addEndpoint(t, store.storeId, rx.url);
  const productId = await createProduct(t, store.storeId, { licenseMode: 'seller' });
  const orderId = await paidOrder(t, store.storeId, productId);
  const lic = await licenseOf(t, orderId);
  const res = await t.app.inject({ method: 'POST', url: `/admin/v1/licenses/${lic.id}/revoke`, headers: { authorization: `Bearer ${store.ownerToken}` }, payload: { reason: '주문 취소' } });
  assert.equal(res.statusCode, 200);
  rx.received.length = 0;
  rx.respond = (_q, r) => r.writeHead(200).end(JSON.stringify({ key: 'TOO-LATE' }));
  await t.deps.worker.runOnce();
  assert.equal(rx.received.length, 0);
  assert.equal((await issueJob(lic.id)).status, 'done');
  assert.equal((await licenseOf(t, orderId)).status, 'revoked');
});

test('re-issuing a seller-issued license asks the seller again: a new pending license and a new license.issue request', async () => {
  const store = await createTestStore(t);
  await addEndpoint(t, store.storeId, rx.url);
  const productId = await createProduct(t, store.storeId, { licenseMode: 'seller' });
  const orderId = await paidOrder(t, store.storeId, productId);
  const first = await licenseOf(t, orderId);
  rx.respond = (_q, res) => res.writeHead(200).end(JSON.stringify({ key: `FIRST-${first.id}` }));
  await t.deps.worker.runOnce();
  assert.equal((await licenseOf(t, orderId)).status, 'active');

  const r = await t.app.inject({ method: 'POST', url: `/admin/v1/licenses/${first.id}/reissue`, headers: { authorization: `Bearer ${store.ownerToken}` }, payload: { reason: '키 유출' } });
  assert.equal(r.statusCode, 201);
  const fresh = r.json();
  assert.deepEqual([fresh.status, fresh.key, fresh.rotatedFrom, fresh.issuer], ['pending', null, first.id, 'seller']);

  rx.received.length = 0;
  rx.respond = (q, res) => res.writeHead(200).end(JSON.stringify({ key: `SECOND-${JSON.parse(q.body).data.licenseId}` }));
  await t.deps.worker.runOnce();
  assert.equal(rx.received.length, 1);
  const sent = JSON.parse(rx.received[0].body);
  assert.equal(sent.data.licenseId, fresh.id);
  assert.notEqual(rx.received[0].headers['webhook-id'], first.issue_event_id, 'a new request, not a retry of the old one');
  // the console shows the old one revoked and the new one active; the app API verifies neither (seller-issued)
  const oldRead = await t.app.inject({ url: `/admin/v1/licenses/${first.id}`, headers: { authorization: `Bearer ${store.ownerToken}` } });
  const newRead = await t.app.inject({ url: `/admin/v1/licenses/${fresh.id}`, headers: { authorization: `Bearer ${store.ownerToken}` } });
  assert.deepEqual([oldRead.json().status, newRead.json().status, newRead.json().key], ['revoked', 'active', `SECOND-${fresh.id}`]);
  assert.equal((await verify(`FIRST-${first.id}`, productId)).json().status, 'not_found');
  assert.equal((await verify(`SECOND-${fresh.id}`, productId)).json().status, 'not_found');
});
