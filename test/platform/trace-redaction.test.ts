// @slow: starts the built service (`node bin/commerce.js start`) with tracing to an OTLP receiver in this test
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createTestApp, createTestStore, post } from '../helpers/app';
import { openPGlite } from '../../src/db';
import { updateModeSettings } from '../../src/stores/service';
import { createProduct, createSubscriptionProduct, AGREED } from '../checkout/factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { seedEmbedded } from '../helpers/embedded-dir';

// Redaction at the source (issue 30, finding 1). A whole paid flow runs against the real server process with tracing
// to an OTLP/HTTP receiver in this test and the access log on: a one-time checkout paid through Toss (the fake), its
// receipt page, an API read filtered by the buyer's e-mail, a live subscription through Toss's billing-auth flow (the
// authKey redirect, the billing key issued and charged), and the buyer's portal. Every byte the trace exporter sent
// and every log line is then searched for that flow's capabilities and personal data: the API key, receipt and portal
// tokens, the portal's cookie, Toss's authKey and billing key, the buyer's e-mail, phone and name. None may be there;
// the spans name routes by template and the Toss billing charge by Toss's own path template.

const BIN = join(process.cwd(), 'bin/commerce.js');

interface Receiver {
  url: string;
  bodies: string[];
  spans: Array<{ name: string; kind: number; attributes: Record<string, unknown> }>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const bodies: string[] = [];
  const spans: Receiver['spans'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        bodies.push(body);
        for (const rs of JSON.parse(body).resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const sp of ss.spans ?? []) spans.push({ name: sp.name, kind: sp.kind, attributes: Object.fromEntries((sp.attributes ?? []).map((a: any) => [a.key, Object.values(a.value)[0]])) });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, spans, close: () => new Promise((r) => server.close(() => r())) };
}

const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) c.kill('SIGKILL');
});

