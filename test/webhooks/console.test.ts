import { openSecrets } from '../../src/webhooks/model';
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { HOUR } from '../../src/platform/clock';
import { findEndpointsFor, sendSigned } from '../../src/webhooks/outbound';
import { pruneOnce } from '../../src/webhooks/delivery';
import { admin, createEndpoint, emit, pump } from './setup';
import { startReceiver, type Receiver } from './receiver';

let t: TestApp;
let s: TestStore;
let rx: Receiver;
let secrets: string[] = [];

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  rx = await startReceiver({ secrets: () => secrets });
});
after(async () => {
  await rx.close();
  await t.close();
});

test('endpoints: create (secret shown), list, read, update, disable/enable, delete; all fields present', async () => {
  const call = admin(t, s);
  const created = await call('POST', '/admin/v1/webhook-endpoints', { mode: 'test', url: rx.url('/crud'), eventTypes: ['order.paid', 'subscription.updated'], description: '주문 알림' });
  assert.equal(created.status, 201);
  assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const ep = created.body.endpoint;
  assert.deepEqual(Object.keys(ep).sort(), ['createdAt', 'description', 'disabledAt', 'disabledReason', 'eventTypes', 'failingSince', 'id', 'mode', 'status', 'updatedAt', 'url']);
  assert.match(ep.id, /^we_/);
  assert.equal(ep.status, 'enabled');
  assert.equal(ep.disabledReason, null);
  assert.deepEqual(ep.eventTypes, ['order.paid', 'subscription.updated']);

  const list = await call('GET', '/admin/v1/webhook-endpoints?mode=test');
  assert.equal(list.status, 200);
  assert.ok(list.body.data.some((e: any) => e.id === ep.id));
  assert.equal((await call('GET', '/admin/v1/webhook-endpoints?mode=live')).body.data.filter((e: any) => e.id === ep.id).length, 0);

  const secret = await call('GET', `/admin/v1/webhook-endpoints/${ep.id}/secret`);
  assert.equal(secret.body.secret, created.body.secret, 'the secret can be read again');

  t.clock.advance(1000);
  const patched = await call('PATCH', `/admin/v1/webhook-endpoints/${ep.id}`, { eventTypes: ['subscription.ended'], description: null });
  assert.deepEqual(patched.body.eventTypes, ['subscription.ended']);
  assert.equal(patched.body.description, null);
  assert.notEqual(patched.body.updatedAt, ep.updatedAt);

  const disabled = await call('PATCH', `/admin/v1/webhook-endpoints/${ep.id}`, { status: 'disabled' });
  assert.equal(disabled.body.status, 'disabled');
  assert.match(disabled.body.disabledReason, /판매자/);
  assert.ok(disabled.body.disabledAt);
  const test = await call('POST', `/admin/v1/webhook-endpoints/${ep.id}/test`);
  assert.equal(test.status, 409);
  assert.equal(test.body.code, 'WEBHOOK_ENDPOINT_DISABLED');
  const enabled = await call('PATCH', `/admin/v1/webhook-endpoints/${ep.id}`, { status: 'enabled' });
  assert.equal(enabled.body.status, 'enabled');
  assert.equal(enabled.body.disabledAt, null);

  assert.equal((await call('DELETE', `/admin/v1/webhook-endpoints/${ep.id}`)).status, 204);
  assert.equal((await call('GET', `/admin/v1/webhook-endpoints/${ep.id}`)).body.code, 'WEBHOOK_ENDPOINT_NOT_FOUND');
  assert.equal((await call('DELETE', `/admin/v1/webhook-endpoints/${ep.id}`)).status, 404);
});

