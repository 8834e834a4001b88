import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import dnsPromises from 'node:dns/promises';
import { syncBuiltinESMExports } from 'node:module';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { guardWebhookUrl, loopbackPorts } from '../../src/webhooks/ssrf';
import { loadConfig } from '../../src/config';
import { sendSigned } from '../../src/webhooks/outbound';
import { generateSecret } from '../../src/webhooks/model';
import { runDeliveryOnce, dispatchEventsOnce } from '../../src/webhooks/delivery';
import { admin, createEndpoint, emit, eventDetail, pump } from './setup';
import { LOOPBACK_RESPONSE_OMITTED } from '../../src/webhooks/model';
import { startReceiver, type Receiver } from './receiver';

// The dev setting off: the production default.
let strict: TestApp;
// The dev setting on (what createTestApp does by default): loopback only, test mode only.
let dev: TestApp;
let ss: TestStore;
let ds: TestStore;
let rx: Receiver;

/**
 * All a seller learns of a refused address, at registration and in the delivery log: the same words for every
 * refusal, with the name of the development setting (never anything about the network).
 */
const URL_REFUSED =
  '허용되지 않는 웹훅 주소입니다. 공개된 http(s) 주소만 받을 수 있습니다. 개발 중 이 컴퓨터(localhost)에서 테스트 모드 웹훅을 받으려면 서버를 WEBHOOK_ALLOW_LOOPBACK=true 와 WEBHOOK_LOOPBACK_PORTS=<포트> 설정으로 시작하세요.';

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