async function startServer(env: Record<string, string>): Promise<{ base: string; output: () => string; stop(): Promise<void> }> {
  const base = { ...(process.env as Record<string, string>) };
  for (const k of Object.keys(base)) if (k.startsWith('OTEL_') || k === 'DATABASE_URL' || k === 'REDIS_URL') delete base[k];
  const child = spawn(process.execPath, [BIN, 'start', '--no-worker', '--no-demo'], {
    env: { ...base, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'debug', LOG_FORMAT: 'json', ACCESS_LOG: 'true', PUBLIC_BASE_URL: 'http://localhost:3000', SETTLEMENT_SCHEDULE: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => child.once('exit', () => (children.delete(child), r())));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not listen: ${out}`)), 90_000);
    child.stdout!.on('data', () => {
      const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening: ${out}`));
    });
  });
  return {
    base: `http://127.0.0.1:${port}`,
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function waitFor<T>(what: string, fn: () => T | undefined | null | false): Promise<T> {
  const until = Date.now() + 30_000;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let fake: FakeToss;
before(async () => {
  fake = await startFakeToss({ kind: 'live' });
});
after(async () => {
  await fake?.close();
});

test('a paid flow traced and access-logged: no token, key or buyer datum of it in any span or log line; routes and Toss paths by template', async () => {
  const rx = await startReceiver();
  const dir = mkdtempSync(join(tmpdir(), 'commerce-redact-'));
  await seedEmbedded(dir);
  const suffix = randomBytes(4).toString('hex');
  const buyer = { buyerName: `홍비밀${suffix}`, buyerEmail: `secret.buyer.${suffix}@example.com`, buyerPhone: `010-7${suffix.replace(/[a-f]/g, '1').slice(0, 3)}-${suffix.replace(/[a-f]/g, '2').slice(0, 4)}` };
  // Seed the embedded database here (a store with live Toss, a live key, two products), then hand it to the server.
  const opened = await openPGlite(dir);
  await opened.migrate();
  const database = { ...opened, drop: () => opened.close() };
  const t = await createTestApp({ database, config: { tossApiBaseUrl: fake.baseUrl } });
  const s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  const liveKey = (await s.newKey({ mode: 'live' })).key;
  const oneTime = await createProduct(t, s, { mode: 'live', price: 15_000 });
  const membership = await createSubscriptionProduct(t, s, { mode: 'live' });
  const masterKey = ((database as any).testMasterKey as Buffer).toString('hex');
  await t.close();
  await opened.close();

  const server = await startServer({ DATA_DIR: dir, MASTER_KEY: masterKey, OTEL_EXPORTER_OTLP_ENDPOINT: rx.url, OTEL_BSP_SCHEDULE_DELAY: '100', TOSS_API_BASE_URL: fake.baseUrl, PAY_ATTEMPTS_PER_IP_PER_HOUR: '100000' });
  const secrets: Record<string, string> = { 'API key': liveKey, 'owner token': s.ownerToken, ...buyer };
  try {
    const base = server.base;
    const api = { authorization: `Bearer ${liveKey}` };
    const newSession = async (body: Record<string, unknown>) => {
      const res = await fetch(`${base}/v1/checkout/sessions`, { method: 'POST', headers: { ...post(liveKey), 'content-type': 'application/json' }, body: JSON.stringify({ successUrl: 'https://example.com/ok', ...body }) });
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()) as { id: string; url: string };
    };
    const payForm = (path: string) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...buyer, method: 'card', action: 'pay', ...AGREED }).toString() });

    // 1. One-time checkout: the payment window, Toss's success redirect (paymentKey, orderId, amount in the query).
    const one = await newSession({ productId: oneTime.id });
    const onePath = new URL(one.url).pathname;
    const form = await payForm(onePath);
    assert.equal(form.status, 200);
    const orderId = /["']?orderId["']?\s*[:=]\s*["'](ord_[A-Za-z0-9]+)/.exec(await form.text())?.[1];
    assert.ok(orderId);
    const success = await fetch(`${base}${onePath}/toss/success?${new URLSearchParams({ paymentKey: `tpk_redact_${suffix}`, orderId, amount: '15000' })}`, { redirect: 'manual' });
    assert.ok(success.status < 400, `success redirect: ${success.status}`);

    // 2. Its receipt page (the token in `t=`), and API reads naming the order and filtering by the buyer's e-mail.
    const order = (await (await fetch(`${base}/v1/orders/${orderId}`, { headers: api })).json()) as { receiptUrl: string };
    const receipt = new URL(order.receiptUrl);
    secrets['receipt token'] = receipt.searchParams.get('t')!;
    const receiptPage = await fetch(`${base}${receipt.pathname}${receipt.search}`);
    assert.equal(receiptPage.status, 200);
    await fetch(`${base}/v1/licenses?${new URLSearchParams({ buyerEmail: buyer.buyerEmail })}`, { headers: api });

    // 3. A live subscription: the billing-auth window, Toss's redirect with authKey, the billing key issued and charged.
    const sub = await newSession({ productId: membership.id, planId: 'basic', interval: 'monthly' });
    const subPath = new URL(sub.url).pathname;
    const subForm = await payForm(subPath);
    assert.equal(subForm.status, 200);
    const customerKey = `sub_${sub.id.slice(3)}`;
    assert.ok((await subForm.text()).includes(customerKey), 'the billing-auth window names the customer key');
    secrets.authKey = `auth_redact_${suffix}_${randomBytes(8).toString('hex')}`;
    const billed = await fetch(`${base}${subPath}/toss/billing-success?${new URLSearchParams({ authKey: secrets.authKey, customerKey })}`, { redirect: 'manual' });
    assert.equal(billed.status, 303, await billed.text());
    const billingKey = [...fake.billingKeys.entries()].find(([, v]) => v.customerKey === customerKey)?.[0];
    assert.ok(billingKey, 'Toss issued a billing key');
    secrets['billing key'] = billingKey;
    assert.ok(fake.calls.some((c) => c.method === 'POST' && c.path === `/v1/billing/${billingKey}`), 'and the first payment was charged to it');

    // 4. The buyer's portal: a portal session through the API, its page (the token in the path).
    const listed = await fetch(`${base}/v1/subscriptions`, { headers: api });
    const subs = (await listed.json()) as { data: Array<{ id: string }> };
    assert.equal(subs.data?.length, 1, JSON.stringify(subs));
    const subscriptionId = subs.data[0]!.id;
    const ps = await fetch(`${base}/v1/portal-sessions`, { method: 'POST', headers: { ...post(liveKey), 'content-type': 'application/json' }, body: JSON.stringify({ subscriptionId }) });
    assert.equal(ps.status, 200, await ps.clone().text());
    const portalUrl = new URL(((await ps.json()) as { url: string }).url);
    secrets['portal token'] = portalUrl.pathname.split('/')[2]!;
    let portal = await fetch(`${base}${portalUrl.pathname}${portalUrl.search}`, { redirect: 'manual' });
    const cookie = portal.headers.get('set-cookie');
    if (cookie) {
      const value = /=([^;]+)/.exec(cookie)?.[1];
      if (value && value.length >= 16) secrets['portal cookie'] = value;
    }
    if (portal.status >= 300 && portal.status < 400) {
      portal = await fetch(new URL(portal.headers.get('location')!, base), { headers: cookie ? { cookie: cookie.split(';')[0]! } : {} });
    }
    assert.equal(portal.status, 200, 'the portal page opens');

    // The spans of that flow have arrived: the receipt's and the portal's server spans, Toss's billing charge.
    const charge = await waitFor('the Toss billing charge span', () => rx.spans.find((sp) => sp.kind === 3 && String(sp.attributes['url.full'] ?? '').includes('/v1/billing/') && sp.attributes['http.request.method'] === 'POST' && !String(sp.attributes['url.full']).includes('authorizations')));
    assert.equal(charge.attributes['url.path'], '/v1/billing/{billingKey}', 'the billing path by Toss\'s template');
    assert.match(String(charge.attributes['url.full']), /^http:\/\/127\.0\.0\.1:\d+\/v1\/billing\/\{billingKey\}$/);
    const serverRoutes = () => rx.spans.filter((sp) => sp.kind === 2).map((sp) => String(sp.attributes['http.route']));
    await waitFor('the receipt and portal server spans', () => serverRoutes().includes('/receipt/:orderId') && serverRoutes().some((r) => r.startsWith('/portal/:token')));
    const receiptSpan = rx.spans.find((sp) => sp.kind === 2 && sp.attributes['http.route'] === '/receipt/:orderId')!;
    assert.equal(receiptSpan.name, 'GET /receipt/:orderId');
    assert.equal(receiptSpan.attributes['url.path'], '/receipt/:orderId', 'the path is the route template');
    assert.equal(receiptSpan.attributes['url.query'], 't=[redacted]', 'query names stay, values do not');
    await waitFor('the billing-success span', () => rx.spans.find((sp) => sp.kind === 2 && String(sp.attributes['http.route']).endsWith('/toss/billing-success')));
  } finally {
    await server.stop();
    await rx.close();
  }

  // The access log wrote a line per request: method, route template, status.
  const lines = server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const access = lines.filter((l) => l.msg === 'request' || l.msg === 'slow request');
  assert.ok(access.some((l) => l.route === '/receipt/:orderId' && l.status === 200), 'the receipt request is logged by its route');
  assert.ok(access.some((l) => String(l.route).startsWith('/portal/:token')), 'and the portal\'s');
  assert.ok(access.every((l) => l.url === undefined), 'no raw URL in the access log');

  const spansText = rx.bodies.join('\n');
  const logText = server.output();
  assert.ok(spansText.length > 10_000 && logText.length > 2_000, 'there is something to search');
  const found: string[] = [];
  for (const [what, value] of Object.entries(secrets)) {
    assert.ok(value && value.length >= 8, `${what} is known to the test`);
    for (const form of new Set([value, encodeURIComponent(value), new URLSearchParams({ x: value }).toString().slice(2), JSON.stringify(value).slice(1, -1)])) {
      if (spansText.includes(form)) found.push(`${what} in a span`);
      if (logText.includes(form)) found.push(`${what} in a log line`);
    }
  }
  assert.deepEqual([...new Set(found)], [], 'no token, key or buyer datum of the flow in the traces or the logs');
  rmSync(dir, { recursive: true, force: true });
});