test('unknown event types, unknown fields and an empty patch are VALIDATION_FAILED', async () => {
  const call = admin(t, s);
  for (const body of [
    { mode: 'test', url: rx.url(), eventTypes: ['order.created'] },
    { mode: 'test', url: rx.url(), eventTypes: [] },
    { mode: 'test', url: rx.url(), eventTypes: ['order.paid'], color: 'red' },
    { url: rx.url(), eventTypes: ['order.paid'] },
  ]) {
    const res = await call('POST', '/admin/v1/webhook-endpoints', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.code, 'VALIDATION_FAILED');
  }
  const { endpoint } = await createEndpoint(t, s, { url: rx.url() });
  assert.equal((await call('PATCH', `/admin/v1/webhook-endpoints/${endpoint.id}`, {})).status, 400);
  await call('DELETE', `/admin/v1/webhook-endpoints/${endpoint.id}`);
});

test("another store's endpoints and events are not found; no owner token is 401", async () => {
  const { endpoint } = await createEndpoint(t, s, { url: rx.url() });
  const ev = await emit(t, s.storeId, 'subscription.ended', { endReason: 'x' });
  const other = await createTestStore(t);
  const call = admin(t, other);
  assert.equal((await call('GET', `/admin/v1/webhook-endpoints/${endpoint.id}`)).status, 404);
  assert.equal((await call('PATCH', `/admin/v1/webhook-endpoints/${endpoint.id}`, { status: 'disabled' })).status, 404);
  assert.equal((await call('GET', `/admin/v1/webhook-endpoints/${endpoint.id}/secret`)).status, 404);
  assert.equal((await call('POST', `/admin/v1/webhook-endpoints/${endpoint.id}/rotate-secret`)).status, 404);
  assert.equal((await call('POST', `/admin/v1/webhook-endpoints/${endpoint.id}/test`)).status, 404);
  assert.equal((await call('DELETE', `/admin/v1/webhook-endpoints/${endpoint.id}`)).status, 404);
  assert.equal((await call('GET', `/admin/v1/events/${ev.id}`)).body.code, 'EVENT_NOT_FOUND');
  assert.equal((await call('POST', `/admin/v1/events/${ev.id}/resend`, { endpointId: endpoint.id })).status, 404);
  assert.ok(!(await call('GET', '/admin/v1/events')).body.data.some((e: any) => e.id === ev.id));
  const anon = await t.app.inject({ url: '/admin/v1/webhook-endpoints' });
  assert.equal(anon.statusCode, 401);
  const apiKey = await t.app.inject({ url: '/admin/v1/events', headers: bearer(s.key) });
  assert.equal(apiKey.statusCode, 401, 'an API key is not an owner token');
  await admin(t, s)('DELETE', `/admin/v1/webhook-endpoints/${endpoint.id}`);
});

test('secret rotation: deliveries carry both signatures for 24 h and each secret verifies alone; then only the new one', async () => {
  const created = await createEndpoint(t, s, { url: rx.url('/rotation'), eventTypes: ['subscription.updated'] });
  const old = created.secret;
  const rotated = await admin(t, s)('POST', `/admin/v1/webhook-endpoints/${created.endpoint.id}/rotate-secret`);
  assert.equal(rotated.status, 200);
  const fresh = rotated.body.secret;
  assert.notEqual(fresh, old);
  assert.deepEqual(rotated.body.secrets.map((x: any) => x.secret), [fresh, old]);
  assert.equal(rotated.body.secrets[1].expiresAt, new Date(t.clock.now().getTime() + 24 * HOUR).toISOString());
  secrets = [old, fresh];
  await emit(t, s.storeId, 'subscription.updated', { subscription: {}, change: { kind: 'period_renewed' } });
  await pump(t);
  let got = rx.received.filter((r) => r.path === '/rotation');
  assert.equal(got.length, 1);
  assert.deepEqual(got[0].verifiedWith.sort(), [old, fresh].sort(), 'both the old and the new secret verify');
  assert.equal(String(got[0].headers['webhook-signature']).split(' ').length, 2);

  t.clock.advance(24 * HOUR);
  await emit(t, s.storeId, 'subscription.updated', { subscription: {}, change: { kind: 'cancel_scheduled' } });
  await pump(t);
  got = rx.received.filter((r) => r.path === '/rotation');
  assert.equal(got.length, 2);
  assert.deepEqual(got[1].verifiedWith, [fresh], 'the old secret stopped signing after 24 h');
  const shown = await admin(t, s)('GET', `/admin/v1/webhook-endpoints/${created.endpoint.id}/secret`);
  assert.deepEqual(shown.body.secrets.map((x: any) => x.secret), [fresh]);
  // The prune task then drops it from storage too.
  await pruneOnce(t.deps, t.clock.now());
  const row = await t.db.selectFrom('webhook_endpoints').select('secrets').where('id', '=', created.endpoint.id).executeTakeFirstOrThrow();
  assert.equal(row.secrets.length, 1);
  assert.deepEqual(openSecrets(t.deps.config.masterKey, row.secrets).map((x) => x.secret), [fresh]);
  assert.ok(!JSON.stringify(row.secrets).includes(fresh.slice(6)), 'secrets are stored sealed, not in plain text');
  await admin(t, s)('DELETE', `/admin/v1/webhook-endpoints/${created.endpoint.id}`);
});

