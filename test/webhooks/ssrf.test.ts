import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { guardWebhookUrl } from '../../src/webhooks/ssrf';
import { sendSigned } from '../../src/webhooks/outbound';
import { generateSecret } from '../../src/webhooks/model';
import { runDeliveryOnce, dispatchEventsOnce } from '../../src/webhooks/delivery';
import { admin, createEndpoint, emit } from './setup';
import { startReceiver, type Receiver } from './receiver';

// The dev setting off: the production default.
let strict: TestApp;
// The dev setting on (what createTestApp does by default): loopback only, test mode only.
let dev: TestApp;
let ss: TestStore;
let ds: TestStore;
let rx: Receiver;

before(async () => {
  strict = await createTestApp({ config: { webhookAllowLoopback: false } });
  dev = await createTestApp({ config: { webhookAllowLoopback: true } });
  ss = await createTestStore(strict);
  ds = await createTestStore(dev);
  rx = await startReceiver();
});
after(async () => {
  await rx.close();
  await strict.close();
  await dev.close();
});

const REFUSED_HOSTS = [
  '127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.0.10', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1',
  '[::1]', '[fe80::1]', '[fc00::1]', '[::ffff:127.0.0.1]', '[::ffff:a9fe:a9fe]', 'localhost',
];

test('registration refuses every internal or special address, also behind a DNS name (localhost → 127.0.0.1)', async () => {
  for (const host of REFUSED_HOSTS) {
    for (const mode of ['test', 'live'] as const) {
      const res = await admin(strict, ss)('POST', '/admin/v1/webhook-endpoints', { mode, url: `http://${host}:${rx.port}/hook`, eventTypes: ['order.paid'] });
      assert.equal(res.status, 400, `${host} (${mode})`);
      assert.equal(res.body.code, 'WEBHOOK_URL_NOT_ALLOWED', host);
      assert.match(res.body.message, /[가-힣]/);
    }
  }
  const count = await strict.db.selectFrom('webhook_endpoints').select('id').where('store_id', '=', ss.storeId).execute();
  assert.equal(count.length, 0);
});

test('registration refuses non-http(s) schemes, credentials in the URL and names that do not resolve', async () => {
  for (const url of ['ftp://93.184.216.34/x', 'file:///etc/passwd', 'gopher://93.184.216.34/', 'http://user:pw@93.184.216.34/', 'not a url', 'http://no-such-host.invalid/hook']) {
    const res = await admin(strict, ss)('POST', '/admin/v1/webhook-endpoints', { mode: 'test', url, eventTypes: ['order.paid'] });
    assert.equal(res.status, 400, url);
    assert.equal(res.body.code, 'WEBHOOK_URL_NOT_ALLOWED', url);
  }
});

test('a public address is accepted in both modes', async () => {
  for (const mode of ['test', 'live'] as const) {
    const res = await admin(strict, ss)('POST', '/admin/v1/webhook-endpoints', { mode, url: 'https://93.184.216.34/hooks/commerce', eventTypes: ['order.paid'] });
    assert.equal(res.status, 201, mode);
  }
});

test('changing the URL goes through the same guard', async () => {
  const res = await admin(strict, ss)('POST', '/admin/v1/webhook-endpoints', { mode: 'test', url: 'https://93.184.216.34/a', eventTypes: ['order.paid'] });
  const patch = await admin(strict, ss)('PATCH', `/admin/v1/webhook-endpoints/${res.body.endpoint.id}`, { url: 'http://169.254.169.254/latest/meta-data' });
  assert.equal(patch.status, 400);
  assert.equal(patch.body.code, 'WEBHOOK_URL_NOT_ALLOWED');
  assert.equal((await admin(strict, ss)('GET', `/admin/v1/webhook-endpoints/${res.body.endpoint.id}`)).body.url, 'https://93.184.216.34/a');
});

