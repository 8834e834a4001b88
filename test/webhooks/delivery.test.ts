import { test, after, before, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { writeEvent } from '../../src/platform/events';
import { DAY } from '../../src/platform/clock';
import { DISABLED_REASONS, LOOPBACK_RESPONSE_OMITTED } from '../../src/webhooks/model';
import { admin, createEndpoint, eventDetail, emit, pump } from './setup';
import { closedPort, startReceiver, type Receiver } from './receiver';

let t: TestApp;
let s: TestStore;
let rx: Receiver;
let secret: string;

before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});
beforeEach(async () => {
  s = await createTestStore(t);
  rx = await startReceiver({ secrets: () => [secret] });
});
afterEach(async () => {
  await rx.close();
  // Tests share one database: leftover retries of one test must not count in the next one's pump() totals.
  await t.db.updateTable('webhook_deliveries').set({ status: 'failed', next_attempt_at: null }).where('status', '=', 'pending').execute();
});

test('an order.paid event written in a committed transaction is delivered once, signed, with the exact envelope', async () => {
  ({ secret } = await createEndpoint(t, s, { url: rx.url() }));
  const ev = await emit(t, s.storeId, 'order.paid', { id: 'ord_x', amount: 1000, metadata: { a: '한글' }, subscriptionEvent: null });
  assert.equal(await pump(t), 1);
  assert.equal(rx.received.length, 1);
  const got = rx.received[0];
  assert.deepEqual(got.verifiedWith, [secret], 'standardwebhooks Webhook.verify accepts the delivery');
  assert.equal(got.headers['webhook-id'], ev.id);
  assert.equal(got.headers['content-type'], 'application/json');
  assert.equal(got.rawBody, JSON.stringify(ev));
  assert.deepEqual(Object.keys(got.payload), ['id', 'type', 'mode', 'createdAt', 'data']);
  assert.equal(got.payload.type, 'order.paid');
  assert.equal(got.payload.mode, 'test');
  // Nothing more to do: a second pass sends nothing.
  assert.equal(await pump(t), 0);
  assert.equal(rx.received.length, 1);
  const detail = await eventDetail(t, s, ev.id);
  assert.equal(detail.deliveries.length, 1);
  assert.equal(detail.deliveries[0].status, 'succeeded');
  assert.equal(detail.deliveries[0].attempts[0].statusCode, 200);
  // The receiver is on loopback (the development exception): its answer is never kept (see ssrf.test.ts).
  assert.equal(detail.deliveries[0].attempts[0].responseExcerpt, LOOPBACK_RESPONSE_OMITTED);
});

test('an event written in a transaction that rolls back is never sent', async () => {
  ({ secret } = await createEndpoint(t, s, { url: rx.url() }));
  let eventId = '';
  await assert.rejects(
    t.db.transaction().execute(async (trx) => {
      eventId = (await writeEvent(trx, t.clock, { storeId: s.storeId, mode: 'test', type: 'order.paid', data: { id: 'ord_rolled_back' } })).id;
      throw new Error('the change failed');
    }),
  );
  assert.ok(eventId);
  await pump(t);
  t.clock.advance(DAY);
  await pump(t);
  assert.equal(rx.received.length, 0);
  assert.equal(await t.db.selectFrom('events').select('id').where('id', '=', eventId).executeTakeFirst(), undefined);
  assert.equal((await admin(t, s)('GET', `/admin/v1/events/${eventId}`)).status, 404);
});

test('a 500 is retried after 5 s with the same event id, and every attempt is logged', async () => {
  ({ secret } = await createEndpoint(t, s, { url: rx.url() }));
  rx.state.respond = (_r, n) => (n === 1 ? { status: 500, body: 'boom' } : { status: 204 });
  const ev = await emit(t, s.storeId);
  await pump(t);
  assert.equal(rx.received.length, 1);
  t.clock.advance(4_999);
  assert.equal(await pump(t), 0, 'not due before 5 s');
  t.clock.advance(1);
  assert.equal(await pump(t), 1);
  assert.equal(rx.byId(ev.id).length, 2);
  for (const r of rx.received) assert.deepEqual(r.verifiedWith, [secret]);
  assert.equal(rx.received[0].rawBody, rx.received[1].rawBody, 'same bytes on every retry');
  const d = (await eventDetail(t, s, ev.id)).deliveries[0];
  assert.equal(d.status, 'succeeded');
  assert.equal(d.attemptCount, 2);
  assert.deepEqual(d.attempts.map((a: any) => [a.attempt, a.statusCode, a.succeeded]), [[1, 500, false], [2, 204, true]]);
  assert.equal(d.attempts[0].responseExcerpt, LOOPBACK_RESPONSE_OMITTED);
  assert.equal(d.attempts[0].error, 'HTTP 500');
});