test('webhook.test goes to that endpoint only, now, signed, and the answer shows the attempt', async () => {
  const a = await createEndpoint(t, s, { url: rx.url('/test-a') });
  const b = await createEndpoint(t, s, { url: rx.url('/test-b') });
  secrets = [a.secret];
  const res = await admin(t, s)('POST', `/admin/v1/webhook-endpoints/${a.endpoint.id}/test`);
  assert.equal(res.status, 200);
  assert.equal(res.body.event.type, 'webhook.test');
  assert.deepEqual(res.body.event.data, {});
  assert.equal(res.body.delivery.status, 'succeeded');
  assert.equal(res.body.delivery.trigger, 'test');
  assert.equal(res.body.delivery.attempts[0].statusCode, 200);
  await pump(t);
  const gotA = rx.received.filter((r) => r.path === '/test-a');
  assert.equal(gotA.length, 1);
  assert.deepEqual(gotA[0].verifiedWith, [a.secret]);
  assert.equal(gotA[0].payload.type, 'webhook.test');
  assert.equal(gotA[0].headers['webhook-id'], res.body.event.id);
  assert.equal(rx.received.filter((r) => r.path === '/test-b').length, 0, 'other endpoints do not get it');
  const listed = await admin(t, s)('GET', '/admin/v1/events?type=webhook.test');
  assert.equal(listed.body.data[0].id, res.body.event.id);
  for (const e of [a, b]) await admin(t, s)('DELETE', `/admin/v1/webhook-endpoints/${e.endpoint.id}`);
});

