// @slow: starts the built service (`node bin/commerce.js start`) as its own process, with and without tracing
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createTestApp, createTestDatabase, createTestStore, post } from '../helpers/app';
import { openPGlite } from '../../src/db';
import { updateModeSettings } from '../../src/stores/service';
import { createProduct } from '../checkout/factory';
import { BUYER, AGREED } from '../checkout/factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';

// Tracing end to end: the real server process, started as in production with OTEL_EXPORTER_OTLP_ENDPOINT pointing at
// an OTLP/HTTP receiver in this test, takes one paid checkout through the fake Toss. The trace of Toss's success
// redirect holds the HTTP server span, the SQL statements under it (pg's instrumentation on PostgreSQL, our own spans
// on PGlite) and the Toss confirm call, all with one trace id, and the server's log line for that request carries it.
// On PostgreSQL with REDIS_URL set, the rate limit's Redis commands are spans of the API request too.
// Without the variable, the process loads nothing from OpenTelemetry.

const BIN = join(process.cwd(), 'bin/commerce.js');
const LIST_MODULES = join(process.cwd(), 'test/fixtures/otel/list-modules.cjs');
const PROCESS_DEADLINE_MS = 90_000;

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
  resource: Record<string, unknown>;
}

/** An OTLP/HTTP receiver (POST /v1/traces, JSON as the http exporter sends it) keeping every span it is sent. */
async function startReceiver(): Promise<{ url: string; spans: OtlpSpan[]; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        assert.match(String(req.headers['content-type']), /application\/json/);
        for (const rs of JSON.parse(body).resourceSpans ?? []) {
          const resource = Object.fromEntries((rs.resource?.attributes ?? []).map((a: any) => [a.key, Object.values(a.value)[0]]));
          for (const ss of rs.scopeSpans ?? []) for (const sp of ss.spans ?? []) spans.push({ ...sp, resource });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, close: () => new Promise((r) => server.close(() => r())) };
}

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v ? Object.values(v)[0] : undefined;
};