test('a timeout is a failed attempt and is retried', async () => {
  ({ secret } = await createEndpoint(t, s, { url: rx.url() }));
  rx.state.respond = (_r, n) => (n === 1 ? 'hang' : { status: 200 });
  const ev = await emit(t, s.storeId);
  await pump(t, { timeoutMs: 300 });
  let d = (await eventDetail(t, s, ev.id)).deliveries[0];
  assert.equal(d.status, 'pending');
  assert.equal(d.attempts[0].statusCode, null);
  assert.match(d.attempts[0].error, /timeout/);
  assert.ok(d.attempts[0].durationMs >= 250);
  t.clock.advance(5_000);
  // The answer comes this time: a generous deadline, so a loaded machine does not turn it into a timeout.
  await pump(t, { timeoutMs: 10_000 });
  d = (await eventDetail(t, s, ev.id)).deliveries[0];
  assert.equal(d.status, 'succeeded');
  assert.equal(rx.byId(ev.id).length, 2);
});

test('a refused connection is retried; the retry reaches the endpoint at its current URL with the same id', async () => {
  const port = await closedPort();
  const created = await createEndpoint(t, s, { url: `http://127.0.0.1:${port}/hook` });
  secret = created.secret;
  const ev = await emit(t, s.storeId);
  await pump(t);
  let d = (await eventDetail(t, s, ev.id)).deliveries[0];
  assert.equal(d.status, 'pending');
  assert.match(d.attempts[0].error, /ECONNREFUSED/);
  assert.equal(d.nextAttemptAt, new Date(t.clock.now().getTime() + 5_000).toISOString());
  // The seller fixes the URL; the scheduled retry goes there.
  assert.equal((await admin(t, s)('PATCH', `/admin/v1/webhook-endpoints/${created.endpoint.id}`, { url: rx.url() })).status, 200);
  t.clock.advance(5_000);
  await pump(t);
  assert.equal(rx.byId(ev.id).length, 1);
  assert.deepEqual(rx.received[0].verifiedWith, [secret]);
  d = (await eventDetail(t, s, ev.id)).deliveries[0];
  assert.equal(d.status, 'succeeded');
  assert.equal(d.attemptCount, 2);
});

test('after the whole schedule (8 attempts over ~33 h) the delivery is failed, and a resend delivers it', async () => {
  const created = await createEndpoint(t, s, { url: rx.url() });
  secret = created.secret;
  rx.state.respond = () => ({ status: 503 });
  const ev = await emit(t, s.storeId);
  await pump(t);
  for (const delay of [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]) {
    t.clock.advance(delay - 1);
    assert.equal(await pump(t), 0);
    t.clock.advance(1);
    assert.equal(await pump(t), 1);
  }
  assert.equal(rx.byId(ev.id).length, 8);
  let detail = await eventDetail(t, s, ev.id);
  assert.equal(detail.deliveries[0].status, 'failed');
  assert.equal(detail.deliveries[0].nextAttemptAt, null);
  t.clock.advance(DAY);
  assert.equal(await pump(t), 0, 'a failed delivery is not retried');

  rx.state.respond = () => ({ status: 200 });
  const resent = await admin(t, s)('POST', `/admin/v1/events/${ev.id}/resend`, { endpointId: created.endpoint.id });
  assert.equal(resent.status, 202);
  assert.equal(resent.body.status, 'pending');
  assert.equal(resent.body.trigger, 'resend');
  await pump(t);
  assert.equal(rx.byId(ev.id).length, 9, 'same event id on the resend');
  assert.deepEqual(rx.received.at(-1)!.verifiedWith, [secret]);
  detail = await eventDetail(t, s, ev.id);
  assert.deepEqual(detail.deliveries.map((d: any) => [d.trigger, d.status]), [['event', 'failed'], ['resend', 'succeeded']]);
});

test('410 Gone disables the endpoint at once with the reason shown; it receives nothing more', async () => {
  const created = await createEndpoint(t, s, { url: rx.url() });
  secret = created.secret;
  rx.state.respond = () => ({ status: 410 });
  const ev = await emit(t, s.storeId);
  await pump(t);
  const ep = (await admin(t, s)('GET', `/admin/v1/webhook-endpoints/${created.endpoint.id}`)).body;
  assert.equal(ep.status, 'disabled');
  assert.equal(ep.disabledReason, DISABLED_REASONS.gone);
  assert.equal((await eventDetail(t, s, ev.id)).deliveries[0].status, 'failed');
  await emit(t, s.storeId);
  t.clock.advance(DAY);
  await pump(t);
  assert.equal(rx.received.length, 1);
  // Resending to a disabled endpoint is refused until the seller enables it again.
  const resend = await admin(t, s)('POST', `/admin/v1/events/${ev.id}/resend`, { endpointId: created.endpoint.id });
  assert.equal(resend.status, 409);
  assert.equal(resend.body.code, 'WEBHOOK_ENDPOINT_DISABLED');
  const enabled = await admin(t, s)('PATCH', `/admin/v1/webhook-endpoints/${created.endpoint.id}`, { status: 'enabled' });
  assert.equal(enabled.body.status, 'enabled');
  assert.equal(enabled.body.disabledReason, null);
});