test('events: list newest first with mode/type filters; detail has deliveries and attempts; resend rules', async () => {
  const call = admin(t, s);
  const ep = await createEndpoint(t, s, { url: rx.url('/events'), eventTypes: ['subscription.ended'] });
  secrets = [ep.secret];
  const e1 = await emit(t, s.storeId, 'subscription.ended', { subscription: {}, endReason: 'canceled' });
  t.clock.advance(1000);
  const e2 = await emit(t, s.storeId, 'subscription.ended', { subscription: {}, endReason: 'payment_failed' });
  const live = await emit(t, s.storeId, 'subscription.ended', { subscription: {}, endReason: 'x' }, 'live');
  await pump(t);
  const list = await call('GET', '/admin/v1/events?mode=test&type=subscription.ended&limit=2');
  assert.deepEqual(list.body.data.map((e: any) => e.id), [e2.id, e1.id]);
  assert.deepEqual(list.body.data[0], e2);
  assert.equal(list.body.limit, 2);
  assert.ok((await call('GET', '/admin/v1/events?mode=live')).body.data.some((e: any) => e.id === live.id));
  assert.equal((await call('GET', '/admin/v1/events?sort=createdAt')).status, 400);

  const detail = await call('GET', `/admin/v1/events/${e1.id}`);
  assert.deepEqual(detail.body.event, e1);
  assert.equal(detail.body.deliveries.length, 1);
  const d = detail.body.deliveries[0];
  assert.equal(d.endpointUrl, rx.url('/events'));
  assert.deepEqual(Object.keys(d.attempts[0]).sort(), ['attempt', 'durationMs', 'error', 'id', 'responseExcerpt', 'startedAt', 'statusCode', 'succeeded', 'url']);

  const resend = await call('POST', `/admin/v1/events/${e1.id}/resend`, { endpointId: ep.endpoint.id });
  assert.equal(resend.status, 202);
  await pump(t);
  assert.equal(rx.byId(e1.id).length, 2);
  assert.equal((await call('POST', `/admin/v1/events/${live.id}/resend`, { endpointId: ep.endpoint.id })).body.code, 'WEBHOOK_MODE_MISMATCH');
  assert.equal((await call('POST', `/admin/v1/events/evt_nope/resend`, { endpointId: ep.endpoint.id })).body.code, 'EVENT_NOT_FOUND');
  assert.equal((await call('POST', `/admin/v1/events/${e1.id}/resend`, { endpointId: 'we_nope' })).body.code, 'WEBHOOK_ENDPOINT_NOT_FOUND');
  const lic = await emit(t, s.storeId, 'license.issue', { licenseId: 'lic_1' });
  assert.equal((await call('POST', `/admin/v1/events/${lic.id}/resend`, { endpointId: ep.endpoint.id })).body.code, 'WEBHOOK_EVENT_NOT_RESENDABLE');
  await call('DELETE', `/admin/v1/webhook-endpoints/${ep.endpoint.id}`);
});

test('events stay resendable for 30 days; older ones are pruned', async () => {
  const ev = await emit(t, s.storeId, 'order.paid');
  await pump(t);
  t.clock.advance(30 * 24 * HOUR - 1);
  await pruneOnce(t.deps, t.clock.now());
  assert.equal((await admin(t, s)('GET', `/admin/v1/events/${ev.id}`)).status, 200);
  t.clock.advance(2);
  await pruneOnce(t.deps, t.clock.now());
  assert.equal((await admin(t, s)('GET', `/admin/v1/events/${ev.id}`)).status, 404);
});

test('findEndpointsFor: enabled endpoints of the store+mode subscribed to the type, oldest first', async () => {
  const store = await createTestStore(t);
  const first = await createEndpoint(t, store, { url: rx.url('/f1'), eventTypes: ['license.issue'] });
  t.clock.advance(1);
  const second = await createEndpoint(t, store, { url: rx.url('/f2'), eventTypes: ['license.issue', 'order.paid'] });
  await createEndpoint(t, store, { url: rx.url('/f3'), eventTypes: ['order.paid'] });
  const off = await createEndpoint(t, store, { url: rx.url('/f4'), eventTypes: ['license.issue'] });
  await admin(t, store)('PATCH', `/admin/v1/webhook-endpoints/${off.endpoint.id}`, { status: 'disabled' });
  const found = await findEndpointsFor(t.db, t.deps.config.masterKey, store.storeId, 'test', 'license.issue');
  assert.deepEqual(found, [
    { id: first.endpoint.id, url: rx.url('/f1'), secrets: [first.secret] },
    { id: second.endpoint.id, url: rx.url('/f2'), secrets: [second.secret] },
  ]);
  assert.deepEqual(await findEndpointsFor(t.db, t.deps.config.masterKey, store.storeId, 'live', 'license.issue'), []);
});