interface Started {
  base: string;
  output: () => string;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** `node [--require list-modules] bin/commerce.js start --no-worker --no-demo` with `env`; resolves once it listens. */
async function startServer(env: Record<string, string>, listModulesTo?: string): Promise<Started> {
  const base = { ...(process.env as Record<string, string>) };
  for (const k of Object.keys(base)) if (k.startsWith('OTEL_') || k === 'DATABASE_URL' || k === 'REDIS_URL') delete base[k];
  const args = [...(listModulesTo ? ['--require', LIST_MODULES] : []), BIN, 'start', '--no-worker', '--no-demo'];
  const child = spawn(process.execPath, args, {
    env: { ...base, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', LOG_FORMAT: 'json', ACCESS_LOG: 'true', PUBLIC_BASE_URL: 'http://localhost:3000', SETTLEMENT_SCHEDULE: 'off', ...(listModulesTo ? { LIST_MODULES_OUT: listModulesTo } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => child.once('exit', () => (children.delete(child), r())));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not listen: ${out}`)), PROCESS_DEADLINE_MS);
    const look = () => {
      const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', look);
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

let fake: FakeToss;
before(async () => {
  fake = await startFakeToss({ kind: 'live' });
});
after(async () => {
  await fake?.close();
});

/** A store with live Toss (the fake), a live key and a product, written by this process before the server starts. */
async function seed(database: Awaited<ReturnType<typeof createTestDatabase>>): Promise<{ liveKey: string; productId: string; masterKey: string; close(): Promise<void> }> {
  const t = await createTestApp({ database, config: { tossApiBaseUrl: fake.baseUrl } });
  const s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  const liveKey = (await s.newKey({ mode: 'live' })).key;
  const product = await createProduct(t, s, { mode: 'live', price: 15_000 });
  return { liveKey, productId: product.id, masterKey: ((database as any).testMasterKey as Buffer).toString('hex'), close: () => t.close() };
}

/** One paid checkout over HTTP, as a buyer's browser does it; returns the path of Toss's success redirect. */
async function paidCheckout(base: string, liveKey: string, productId: string): Promise<string> {
  const created = await fetch(`${base}/v1/checkout/sessions`, {
    method: 'POST',
    headers: { ...post(liveKey), 'content-type': 'application/json' },
    body: JSON.stringify({ productId, successUrl: 'https://example.com/ok' }),
  });
  assert.equal(created.status, 200, await created.clone().text());
  const session = (await created.json()) as { id: string; url: string };
  const payPath = new URL(session.url).pathname;
  const form = await fetch(`${base}${payPath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...BUYER, method: 'card', action: 'pay', ...AGREED }).toString(),
  });
  assert.equal(form.status, 200, 'Toss\'s payment window opens');
  const orderId = /["']?orderId["']?\s*[:=]\s*["'](ord_[A-Za-z0-9]+)/.exec(await form.text())?.[1];
  assert.ok(orderId, 'the payment window page names the order id');
  const success = `${payPath}/toss/success?${new URLSearchParams({ paymentKey: `tpk_trace_${randomBytes(6).toString('hex')}`, orderId, amount: '15000' })}`;
  const res = await fetch(`${base}${success}`, { redirect: 'manual' });
  assert.ok(res.status < 400, `success redirect answered ${res.status}`);
  assert.equal([...fake.payments.values()].filter((p) => p.orderId === orderId && p.status === 'DONE').length, 1, 'Toss approved the payment');
  return success;
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

async function traceOfPaidCheckout(kind: 'pglite' | 'postgres'): Promise<void> {
  const rx = await startReceiver();
  let dir: string | null = null;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const env: Record<string, string> = {
    OTEL_EXPORTER_OTLP_ENDPOINT: rx.url,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    TOSS_API_BASE_URL: fake.baseUrl,
    // With Redis the per-address payment limit (30 an hour by default) is shared by every process on this machine that
    // pays from 127.0.0.1 in the hour (the cluster suite pays hundreds): this test's one payment must not depend on it.
    PAY_ATTEMPTS_PER_IP_PER_HOUR: '100000',
  };
  if (kind === 'pglite') {
    // The embedded database is one process's: seed it here, close it, then hand its directory to the server.
    dir = mkdtempSync(join(tmpdir(), 'commerce-otel-'));
    const opened = await openPGlite(dir);
    await opened.migrate();
    database = { ...opened, drop: () => opened.close() };
    env.DATA_DIR = dir;
  } else {
    database = await createTestDatabase();
    env.DATABASE_URL = database.url!;
    // With Redis (REDIS_URL, as the other Redis tests take it) the shared rate limit's commands are traced too.
    if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
  }
  const seeded = await seed(database);
  env.MASTER_KEY = seeded.masterKey;
  if (kind === 'pglite') await database.close();
  const server = await startServer(env);
  try {
    const success = await paidCheckout(server.base, seeded.liveKey, seeded.productId);
    const route = '/pay/:sessionId/toss/success';
    const serverSpan = await waitFor('the success request\'s server span', () => rx.spans.find((s) => s.kind === 2 && attr(s, 'http.route') !== undefined && String(attr(s, 'http.route')).endsWith('/toss/success')));
    assert.equal(serverSpan.resource['service.name'], 'commerce-api');
    assert.match(serverSpan.name, /^GET \/.*\/toss\/success$/, `named after its route (${route} or the like): ${serverSpan.name}`);
    const trace = () => rx.spans.filter((s) => s.traceId === serverSpan.traceId);
    const gateway = await waitFor('the Toss confirm span', () => trace().find((s) => s.name === 'toss confirm'));
    assert.equal(attr(gateway, 'gateway.outcome'), 'ok');
    assert.equal(gateway.kind, 3, 'a client span');

    const byId = new Map(rx.spans.map((s) => [s.spanId, s]));
    const under = (s: OtlpSpan, ancestor: OtlpSpan) => {
      for (let p = s.parentSpanId ? byId.get(s.parentSpanId) : undefined; p; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) if (p.spanId === ancestor.spanId) return true;
      return false;
    };
    assert.ok(under(gateway, serverSpan), 'the Toss call is inside the request');
    const isSql = (s: OtlpSpan) => (kind === 'pglite' ? s.name.startsWith('pglite.query:') : attr(s, 'db.system') === 'postgresql' || attr(s, 'db.system.name') === 'postgresql');
    const sql = await waitFor('SQL spans under the request', () => {
      const found = trace().filter((s) => isSql(s) && under(s, serverSpan));
      return found.length >= 5 && found;
    });
    assert.ok(sql.some((s) => /insert into "orders"/i.test(String(attr(s, 'db.query.text') ?? attr(s, 'db.statement') ?? ''))), 'the order insert is among them');

    if (env.REDIS_URL) {
      const redis = await waitFor('a Redis command inside an API request', () =>
        rx.spans.find((s) => (attr(s, 'db.system.name') ?? attr(s, 'db.system')) === 'redis' && rx.spans.some((p) => p.kind === 2 && p.traceId === s.traceId && under(s, p))),
      );
      assert.ok(redis.name, 'the rate limit\'s Redis command is a span of the request');
    }

    // The server's log line for that request (ACCESS_LOG; 'slow request' on a loaded machine) carries the trace id.
    const line = await waitFor('the access log line of the success request', () =>
      server
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l))
        .find((l) => (l.msg === 'request' || l.msg === 'slow request') && String(l.route).endsWith('/toss/success')),
    );
    assert.equal(line.trace_id, serverSpan.traceId);
    assert.match(String(line.span_id), /^[0-9a-f]{16}$/);
    assert.ok(success);
  } finally {
    await server.stop();
    await seeded.close().catch(() => undefined);
    await rx.close();
    if (kind === 'postgres') await database.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

test('PGlite: the trace of a paid checkout holds the HTTP request, its SQL statements and the Toss call; its log line carries the trace id', async () => {
  await traceOfPaidCheckout('pglite');
});

test('PostgreSQL: the same trace, with the statements from pg\'s instrumentation', { skip: process.env.TEST_DATABASE_URL ? false : 'set TEST_DATABASE_URL' }, async () => {
  await traceOfPaidCheckout('postgres');
});

test('tracing off: the process loads nothing from OpenTelemetry (and with it on, the same check sees it loaded)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-otel-off-'));
  const rx = await startReceiver();
  try {
    const loaded = async (env: Record<string, string>) => {
      const list = join(dir, `modules-${randomBytes(4).toString('hex')}.json`);
      const server = await startServer({ DATA_DIR: join(dir, 'data'), ...env }, list);
      const res = await fetch(`${server.base}/v1/products`, { headers: { authorization: 'Bearer nope' } });
      assert.equal(res.status, 401);
      await server.stop();
      const files = JSON.parse(readFileSync(list, 'utf8')) as string[];
      assert.ok(files.some((f) => f.includes(`${join('node_modules', 'fastify')}`)), 'the module list is read (fastify is in it)');
      // prom-client (a dependency from before tracing) itself requires @opentelemetry/api, the no-op API package, for
      // its exemplars: that one is always there. The SDK, exporter, instrumentations and module hooks must not be.
      return files.filter((f) => (f.includes('@opentelemetry') && !f.includes(join('node_modules', '@opentelemetry', 'api', ''))) || /(import|require)-in-the-middle/.test(f));
    };
    assert.deepEqual(await loaded({}), [], 'nothing from the OpenTelemetry SDK without OTEL_EXPORTER_OTLP_ENDPOINT');
    const traced = await loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: rx.url });
    assert.ok(traced.some((f) => f.includes(join('@opentelemetry', 'sdk-trace', ''))), 'with it, the SDK is loaded (so the check above can see it)');
  } finally {
    await rx.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
