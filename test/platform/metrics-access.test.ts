import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app';
import { freePort } from '../helpers/ports';
import { serveMetricsListener } from '../../src/platform/http/metrics';
import { loadConfig } from '../../src/config';

// /metrics is not public (issue 30, finding 5): its counters (payments, refunds, reconciliation) and every route
// template are for the operator's scraper. METRICS_TOKEN asks for a bearer token; METRICS_LISTEN moves it to a
// listener of its own (127.0.0.1 by default); with neither, only a scraper on this machine talking to the process
// directly is answered (a loopback peer without a proxy's forwarding header).

const TOKEN = 'metrics-token-0123456789abcdef';
const ENV = { DATA_DIR: 'memory://', MASTER_KEY: '00'.repeat(32) };
const apps: TestApp[] = [];
after(async () => {
  for (const t of apps) await t.close();
});
async function app(config: Record<string, unknown>): Promise<TestApp> {
  const t = await createTestApp({ config });
  apps.push(t);
  return t;
}
const scrape = (t: TestApp, opts: { headers?: Record<string, string>; remoteAddress?: string } = {}) => t.app.inject({ method: 'GET', url: '/metrics', ...opts });

test('METRICS_TOKEN: /metrics answers 401 without the token or with another, 200 with it', async () => {
  const t = await app({ metricsToken: TOKEN });
  const none = await scrape(t);
  assert.equal(none.statusCode, 401, 'not even from this machine');
  assert.equal(none.headers['www-authenticate'], 'Bearer realm="metrics"');
  assert.doesNotMatch(none.body, /http_requests_total|commerce_/);
  assert.equal((await scrape(t, { headers: { authorization: `Bearer ${TOKEN}x` } })).statusCode, 401);
  assert.equal((await scrape(t, { headers: { authorization: `Basic ${TOKEN}` } })).statusCode, 401);
  const ok = await scrape(t, { headers: { authorization: `Bearer ${TOKEN}` }, remoteAddress: '203.0.113.9' });
  assert.equal(ok.statusCode, 200);
  assert.match(ok.body, /http_requests_total/);
});

test('no token, no listener: only a direct scrape from this machine is answered; from elsewhere or through a proxy, 401', async () => {
  const t = await app({ metricsToken: null, metricsListen: null });
  assert.equal((await scrape(t, { remoteAddress: '127.0.0.1' })).statusCode, 200);
  assert.equal((await scrape(t, { remoteAddress: '::1' })).statusCode, 200);
  assert.equal((await scrape(t, { remoteAddress: '203.0.113.9' })).statusCode, 401, 'a public address');
  assert.equal((await scrape(t, { remoteAddress: '10.0.0.5' })).statusCode, 401, 'a private network (another container) too');
  // A proxy on this machine relays the public from loopback: its forwarding header gives it away.
  assert.equal((await scrape(t, { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.9' } })).statusCode, 401);
  assert.equal((await scrape(t, { remoteAddress: '127.0.0.1', headers: { forwarded: 'for=203.0.113.9' } })).statusCode, 401);
});

test('METRICS_LISTEN: /metrics on a listener of its own (loopback), not on the service\'s', async () => {
  const port = await freePort();
  const config = { metricsToken: null, metricsListen: { host: '127.0.0.1', port } };
  const t = await app(config);
  assert.equal((await scrape(t)).statusCode, 404, 'the service\'s listener does not serve it');
  const listener = await serveMetricsListener(config, t.app.metricsRegistry);
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /http_requests_total/);
    assert.equal((await fetch(`http://127.0.0.1:${port}/v1/products`)).status, 404, 'nothing else there');
  } finally {
    await listener.close();
  }
});

test('METRICS_TOKEN and METRICS_LISTEN are read and checked from the environment', () => {
  const c = loadConfig({ ...ENV, METRICS_TOKEN: TOKEN, METRICS_LISTEN: '9464' });
  assert.equal(c.metricsToken, TOKEN);
  assert.deepEqual(c.metricsListen, { host: '127.0.0.1', port: 9464 });
  assert.deepEqual(loadConfig({ ...ENV, METRICS_LISTEN: '0.0.0.0:9464' }).metricsListen, { host: '0.0.0.0', port: 9464 });
  assert.throws(() => loadConfig({ ...ENV, METRICS_TOKEN: 'short' }), /METRICS_TOKEN must be at least 16/);
  assert.throws(() => loadConfig({ ...ENV, METRICS_LISTEN: 'localhost' }), /METRICS_LISTEN must be host:port/);
  assert.equal(loadConfig(ENV).metricsToken, null);
});