test('the development setting allows loopback in test mode only, and never private or metadata addresses', async () => {
  assert.equal((await admin(dev, ds)('POST', '/admin/v1/webhook-endpoints', { mode: 'test', url: rx.url(), eventTypes: ['order.paid'] })).status, 201);
  assert.equal((await admin(dev, ds)('POST', '/admin/v1/webhook-endpoints', { mode: 'test', url: `http://localhost:${rx.port}/h`, eventTypes: ['order.paid'] })).status, 201);
  for (const url of [rx.url(), `http://localhost:${rx.port}/h`, `http://[::1]:${rx.port}/h`]) {
    const live = await admin(dev, ds)('POST', '/admin/v1/webhook-endpoints', { mode: 'live', url, eventTypes: ['order.paid'] });
    assert.equal(live.status, 400, `live never gets the loopback exception: ${url}`);
  }
  for (const host of ['10.0.0.1', '169.254.169.254', '192.168.1.1', '[fc00::1]']) {
    const res = await admin(dev, ds)('POST', '/admin/v1/webhook-endpoints', { mode: 'test', url: `http://${host}/h`, eventTypes: ['order.paid'] });
    assert.equal(res.status, 400, host);
  }
});

test('delivery checks again after DNS: nothing reaches a refused address, the attempt is logged and retried', async () => {
  // Registered while loopback was allowed, delivered by a worker where it is not (e.g. the setting was turned off).
  const store = await createTestStore(dev);
  const created = await createEndpoint(dev, store, { url: rx.url('/late-check') });
  const ev = await emit(dev, store.storeId);
  await dispatchEventsOnce(dev.deps, dev.clock.now());
  const strictWorkerDeps = { ...dev.deps, config: { ...dev.deps.config, webhookAllowLoopback: false } };
  assert.equal(await runDeliveryOnce(strictWorkerDeps, dev.clock.now()), 1);
  assert.equal(rx.received.filter((r) => r.path === '/late-check').length, 0);
  const d = (await admin(dev, store)('GET', `/admin/v1/events/${ev.id}`)).body.deliveries[0];
  assert.equal(d.endpointId, created.endpoint.id);
  assert.equal(d.status, 'pending');
  assert.equal(d.attempts[0].statusCode, null);
  assert.match(d.attempts[0].error, /address not allowed/);
});

test('sendSigned refuses the whole address table at delivery time and sends nothing', async () => {
  const secret = generateSecret();
  const deps = { config: { ...strict.deps.config, webhookAllowLoopback: false }, clock: strict.clock };
  const before = rx.received.length;
  for (const host of [...REFUSED_HOSTS, `localhost`]) {
    const r = await sendSigned(deps, { id: 'we_x', url: `http://${host}:${rx.port}/hook`, secrets: [secret] }, { id: 'evt_x', type: 'webhook.test', mode: 'test', createdAt: new Date(0).toISOString(), data: {} });
    assert.equal(r.ok, false, host);
    assert.equal(r.status, null);
    assert.match(r.error!, /address not allowed/, host);
  }
  // Live mode ignores the development setting even when it is on.
  const live = await sendSigned(dev.deps, { id: 'we_x', url: rx.url(), secrets: [secret] }, { id: 'evt_y', type: 'webhook.test', mode: 'live', createdAt: new Date(0).toISOString(), data: {} });
  assert.equal(live.ok, false);
  assert.equal(rx.received.length, before);
});

test('a DNS name is refused if any of its addresses is internal (no picking the public one)', async () => {
  const resolve = async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }];
  const r = await guardWebhookUrl('https://mixed.example/hook', { allowLoopback: false, resolve });
  assert.equal(r.ok, false);
  const ok = await guardWebhookUrl('https://public.example/hook', { allowLoopback: false, resolve: async () => [{ address: '93.184.216.34', family: 4 }] });
  assert.ok(ok.ok && ok.address === '93.184.216.34', 'the checked address is the one connected to');
});