test('a refusal says only, in Korean, that the address is not allowed: never how the name resolved or why', async () => {
  // One name per refused range, resolved by a stub resolver standing in for the service's (internal) DNS.
  const answers: Record<string, string> = {
    'db.internal.example': '10.20.30.40',
    'metadata.internal.example': '169.254.169.254',
    'me.internal.example': '127.0.0.1',
    'v6.internal.example': 'fd12:3456::7',
  };
  const app = await createTestApp({ config: { webhookAllowLoopback: false } });
  const store = await createTestStore(app);
  // The service resolves with node:dns/promises' lookup; stand in for it (ESM bindings of built-ins are re-synced).
  const original = dnsPromises.lookup;
  (dnsPromises as any).lookup = async (host: string, opts: any) => (answers[host] ? [{ address: answers[host], family: answers[host].includes(':') ? 6 : 4 }] : original(host, opts));
  syncBuiltinESMExports();
  try {
    for (const [host, address] of Object.entries(answers)) {
      for (const mode of ['test', 'live'] as const) {
        const res = await app.app.inject({ method: 'POST', url: '/admin/v1/webhook-endpoints', headers: { authorization: `Bearer ${store.ownerToken}` }, payload: { mode, url: `https://${host}/hook`, eventTypes: ['order.paid'] } });
        assert.equal(res.statusCode, 400, host);
        const body = res.json();
        assert.equal(body.code, 'WEBHOOK_URL_NOT_ALLOWED');
        assert.equal(body.message, URL_REFUSED, host);
        assert.equal(body.details, undefined, 'no reason, no echo');
        for (const leak of [address, '→', 'loopback', 'private', 'linkLocal', 'address', 'DNS']) assert.ok(!res.body.includes(leak), `${host}: the answer shows "${leak}": ${res.body}`);
      }
    }
    // A name that does not resolve answers exactly the same (no oracle for which internal names exist).
    const missing = await app.app.inject({ method: 'POST', url: '/admin/v1/webhook-endpoints', headers: { authorization: `Bearer ${store.ownerToken}` }, payload: { mode: 'test', url: 'https://no-such-host.invalid/hook', eventTypes: ['order.paid'] } });
    assert.equal(missing.json().message, URL_REFUSED);
    assert.ok(!/ENOTFOUND|getaddrinfo|lookup/i.test(missing.body), missing.body);
  } finally {
    (dnsPromises as any).lookup = original;
    syncBuiltinESMExports();
    await app.close();
  }
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

test('WEBHOOK_LOOPBACK_PORTS: loopback is allowed only to the listed ports, at registration and again at delivery', async () => {
  const unlisted = await startReceiver({ listed: false });
  const other = await startReceiver();
  try {
    const listed = dev.deps.config.webhookLoopbackPorts.join(',');
    for (const [url, port] of [[unlisted.url(), unlisted.port], [`http://localhost:${unlisted.port}/h`, unlisted.port], [`http://[::1]:${unlisted.port}/h`, unlisted.port], ['http://127.0.0.1/h', 80], ['https://localhost/h', 443]] as const) {
      const res = await admin(dev, ds)('POST', '/admin/v1/webhook-endpoints', { mode: 'test', url, eventTypes: ['order.paid'] });
      assert.equal(res.status, 400, `not a listed port: ${url}`);
      assert.equal(res.body.code, 'WEBHOOK_URL_NOT_ALLOWED');
      // The developer is told which port was refused and which list the server runs with.
      assert.ok(res.body.message.includes(`포트 ${port}은(는) WEBHOOK_LOOPBACK_PORTS(${listed})에 없습니다`), `${url}: ${res.body.message}`);
      assert.ok(res.body.message.includes(`WEBHOOK_LOOPBACK_PORTS=${listed},${port}`), res.body.message);
    }
    // A name that is not itself loopback keeps the generic answer (how names resolve is not the seller's to learn).
    const named = await admin(dev, ds)('POST', '/admin/v1/webhook-endpoints', { mode: 'test', url: 'http://10.0.0.1:9/h', eventTypes: ['order.paid'] });
    assert.equal(named.body.message, URL_REFUSED);
    // Live mode never gets the loopback exception, so it never names the list either.
    const live = await admin(dev, ds)('POST', '/admin/v1/webhook-endpoints', { mode: 'live', url: `http://localhost:${unlisted.port}/h`, eventTypes: ['order.paid'] });
    assert.equal(live.body.message, URL_REFUSED);
    assert.equal((await admin(dev, ds)('POST', '/admin/v1/webhook-endpoints', { mode: 'test', url: rx.url('/listed'), eventTypes: ['order.paid'] })).status, 201);
    // Registered on a listed port, then the operator narrows the list: delivery checks the port again, sends nothing.
    const store = await createTestStore(dev);
    await createEndpoint(dev, store, { url: other.url('/narrowed') });
    const ev = await emit(dev, store.storeId);
    await dispatchEventsOnce(dev.deps, dev.clock.now());
    const narrowed = { ...dev.deps, config: { ...dev.deps.config, webhookLoopbackPorts: [rx.port] } };
    assert.equal(await runDeliveryOnce(narrowed, dev.clock.now(), { timeoutMs: 5_000 }), 1);
    assert.equal(other.received.length, 0, 'nothing reached the port taken off the list');
    const d = (await eventDetail(dev, store, ev.id)).deliveries[0];
    assert.equal(d.attempts[0].error, URL_REFUSED);
  } finally {
    await unlisted.close();
    await other.close();
  }
});

test('the configuration: WEBHOOK_LOOPBACK_PORTS is a list of ports, required by WEBHOOK_ALLOW_LOOPBACK=true', () => {
  const env = (e: Record<string, string>) => ({ DATA_DIR: 'memory://', MASTER_KEY: 'a'.repeat(64), ...e });
  const memory = { dataDir: 'memory://' };
  assert.deepEqual(loadConfig(env({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_LOOPBACK_PORTS: '4000, 4001,4000' }), memory).webhookLoopbackPorts, [4000, 4001]);
  assert.throws(() => loadConfig(env({ WEBHOOK_ALLOW_LOOPBACK: 'true' }), memory), /WEBHOOK_LOOPBACK_PORTS/);
  for (const bad of ['0', '65536', 'abc', '80-90', '-1', '4000;4001']) {
    assert.throws(() => loadConfig(env({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_LOOPBACK_PORTS: bad }), memory), /WEBHOOK_LOOPBACK_PORTS/, bad);
  }
  const off = loadConfig(env({ WEBHOOK_LOOPBACK_PORTS: '4000' }), memory);
  assert.equal(off.webhookAllowLoopback, false, 'the list alone does not turn loopback on');
  assert.deepEqual(loopbackPorts(off, 'test'), []);
  const on = loadConfig(env({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_LOOPBACK_PORTS: '4000' }), memory);
  assert.deepEqual(loopbackPorts(on, 'test'), [4000]);
  assert.deepEqual(loopbackPorts(on, 'live'), [], 'live mode never');
});

test('the response body of a loopback delivery is never stored or shown; the seller sees that it was omitted', async () => {
  const SECRET_BODY = 'internal-admin-panel: root password hunter2';
  const local = await startReceiver({ respond: (_r, n) => (n === 1 ? { status: 500, body: SECRET_BODY } : { status: 200, body: SECRET_BODY }) });
  try {
    const store = await createTestStore(dev);
    await createEndpoint(dev, store, { url: local.url('/peek') });
    const ev = await emit(dev, store.storeId);
    await pump(dev);
    dev.clock.advance(5_000);
    await pump(dev);
    assert.equal(local.received.length, 2);
    const detail = (await admin(dev, store)('GET', `/admin/v1/events/${ev.id}`));
    const d = detail.body.deliveries[0];
    assert.equal(d.status, 'succeeded');
    assert.deepEqual(d.attempts.map((a: any) => [a.statusCode, a.responseExcerpt]), [[500, LOOPBACK_RESPONSE_OMITTED], [200, LOOPBACK_RESPONSE_OMITTED]]);
    assert.ok(!JSON.stringify(detail.body).includes('hunter2'), 'not in the console answer');
    const list = await admin(dev, store)('GET', `/admin/v1/events?limit=100`);
    assert.ok(!JSON.stringify(list.body).includes('hunter2'), 'not in the event list');
    const rows = await dev.db.selectFrom('webhook_attempts').select(['response_excerpt', 'error']).where('event_id', '=', ev.id).execute();
    assert.equal(rows.length, 2);
    for (const r of rows) {
      assert.equal(r.response_excerpt, LOOPBACK_RESPONSE_OMITTED, 'not even stored');
      assert.ok(!String(r.error).includes('hunter2'));
    }
    // An attempt logged before this rule (body stored) is not shown either: a loopback URL hides it on the way out.
    await dev.db.updateTable('webhook_attempts').set({ response_excerpt: SECRET_BODY }).where('event_id', '=', ev.id).execute();
    const again = await admin(dev, store)('GET', `/admin/v1/events/${ev.id}`);
    assert.ok(!JSON.stringify(again.body).includes('hunter2'), 'legacy rows are hidden too');
  } finally {
    await local.close();
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
  assert.equal(d.attempts[0].error, URL_REFUSED);
});

test('sendSigned refuses the whole address table at delivery time and sends nothing', async () => {
  const secret = generateSecret();
  const deps = { config: { ...strict.deps.config, webhookAllowLoopback: false }, clock: strict.clock };
  const before = rx.received.length;
  for (const host of [...REFUSED_HOSTS, `localhost`]) {
    const r = await sendSigned(deps, { id: 'we_x', url: `http://${host}:${rx.port}/hook`, secrets: [secret] }, { id: 'evt_x', type: 'webhook.test', mode: 'test', createdAt: new Date(0).toISOString(), data: {} });
    assert.equal(r.ok, false, host);
    assert.equal(r.status, null);
    assert.equal(r.error, URL_REFUSED, host);
  }
  // Live mode ignores the development setting even when it is on.
  const live = await sendSigned(dev.deps, { id: 'we_x', url: rx.url(), secrets: [secret] }, { id: 'evt_y', type: 'webhook.test', mode: 'live', createdAt: new Date(0).toISOString(), data: {} });
  assert.equal(live.ok, false);
  assert.equal(rx.received.length, before);
});

test('a DNS name is refused if any of its addresses is internal (no picking the public one)', async () => {
  const resolve = async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }];
  const r = await guardWebhookUrl('https://mixed.example/hook', { loopbackPorts: [], resolve });
  assert.equal(r.ok, false);
  const ok = await guardWebhookUrl('https://public.example/hook', { loopbackPorts: [], resolve: async () => [{ address: '93.184.216.34', family: 4 }] });
  assert.ok(ok.ok && ok.address === '93.184.216.34', 'the checked address is the one connected to');
});