test('sendSigned: exact bytes, any 2xx, the answer body (first 64 KiB), no redirects followed', async () => {
  const secret = (await createEndpoint(t, s, { url: rx.url('/unused') })).secret;
  secrets = [secret];
  const envelope = { id: 'evt_sendsigned', type: 'license.issue', mode: 'test' as const, createdAt: t.clock.now().toISOString(), data: { name: '홍길동', n: 1 } };
  rx.state.respond = (r) =>
    r.path === '/big' ? { status: 201, body: 'x'.repeat(100_000) } : r.path === '/redirect' ? { status: 302, headers: { location: rx.url('/target') } } : { status: 200, body: '{"key":"K-1"}' };
  const ok = await sendSigned(t.deps, { id: 'we_1', url: rx.url('/ok'), secrets: [secret] }, envelope);
  assert.deepEqual({ ok: ok.ok, status: ok.status, body: ok.body, error: ok.error }, { ok: true, status: 200, body: '{"key":"K-1"}', error: null });
  const got = rx.received.at(-1)!;
  assert.equal(got.rawBody, JSON.stringify(envelope));
  assert.deepEqual(got.verifiedWith, [secret]);
  assert.deepEqual(new Webhook(secret).verify(got.rawBody, got.headers as Record<string, string>), envelope);

  const big = await sendSigned(t.deps, { id: 'we_1', url: rx.url('/big'), secrets: [secret] }, envelope);
  assert.equal(big.ok, true);
  assert.equal(big.body.length, 64 * 1024);

  const redirect = await sendSigned(t.deps, { id: 'we_1', url: rx.url('/redirect'), secrets: [secret] }, envelope);
  assert.equal(redirect.ok, false);
  assert.equal(redirect.status, 302);
  assert.ok(!rx.received.some((r) => r.path === '/target'), 'the redirect target is never requested');
  rx.state.respond = () => ({ status: 200, body: 'ok' });
});

test('the OpenAPI document has a webhooks section: every event type with its envelope, headers and retry schedule', async () => {
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  assert.deepEqual(Object.keys(doc.webhooks).sort(), ['cash_receipt.failed', 'license.issue', 'order.awaiting_deposit', 'order.expired', 'order.paid', 'order.refunded', 'reconciliation.completed', 'refund_request.created', 'refund_request.updated', 'subscription.ended', 'subscription.updated', 'tax_invoice.amended', 'tax_invoice.failed', 'tax_invoice.issued', 'webhook.test']);
  for (const [type, item] of Object.entries<any>(doc.webhooks)) {
    const schema = item.post.requestBody.content['application/json'].schema;
    assert.deepEqual(Object.keys(schema.properties), ['id', 'type', 'mode', 'createdAt', 'data'], type);
    assert.equal(schema.properties.type.const, type);
    assert.deepEqual(item.post.parameters.map((p: any) => p.name), ['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    assert.match(item.post.description, /5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h/);
  }
  const paid = doc.webhooks['order.paid'].post.requestBody.content['application/json'].schema.properties.data;
  assert.ok(paid.properties.metadata && paid.properties.subscriptionEvent && paid.properties.amount);
  assert.ok(doc.webhooks['subscription.updated'].post.requestBody.content['application/json'].schema.properties.data.properties.change.properties.kind);
  assert.ok(doc.webhooks['subscription.ended'].post.requestBody.content['application/json'].schema.properties.data.properties.endReason);
  const lic = doc.webhooks['license.issue'].post.requestBody.content['application/json'].schema.properties.data;
  assert.deepEqual(Object.keys(lic.properties).sort(), ['buyer', 'expiresAt', 'interval', 'licenseId', 'maxActivations', 'mode', 'orderId', 'planId', 'productId']);
  const admin = (await t.app.inject({ url: '/admin/v1/openapi.json' })).json();
  for (const p of ['/admin/v1/webhook-endpoints', '/admin/v1/webhook-endpoints/{id}/rotate-secret', '/admin/v1/events/{id}/resend']) assert.ok(admin.paths[p], p);
});