test('an endpoint failing without a break for 5 days is disabled automatically, with the reason', async () => {
  const created = await createEndpoint(t, s, { url: rx.url() });
  secret = created.secret;
  rx.state.respond = () => ({ status: 500 });
  await emit(t, s.storeId);
  await pump(t);
  for (let day = 1; day <= 4; day++) {
    t.clock.advance(DAY);
    await emit(t, s.storeId);
    await pump(t);
  }
  let ep = (await admin(t, s)('GET', `/admin/v1/webhook-endpoints/${created.endpoint.id}`)).body;
  assert.equal(ep.status, 'enabled', 'still enabled after 4 days');
  assert.ok(ep.failingSince);
  t.clock.advance(DAY);
  await emit(t, s.storeId);
  await pump(t);
  ep = (await admin(t, s)('GET', `/admin/v1/webhook-endpoints/${created.endpoint.id}`)).body;
  assert.equal(ep.status, 'disabled');
  assert.equal(ep.disabledReason, DISABLED_REASONS.failing);
  const pending = await t.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', created.endpoint.id).where('status', '=', 'pending').execute();
  assert.equal(pending.length, 0, 'its pending deliveries end (resendable)');
});

test('a success in between restarts the 5-day failure clock', async () => {
  const created = await createEndpoint(t, s, { url: rx.url() });
  secret = created.secret;
  rx.state.respond = () => ({ status: 500 });
  await emit(t, s.storeId);
  await pump(t);
  t.clock.advance(3 * DAY);
  rx.state.respond = () => ({ status: 200 });
  await emit(t, s.storeId);
  await pump(t);
  rx.state.respond = () => ({ status: 500 });
  t.clock.advance(2 * DAY + 1);
  await emit(t, s.storeId);
  await pump(t);
  const ep = (await admin(t, s)('GET', `/admin/v1/webhook-endpoints/${created.endpoint.id}`)).body;
  assert.equal(ep.status, 'enabled');
});

test('an endpoint receives only its own mode and the types it subscribed to; license.issue is left to the licenses module', async () => {
  const paid = await createEndpoint(t, s, { url: rx.url('/paid'), eventTypes: ['order.paid'] });
  secret = paid.secret;
  const ended = await createEndpoint(t, s, { url: rx.url('/ended'), eventTypes: ['subscription.ended', 'license.issue'] });
  const live = await createEndpoint(t, s, { url: 'https://93.184.216.34/hook', mode: 'live', eventTypes: ['order.paid'] });
  const ev = await emit(t, s.storeId, 'order.paid');
  const lic = await emit(t, s.storeId, 'license.issue', { licenseId: 'lic_1' });
  await pump(t);
  const detail = await eventDetail(t, s, ev.id);
  assert.deepEqual(detail.deliveries.map((d: any) => d.endpointId), [paid.endpoint.id]);
  assert.ok(!detail.deliveries.some((d: any) => d.endpointId === live.endpoint.id || d.endpointId === ended.endpoint.id));
  const licDetail = await eventDetail(t, s, lic.id);
  assert.deepEqual(licDetail.deliveries, []);
  assert.ok(licDetail.dispatchedAt, 'marked dispatched, not left in the outbox');
  assert.deepEqual(rx.received.map((r) => r.path), ['/paid']);
  // Another store's endpoint never sees this store's events.
  const other = await createTestStore(t);
  const otherEp = await createEndpoint(t, other, { url: rx.url('/other') });
  await emit(t, s.storeId);
  await pump(t);
  assert.ok(!rx.received.some((r) => r.path === '/other'));
  assert.ok(otherEp.endpoint.id);
});

test('deleting an endpoint stops its pending retries', async () => {
  const created = await createEndpoint(t, s, { url: rx.url() });
  secret = created.secret;
  rx.state.respond = () => ({ status: 500 });
  await emit(t, s.storeId);
  await pump(t);
  assert.equal((await admin(t, s)('DELETE', `/admin/v1/webhook-endpoints/${created.endpoint.id}`)).status, 204);
  t.clock.advance(DAY);
  assert.equal(await pump(t), 0);
  assert.equal(rx.received.length, 1);
  assert.equal((await t.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', created.endpoint.id).execute()).length, 0);
});
