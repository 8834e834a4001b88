#!/usr/bin/env node
// `npm run test:cluster [-- --pgbouncer | --both]`: the multi-instance checks of a production deployment, run with
// real processes: a fresh PostgreSQL database, Redis, three servers (`commerce start --no-worker`) and two workers
// (`commerce worker`) behind a local nginx (least_conn, X-Forwarded-For, TRUST_PROXY), and optionally PgBouncer in
// transaction pooling mode between them and PostgreSQL (DATABASE_URL → PgBouncer, DATABASE_DIRECT_URL → PostgreSQL).
//
//   a. the shared rate limit: the exact number of 429s for N requests over the limit, spread over the servers
//   b. idempotency across processes: one Idempotency-Key sent to every server at once → one session, one body (30 rounds)
//   c. cache invalidation across processes: an API key (and a license) revoked on one server is refused by the others
//      within 2 s
//   d. webhooks and renewals once with two workers: every order.paid delivered exactly once; concurrent test-clock
//      advances on two servers renew each subscription once
//   e. kill -9 of a server and a worker under load: no request lost beyond the killed server's in-flight ones, which
//      the client's retry (same Idempotency-Key) completes; every paid order's order.paid delivered
//   f. graceful drain: SIGTERM to one of the two servers left while reads and checkout creates run through the proxy,
//      with every core kept busy by other processes: 0 failed requests, /ready 503 while it drains, exit 0
//
// Like production's proxy (deploy/Caddyfile), the proxy checks each server's /ready (every second here) and takes one
// that does not answer 200 out of the rotation (startHealthChecks: open-source nginx has no active checks).
//
// Needs PostgreSQL (CLUSTER_DATABASE_URL, else TEST_DATABASE_URL, else postgres://root@127.0.0.1:5432/test), Redis
// (CLUSTER_REDIS_URL, else REDIS_URL, else redis://127.0.0.1:6379/7), nginx and, for --pgbouncer, pgbouncer (Debian's packages);
// prints a skip and exits 0 when one is missing. Runs dist/ (npm run build). Exit code 1 when a check fails.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import { availableParallelism } from 'node:os';
import { mkdtempSync, writeFileSync, rmSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes, randomUUID } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';
import { Redis } from 'ioredis';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const MODES = args.includes('--both') ? ['direct', 'pgbouncer'] : args.includes('--pgbouncer') ? ['pgbouncer'] : ['direct'];
const PG_URL = process.env.CLUSTER_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://root@127.0.0.1:5432/test';
// Counters are keyed by API key, and every run makes new keys: a shared Redis is fine.
const REDIS_URL = process.env.CLUSTER_REDIS_URL || process.env.REDIS_URL || 'redis://127.0.0.1:6379/7';
const DB_PREFIX = process.env.CLUSTER_DB_PREFIX || 'cluster_test';
const VERBOSE = !!process.env.CLUSTER_VERBOSE;

/** The rate limit the servers run with, and the requests check (a) sends with one key. */
const RATE_LIMIT = 150;
const RATE_REQUESTS = 200;
/** The bound of check (c), stated in docs/manual/11-operations.md. */
const INVALIDATION_BOUND_MS = 2000;
const LICENSE_CACHE_MS = 10_000;

const results = [];
function check(name, ok, detail) {
  results.push({ name, ok });
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'}  ${name}${detail ? ` — ${detail}` : ''}\n`);
}
const log = (msg) => process.stdout.write(`      ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function which(cmd) {
  for (const dir of ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin', ...(process.env.PATH ?? '').split(':')]) {
    if (dir && existsSync(join(dir, cmd))) return join(dir, cmd);
  }
  return null;
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(what, fn, timeoutMs, everyMs = 100) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Prerequisites

async function prerequisites() {
  const missing = [];
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('select 1');
  } catch (e) {
    missing.push(`PostgreSQL at ${PG_URL} (${e.message})`);
  } finally {
    await c.end().catch(() => {});
  }
  const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  r.on('error', () => {});
  try {
    await r.connect();
    await r.ping();
  } catch (e) {
    missing.push(`Redis at ${REDIS_URL} (${e.message})`);
  } finally {
    r.disconnect();
  }
  if (!which('nginx')) missing.push('nginx (apt-get install nginx)');
  if (MODES.includes('pgbouncer') && !which('pgbouncer')) {
    // --both still runs the direct suite; the PgBouncer run is reported as skipped.
    process.stdout.write('test:cluster: pgbouncer is not installed (apt-get install pgbouncer): the PgBouncer run is skipped\n');
    MODES.splice(MODES.indexOf('pgbouncer'), 1);
    if (MODES.length === 0) missing.push('pgbouncer (apt-get install pgbouncer)');
  }
  if (!existsSync(join(ROOT, 'dist/cli.js'))) missing.push('dist/cli.js (npm run build)');
  return missing;
}

// ---------------------------------------------------------------------------------------------------------------
// The processes

const children = new Set();

function startProcess(name, cmd, argv, env, opts = {}) {
  const child = spawn(cmd, argv, { env, cwd: opts.cwd ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: false });
  children.add(child);
  let tail = '';
  const keep = (d) => {
    tail = (tail + d.toString()).slice(-4000);
    if (VERBOSE) process.stdout.write(`[${name}] ${d}`);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.once('exit', () => children.delete(child));
  return { name, child, exited, tail: () => tail };
}

async function stopAll() {
  await Promise.all(
    [...children].map(async (c) => {
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      const t = setTimeout(() => c.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(t);
    }),
  );
}

async function startPgbouncer(dir, dbName) {
  const port = await freePort();
  const u = new URL(PG_URL);
  const user = decodeURIComponent(u.username || 'root');
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `${dbName} = host=${u.hostname} port=${u.port || 5432} dbname=${dbName}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 500',
      'default_pool_size = 20',
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: drop to `nobody` then (it reads its files before switching).
  const asRoot = process.getuid?.() === 0;
  const p = startProcess('pgbouncer', which('pgbouncer'), [...(asRoot ? ['-u', 'nobody'] : []), join(dir, 'pgbouncer.ini')], process.env, { cwd: dir });
  await waitFor('pgbouncer', () => new Promise((res) => net.connect(port, '127.0.0.1').once('connect', function () { this.end(); res(true); }).once('error', () => res(false))), 10_000);
  u.port = String(port);
  u.hostname = '127.0.0.1';
  u.pathname = `/${dbName}`;
  return { process: p, url: u.toString() };
}

function nginxConf(dir, port, upstreamPorts, down = new Set()) {
  return `daemon off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'nginx-error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'nginx-body')};
  proxy_temp_path ${join(dir, 'nginx-proxy')};
  fastcgi_temp_path ${join(dir, 'nginx-fastcgi')};
  uwsgi_temp_path ${join(dir, 'nginx-uwsgi')};
  scgi_temp_path ${join(dir, 'nginx-scgi')};
  upstream commerce {
    least_conn;
${upstreamPorts.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=5s${down.has(p) ? ' down' : ''};`).join('\n')}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://commerce;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      # A server that is gone (connection refused or reset before an answer) is skipped: GETs and other idempotent
      # requests go to the next one; a POST already sent is not resent (non_idempotent is off), the client retries
      # it with its Idempotency-Key.
      proxy_next_upstream error timeout http_502 http_503;
      proxy_next_upstream_tries 3;
      proxy_connect_timeout 1s;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}

async function startNginx(dir, upstreamPorts) {
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, nginxConf(dir, port, upstreamPorts));
  const p = startProcess('nginx', which('nginx'), ['-e', join(dir, 'nginx-error.log'), '-p', dir, '-c', conf], process.env, { cwd: dir });
  await waitFor('nginx', () => new Promise((res) => net.connect(port, '127.0.0.1').once('connect', function () { this.end(); res(true); }).once('error', () => res(false))), 10_000);
  let down = new Set();
  return {
    process: p,
    base: `http://127.0.0.1:${port}`,
    /** Takes servers out of (or back into) the rotation: a new configuration, then nginx reloads it (SIGHUP). */
    setDown(ports) {
      const next = new Set(ports);
      if (next.size === down.size && [...next].every((x) => down.has(x))) return false;
      down = next;
      writeFileSync(conf, nginxConf(dir, port, upstreamPorts, down));
      p.child.kill('SIGHUP');
      return true;
    },
  };
}

/**
 * The proxy's active health check, as a production proxy has one (deploy/Caddyfile: Caddy asks every server's /ready
 * every 2 s; a Kubernetes readiness probe likewise): a server whose /ready does not answer 200 (draining after
 * SIGTERM, killed) leaves the rotation, and comes back when it answers 200 again. Open-source nginx has no active
 * checks, so this loop asks instead, every HEALTH_INTERVAL_MS, and reloads nginx's upstream list on a change.
 * Without it nginx learns of a draining server only when its listener closes: a request nginx has just sent on a
 * connection still waiting in the closing listener's accept queue is reset by the kernel, and nginx does not resend a
 * POST it already sent (the 502 a drain under load cost, issue 31).
 */
const HEALTH_INTERVAL_MS = 1000;
function startHealthChecks(proxy, ports) {
  let stopped = false;
  const changes = [];
  const state = new Map(ports.map((p) => [p, true]));
  const loop = (async () => {
    while (!stopped) {
      // Out on an answer other than 200 (draining: 503) or a refused connection (gone); back on a 200. A check that
      // times out on a busy machine changes nothing: flapping would reload nginx for no reason.
      const states = await Promise.all(
        ports.map((p) =>
          fetch(`http://127.0.0.1:${p}/ready`, { signal: AbortSignal.timeout(3000) }).then(
            (r) => r.status === 200,
            (e) => (e?.cause?.code === 'ECONNREFUSED' ? false : null),
          ),
        ),
      );
      if (stopped) break;
      for (const [i, p] of ports.entries()) if (states[i] !== null) state.set(p, states[i]);
      const down = ports.filter((p) => state.get(p) === false);
      if (proxy.setDown(down)) changes.push({ at: Date.now(), down });
      await sleep(HEALTH_INTERVAL_MS);
    }
  })();
  return {
    changes,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/**
 * Background CPU load: one busy process per core, so the drain is checked on a machine whose cores are all taken (the
 * servers' event loops run late, connections wait in accept queues), not only on an idle one.
 */
function startCpuBurner() {
  const n = availableParallelism();
  const procs = Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  for (const c of procs) children.add(c);
  return {
    count: n,
    async stop() {
      await Promise.all(
        procs.map((c) => {
          children.delete(c);
          if (c.exitCode !== null || c.signalCode !== null) return null;
          const gone = new Promise((r) => c.once('exit', r));
          c.kill('SIGKILL');
          return gone;
        }),
      );
    },
  };
}

/**
 * One request on its own connection to the proxy (no keep-alive): check (f)'s load. Reloading nginx (the health
 * check above) closes its idle client connections, and a request a client sends on one at that instant fails; that
 * is the reload's doing, not the drain's, and Caddy changes an upstream's health without any reload.
 */
function callFresh(base, method, path, { token, body } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = { connection: 'close', ...(token ? { authorization: `Bearer ${token}` } : {}) };
    if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), 'idempotency-key': randomUUID() });
    const req = httpRequest(base + path, { method, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The webhook receiver

function startReceiver() {
  const byEvent = new Map(); // event id → { type, count, data }
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      try {
        const e = JSON.parse(body);
        const seen = byEvent.get(e.id);
        if (seen) seen.count++;
        else byEvent.set(e.id, { type: e.type, count: 1, data: e.data });
      } catch {
        // not an event
      }
      res.writeHead(200).end('ok');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ port: server.address().port, byEvent, close: () => new Promise((r) => server.close(r)) })),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP helpers

async function call(base, method, path, { token, body, idem, headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  if (body !== undefined) h['content-type'] = 'application/json';
  if (method === 'POST' || method === 'PUT' || method === 'PATCH') h['idempotency-key'] = idem ?? randomUUID();
  const res = await fetch(base + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), redirect: 'manual' });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, json, text, headers: res.headers };
}

async function must(base, method, path, opts, expect = [200, 201]) {
  const r = await call(base, method, path, opts);
  if (!expect.includes(r.status)) throw new Error(`${method} ${path} → ${r.status} ${r.text.slice(0, 300)}`);
  return r.json;
}

const BUYER = { buyerName: '김구매', buyerEmail: 'buyer@example.com', buyerPhone: '010-1234-5678' };
const AGREED = { agreeTerms: 'on', agreePrivacy: 'on', agreeThirdParty: 'on', agreeRecurring: 'on' };

/** Pays a session's hosted page with the simulator, as a browser without JavaScript does; returns the order id. */
async function pay(base, session) {
  const res = await fetch(base + new URL(session.url).pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...BUYER, method: 'card', cardNumber: '4242424242424242', action: 'pay', ...AGREED }).toString(),
    redirect: 'manual',
  });
  const text = await res.text();
  // 202: the session's payment is with the gateway under another attempt (one that was in flight on a server that
  // died): it stays held (`confirming`) until its attempt lock runs out and the sweep settles it with the gateway.
  if (res.status === 202) return { pending: session.id };
  const loc = res.headers.get('location') ?? '';
  const m = /order_id=(ord_[A-Za-z0-9]+)/.exec(loc) ?? /(ord_[A-Za-z0-9]{10,})/.exec(text);
  if (res.status >= 500 || !m) {
    const err = new Error(`pay ${session.id} → ${res.status} ${loc} ${text.slice(0, 200)}`);
    err.status = res.status;
    throw err;
  }
  return m[1];
}

function sessionBody(productId) {
  return {
    productId,
    customer: { name: '홍길동', email: 'buyer@example.com', phone: '010-1234-5678' },
    metadata: { run: 'cluster' },
    successUrl: 'https://shop.example.com/done',
    cancelUrl: 'https://shop.example.com/cancel',
  };
}

// ---------------------------------------------------------------------------------------------------------------
// One run of the suite

async function runSuite(mode) {
  process.stdout.write(`\n=== cluster: 3 servers + 2 workers behind nginx, PostgreSQL ${mode === 'pgbouncer' ? 'through PgBouncer (transaction pooling)' : 'direct'}, Redis ===\n`);
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'commerce-cluster-'));
  const dbName = `${DB_PREFIX}_${process.pid}_${mode}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.query(`create database ${dbName}`);
  const direct = new URL(PG_URL);
  direct.pathname = `/${dbName}`;
  const directUrl = direct.toString();
  const db = new pg.Client({ connectionString: directUrl });
  const receiver = await startReceiver();
  let health = null;
  try {
    let databaseUrl = directUrl;
    if (mode === 'pgbouncer') databaseUrl = (await startPgbouncer(dir, dbName)).url;
    const adminToken = `cluster-operator-${randomBytes(12).toString('hex')}`;
    const env = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATABASE_DIRECT_URL: directUrl,
      DATABASE_POOL_SIZE: '5',
      REDIS_URL,
      MASTER_KEY: randomBytes(32).toString('hex'),
      HOST: '127.0.0.1',
      TRUST_PROXY: 'loopback',
      ADMIN_TOKEN: adminToken,
      RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      PAY_ATTEMPTS_PER_IP_PER_HOUR: '100000',
      LICENSE_RATE_LIMIT_PER_MINUTE: '100000',
      LICENSE_IP_RATE_LIMIT_PER_MINUTE: '100000',
      // Longer than the bound, so a license answered revoked in time was invalidated, not expired from the cache.
      LICENSE_CACHE_MS: String(LICENSE_CACHE_MS),
      PAY_ATTEMPTS_PER_SESSION: '100',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      WEBHOOK_LOOPBACK_PORTS: String(receiver.port),
      SETTLEMENT_SCHEDULE: 'off',
      RECONCILIATION_SCHEDULE: 'off',
      LOG_LEVEL: VERBOSE ? 'info' : 'warn',
      LOG_FORMAT: 'json',
      NODE_ENV: 'production',
    };
    delete env.TEST_DATABASE_URL;
    const serverPorts = [await freePort(), await freePort(), await freePort()];
    const proxy = await startNginx(dir, serverPorts);
    const bin = join(ROOT, 'bin/commerce.js');
    // All five start at once on the empty database: the migrations run once under the advisory lock.
    const servers = serverPorts.map((port, i) =>
      Object.assign(startProcess(`server${i + 1}`, process.execPath, [bin, 'start', '--no-worker', '--no-demo'], { ...env, PORT: String(port), PUBLIC_BASE_URL: proxy.base }), {
        base: `http://127.0.0.1:${port}`,
      }),
    );
    const workers = [1, 2].map((i) => startProcess(`worker${i}`, process.execPath, [bin, 'worker'], { ...env, PORT: '0', PUBLIC_BASE_URL: proxy.base }));
    for (const s of servers) {
      // Generous: five processes migrate and start at once, on a machine other work may be keeping busy.
      await waitFor(`${s.name} /ready`, async () => (await fetch(`${s.base}/ready`)).ok, 240_000, 200).catch((e) => {
        throw new Error(`${e.message}\n${s.tail()}`);
      });
    }
    // From here on the proxy checks /ready as production's does (Caddy's health_uri); see startHealthChecks.
    // CLUSTER_HEALTH_CHECKS=off leaves nginx passive (only errors take a server out), to see a drain without them.
    health = process.env.CLUSTER_HEALTH_CHECKS === 'off' ? null : startHealthChecks(proxy, serverPorts);
    await db.connect();
    const migrations = (await db.query('select count(*)::int as n, count(distinct version)::int as d from schema_migrations')).rows[0];
    check('five processes started at once on an empty database migrate it once', migrations.n === migrations.d && migrations.n > 0, `${migrations.n} migrations recorded once each`);
    log(`started in ${((Date.now() - started) / 1000).toFixed(1)} s; proxy ${proxy.base}`);

    // A store, its products and keys, made through the console API behind the proxy.
    const created = await must(proxy.base, 'POST', '/admin/v1/stores', { token: adminToken, body: { name: '클러스터 상점', publicContactVerified: true } });
    const owner = created.ownerToken;
    const newKey = async (name) => (await must(proxy.base, 'POST', '/admin/v1/api-keys', { token: owner, body: { mode: 'test', name, scopes: ['checkout:read', 'checkout:write', 'orders:read', 'products:read', 'subscriptions:read', 'subscriptions:write'] } }));
    await must(proxy.base, 'PUT', '/admin/v1/store/settings/test', { token: owner, body: { returnUrlDomains: ['shop.example.com'] } });
    const product = await must(proxy.base, 'POST', '/admin/v1/products', { token: owner, body: { mode: 'test', type: 'one_time', name: '전자책', pricing: { price: 15000 } } });
    const subProduct = await must(proxy.base, 'POST', '/admin/v1/products', {
      token: owner,
      body: { mode: 'test', type: 'subscription', name: '멤버십', pricing: { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9900, yearlyPrice: 99000 }] } },
    });
    await must(proxy.base, 'POST', '/admin/v1/webhook-endpoints', {
      token: owner,
      body: { mode: 'test', url: `http://127.0.0.1:${receiver.port}/hook`, eventTypes: ['order.paid', 'subscription.updated'] },
    });

    // (a) The shared rate limit.
    {
      const k = await newKey('rate');
      const statuses = [];
      const upstreams = new Set();
      let next = 0;
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (next < RATE_REQUESTS) {
            next++;
            const r = await call(proxy.base, 'GET', '/v1/products', { token: k.secret });
            statuses.push(r.status);
            upstreams.add(r.headers.get('x-upstream'));
          }
        }),
      );
      const limited = statuses.filter((s) => s === 429).length;
      const ok = statuses.filter((s) => s === 200).length;
      check(
        '(a) shared rate limit: exact 429 count across three servers',
        limited === RATE_REQUESTS - RATE_LIMIT && ok === RATE_LIMIT && upstreams.size === 3,
        `${RATE_REQUESTS} requests, limit ${RATE_LIMIT}/min: ${ok}×200, ${limited}×429 (expected ${RATE_REQUESTS - RATE_LIMIT}), served by ${upstreams.size} servers`,
      );
    }

    // (b) Idempotency across processes: rounds of one Idempotency-Key sent three times to each server at the same moment.
    {
      // A key per 10 rounds (90 requests) keeps each key under the rate limit.
      const idemKeys = [await newKey('idem-1'), await newKey('idem-2'), await newKey('idem-3')];
      const ROUNDS = 30;
      const send = async (s, idem, body, k) => {
        for (let i = 0; i < 100; i++) {
          const r = await call(s.base, 'POST', '/v1/checkout/sessions', { token: k.secret, body, idem });
          if (r.status === 409 && r.json?.code === 'IDEMPOTENCY_IN_PROGRESS') {
            inProgress++;
            await sleep(50);
            continue;
          }
          return r;
        }
        throw new Error('IDEMPOTENCY_IN_PROGRESS for 5 s');
      };
      let inProgress = 0;
      let bad = 0;
      let replayed = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const idem = randomUUID();
        const body = { ...sessionBody(product.id), metadata: { run: 'cluster', round: String(round) } };
        const k = idemKeys[round % idemKeys.length];
        const answers = await Promise.all([...servers, ...servers, ...servers].map((s) => send(s, idem, body, k)));
        const bodies = new Set(answers.map((a) => `${a.status} ${a.text}`));
        replayed += answers.filter((a) => a.headers.get('idempotent-replayed') === 'true').length;
        if (bodies.size !== 1 || answers[0].status !== 200) bad++;
      }
      const store = (await db.query(`select store_id from api_keys where id = $1`, [idemKeys[0].apiKey.id])).rows[0].store_id;
      const rows = (await db.query(`select count(*)::int as n from checkout_sessions where store_id = $1 and metadata ? 'round'`, [store])).rows[0].n;
      check(
        '(b) idempotency across processes: one key sent to three servers at once',
        bad === 0 && rows === ROUNDS,
        `${ROUNDS} rounds of 9 requests → ${rows} session rows, ${bad} round(s) with differing answers; ${replayed} replayed, ${inProgress} IDEMPOTENCY_IN_PROGRESS retried`,
      );
    }

    // (c) Cache invalidation across processes: revoke on server 1, measure until servers 2 and 3 refuse.
    {
      const delays = [];
      for (let round = 0; round < 3; round++) {
        const k = await newKey(`revoke-${round}`);
        // Warm every server's key cache.
        for (const s of servers) for (let i = 0; i < 2; i++) await must(s.base, 'GET', '/v1/products', { token: k.secret });
        const t0 = Date.now();
        await must(servers[0].base, 'POST', `/admin/v1/api-keys/${k.apiKey.id}/revoke`, { token: owner, body: {} });
        const revokedAt = Date.now();
        for (const s of servers.slice(1)) {
          await waitFor(`${s.name} to refuse the revoked key`, async () => (await call(s.base, 'GET', '/v1/products', { token: k.secret })).status === 401, 10_000, 10);
          delays.push(Date.now() - revokedAt);
        }
        void t0;
      }
      const worst = Math.max(...delays);
      check(
        `(c) cache invalidation across processes: revoked key refused by the other servers within ${INVALIDATION_BOUND_MS} ms`,
        worst <= INVALIDATION_BOUND_MS,
        `after the revoke's answer: ${delays.map((d) => `${d} ms`).join(', ')} (worst ${worst} ms; key cache API_KEY_CACHE_MS=5000)`,
      );

      // The same for a license revoked on server 1 and verified by the license app API on servers 2 and 3.
      const k = await newKey('licenses');
      const licensed = await must(proxy.base, 'POST', '/admin/v1/products', { token: owner, body: { mode: 'test', type: 'one_time', name: '데스크톱 앱', pricing: { price: 30000 }, license: { mode: 'service' } } });
      const verify = (s, key) => call(s.base, 'POST', '/v1/licenses/verify', { body: { key, productId: licensed.id, nonce: randomBytes(16).toString('base64url') } });
      const licenseDelays = [];
      for (let round = 0; round < 2; round++) {
        const session = await must(proxy.base, 'POST', '/v1/checkout/sessions', { token: k.secret, body: sessionBody(licensed.id) });
        const order = await must(proxy.base, 'GET', `/v1/orders/${await pay(proxy.base, session)}`, { token: k.secret });
        const license = order.licenses[0];
        for (const s of servers) for (let i = 0; i < 2; i++) {
          const r = await verify(s, license.key);
          if (r.json?.status !== 'active') throw new Error(`verify before revoke → ${r.status} ${r.text.slice(0, 200)}`);
        }
        await must(servers[0].base, 'POST', `/admin/v1/licenses/${license.id}/revoke`, { token: owner, body: {} });
        const revokedAt = Date.now();
        for (const s of servers.slice(1)) {
          await waitFor(`${s.name} to answer revoked`, async () => (await verify(s, license.key)).json?.status === 'revoked', 10_000, 10);
          licenseDelays.push(Date.now() - revokedAt);
        }
      }
      const worstLicense = Math.max(...licenseDelays);
      check(
        `(c) cache invalidation across processes: revoked license answered revoked by the other servers within ${INVALIDATION_BOUND_MS} ms`,
        worstLicense <= INVALIDATION_BOUND_MS,
        `after the revoke's answer: ${licenseDelays.map((d) => `${d} ms`).join(', ')} (worst ${worstLicense} ms; LICENSE_CACHE_MS=${LICENSE_CACHE_MS})`,
      );
    }

    // (d) Webhooks and renewals done once with two workers.
    {
      const k = await newKey('webhooks');
      const orders = [];
      let next = 0;
      const N = 40;
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          while (next < N) {
            next++;
            const session = await must(proxy.base, 'POST', '/v1/checkout/sessions', { token: k.secret, body: sessionBody(product.id) });
            orders.push(await pay(proxy.base, session));
          }
        }),
      );
      const paidEvents = () => [...receiver.byEvent.values()].filter((e) => e.type === 'order.paid' && orders.includes(orderIdOf(e)));
      await waitFor('order.paid for every order', () => paidEvents().length === N, 60_000, 200);
      await sleep(1500); // a second delivery, if any, would come in this time
      const counts = paidEvents().map((e) => e.count);
      const dup = counts.filter((c) => c > 1).length;
      check('(d) webhooks with two workers: each order.paid delivered exactly once', counts.length === N && dup === 0, `${N} paid orders → ${counts.length} events received, ${dup} delivered more than once`);

      // Renewals: five subscriptions; each one's test clock is moved 16 days on server 1 and 16 days on server 2 at
      // the same moment (32 days in all: one monthly renewal due), while both workers run.
      const subs = [];
      for (let i = 0; i < 5; i++) {
        const session = await must(proxy.base, 'POST', '/v1/checkout/sessions', { token: k.secret, body: { ...sessionBody(subProduct.id), planId: 'basic', interval: 'monthly' } });
        const orderId = await pay(proxy.base, session);
        subs.push((await db.query('select subscription_id from orders where id = $1', [orderId])).rows[0].subscription_id);
      }
      const advance = async (s, id) => {
        for (let i = 0; i < 200; i++) {
          const r = await call(s.base, 'POST', `/admin/v1/subscriptions/${id}/test-clock/advance`, { token: owner, body: { days: 16 } });
          if (r.status === 200) return r;
          if (r.status === 409 || r.status === 503) {
            await sleep(50);
            continue;
          }
          throw new Error(`advance ${id} → ${r.status} ${r.text.slice(0, 200)}`);
        }
        throw new Error(`advance ${id} kept answering 409`);
      };
      await Promise.all(subs.flatMap((id) => [advance(servers[0], id), advance(servers[1], id)]));
      const charged = (await db.query(`select subscription_id, count(*)::int as n from orders where subscription_id = any($1) group by 1`, [subs])).rows;
      const perSub = subs.map((id) => charged.find((r) => r.subscription_id === id)?.n ?? 0);
      const renewalEvents = () => [...receiver.byEvent.values()].filter((e) => e.type === 'order.paid' && subs.includes(e.data?.subscriptionId) && e.data?.subscriptionEvent === 'renewal');
      await waitFor('renewal order.paid events', () => renewalEvents().length >= subs.length, 30_000, 200).catch(() => null);
      await sleep(1000);
      const rev = renewalEvents();
      check(
        '(d) renewals with two servers advancing test clocks and two workers: each subscription charged once',
        perSub.every((n) => n === 2) && rev.length === subs.length && rev.every((e) => e.count === 1),
        `orders per subscription (first payment + renewals): ${perSub.join(', ')}; renewal order.paid events ${rev.length}, deliveries ${rev.map((e) => e.count).join(',')}`,
      );
    }

    // (e) kill -9 of a server and a worker under load.
    {
      // Enough keys that the load stays under the per-key limit (RATE_LIMIT a minute each) however fast the machine:
      // on a quiet one six clients made 600 sessions within the minute and the 601st was refused (429). The lanes
      // also stop creating before the keys' budget for the minute is spent.
      const keys = [];
      for (let i = 1; i <= 12; i++) keys.push(await newKey(`load-${i}`));
      const budget = keys.length * (RATE_LIMIT - 10);
      const stats = { creates: 0, pays: 0, firstTryFailures: 0, failed: 0, retried: 0 };
      const orders = [];
      /** Sessions whose payment was in flight on the killed server: held for the sweep (see pay()). */
      const held = [];
      let stop = false;
      let n = 0;
      const withRetry = async (fn) => {
        // A real client: on a lost answer (502 from the proxy, a reset) or IDEMPOTENCY_IN_PROGRESS it retries the same
        // request with the same Idempotency-Key, for up to 90 s (the killed server's processing lock lasts 60 s).
        const until = Date.now() + 90_000;
        for (let attempt = 0; ; attempt++) {
          try {
            const r = await fn();
            if (r && typeof r === 'object' && 'status' in r && (r.status >= 500 || (r.status === 409 && r.json?.code === 'IDEMPOTENCY_IN_PROGRESS'))) throw Object.assign(new Error(`status ${r.status}`), { status: r.status });
            if (attempt > 0) stats.retried++;
            return r;
          } catch (e) {
            if (attempt === 0) stats.firstTryFailures++;
            if (Date.now() > until) {
              stats.failed++;
              throw e;
            }
            await sleep(Math.min(2000, 100 * 2 ** attempt));
          }
        }
      };
      const loop = async (lane) => {
        while (!stop && n < budget) {
          const key = keys[n++ % keys.length];
          const idem = randomUUID();
          const created = await withRetry(() => call(proxy.base, 'POST', '/v1/checkout/sessions', { token: key.secret, body: sessionBody(product.id), idem }));
          if (created.status !== 200) throw new Error(`create → ${created.status} ${created.text.slice(0, 200)}`);
          stats.creates++;
          const paid = await withRetry(() => pay(proxy.base, created.json));
          if (typeof paid === 'object') {
            held.push(paid.pending);
            continue;
          }
          orders.push(paid);
          stats.pays++;
          void lane;
        }
      };
      const lanes = Array.from({ length: 6 }, (_, i) => loop(i).catch((e) => ((stats.error = e.message), undefined)));
      await sleep(3000);
      const victimServer = servers[2];
      const victimWorker = workers[1];
      victimServer.child.kill('SIGKILL');
      victimWorker.child.kill('SIGKILL');
      await Promise.all([victimServer.exited, victimWorker.exited]);
      const killedAt = Date.now();
      // The deliveries leased at the moment of the kill: the only ones that may arrive twice (the killed worker may
      // have sent them without recording it; they are sent again when the lease runs out).
      const leased = new Set((await db.query(`select event_id from webhook_deliveries where locked_until > now()`)).rows.map((r) => r.event_id));
      log(`killed ${victimServer.name} and ${victimWorker.name} with SIGKILL after ${stats.pays} paid orders; ${leased.size} deliveries were leased`);
      await sleep(4000);
      stop = true;
      await Promise.all(lanes);
      const paidRows = (await db.query(`select o.id, e.id as event_id from orders o join events e on e.type = 'order.paid' and e.data->>'id' = o.id where o.id = any($1)`, [orders])).rows;
      const eventIds = new Set(paidRows.map((r) => r.event_id));
      log(`${stats.creates} sessions, ${stats.pays} paid orders under load; ${stats.firstTryFailures} requests failed on their first try (the killed server's in-flight), ${stats.retried} completed on retry, ${stats.failed} failed for good`);
      const heldStates = held.length ? (await db.query(`select payment->>'state' as state from checkout_sessions where id = any($1)`, [held])).rows.map((r) => r.state) : [];
      log(`${held.length} payment(s) were in flight on the killed server: held as ${heldStates.join(', ') || '—'} until the attempt lock (2 min) runs out and the sweep settles them with the gateway (test/payments/toss-kill.test.ts checks that recovery)`);
      check('(e) kill -9 under load: no request lost (each completed, on retry with its Idempotency-Key when in flight on the killed server)', !stats.error && stats.failed === 0 && stats.firstTryFailures <= lanes.length * 2 && held.length <= lanes.length && heldStates.every((st) => st === 'confirming' || st === 'unknown'), stats.error ?? `${stats.firstTryFailures} first-try failures with ${lanes.length} requests in flight at a time`);
      const deadline = Date.now() + 150_000;
      await waitFor('every order.paid of the load delivered', () => [...eventIds].every((id) => receiver.byEvent.has(id)), deadline - Date.now(), 500).catch(() => null);
      const missing = [...eventIds].filter((id) => !receiver.byEvent.has(id)).length;
      // The killed worker's leases run out after 90 s (twice the 15 s delivery timeout plus 60 s): then another worker sends them.
      log(`all order.paid delivered ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`);
      const twice = [...eventIds].filter((id) => (receiver.byEvent.get(id)?.count ?? 0) > 1);
      const twiceUnleased = twice.filter((id) => !leased.has(id));
      check(
        '(e) kill -9 under load: every paid order\'s order.paid delivered, once (twice only if leased by the killed worker)',
        paidRows.length === orders.length && missing === 0 && twiceUnleased.length === 0,
        `${orders.length} orders, ${paidRows.length} order.paid events, ${missing} undelivered, ${twice.length} delivered twice (${twiceUnleased.length} of them not leased at the kill)`,
      );
    }

    // (f) Graceful drain through the proxy: SIGTERM to one of the two servers left while reads and checkout creates
    // run through nginx. The server answers /ready 503 and `Connection: close` for DRAIN_DELAY_MS (5 s in production),
    // then closes its listener and finishes what is in flight; nginx sends new connections to the other server.
    {
      const alive = servers.filter((s) => s.child.exitCode === null && s.child.signalCode === null);
      const drainer = alive[0];
      // Several keys, so the load stays under the per-key rate limit (RATE_LIMIT a minute).
      const keys = [];
      for (let i = 0; i < 6; i++) keys.push(await newKey(`drain-${i}`));
      const stats = { total: 0, failed: 0, during: 0, statuses: {} };
      let draining = false;
      let stop = false;
      // Every core busy while it drains: event loops run late and connections wait in accept queues.
      const burner = startCpuBurner();
      const lanes = Array.from({ length: 4 }, async (_, lane) => {
        for (let n = 0; !stop; n++) {
          const k = keys[(lane + n) % keys.length].secret;
          let r;
          try {
            r = n % 2 === 0 ? await callFresh(proxy.base, 'GET', '/v1/products', { token: k }) : await callFresh(proxy.base, 'POST', '/v1/checkout/sessions', { token: k, body: sessionBody(product.id) });
          } catch (e) {
            r = { status: `network: ${e.cause?.code ?? e.message}` };
          }
          stats.total++;
          if (draining) stats.during++;
          if (r.status !== 200) {
            stats.failed++;
            stats.statuses[r.status] = (stats.statuses[r.status] ?? 0) + 1;
          }
          await sleep(100);
        }
      });
      await sleep(1000);
      const t0 = Date.now();
      draining = true;
      drainer.child.kill('SIGTERM');
      // /ready answers 503 while the server drains (checked straight at the server, not through the proxy).
      let ready = null;
      for (let i = 0; i < 20 && ready !== 503; i++) {
        ready = await fetch(`${drainer.base}/ready`).then((r) => r.status, () => 'closed');
        if (ready !== 503) await sleep(100);
      }
      const exit = await drainer.exited;
      const drainedIn = (Date.now() - t0) / 1000;
      await sleep(1000);
      draining = false;
      stop = true;
      await Promise.all(lanes);
      await burner.stop();
      const drainerPort = Number(new URL(drainer.base).port);
      const leftRotation = health?.changes.find((c) => c.at >= t0 && c.down.includes(drainerPort));
      log(`(f) ${drainer.name} drained and exited ${exit.code === 0 ? '0' : `${exit.code ?? exit.signal}`} in ${drainedIn.toFixed(1)} s, with ${burner.count} busy processes beside it; /ready during the drain: ${ready}; the proxy's health check took it out of the rotation ${leftRotation ? `${((leftRotation.at - t0) / 1000).toFixed(1)} s after SIGTERM` : 'never'}`);
      check(
        '(f) SIGTERM under load: 0 failed requests through the proxy while one of two servers drains',
        stats.failed === 0 && exit.code === 0 && ready === 503 && stats.during > 10,
        `${stats.total} requests (${stats.during} while draining), ${stats.failed} failed ${JSON.stringify(stats.statuses)}; /ready during the drain ${ready}; exit ${exit.code ?? exit.signal}`,
      );
    }
  } finally {
    await health?.stop();
    await stopAll();
    await db.end().catch(() => {});
    await receiver.close();
    await admin.query(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
    process.stdout.write(`      run took ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
}

function orderIdOf(e) {
  return e.data?.id;
}

const missing = await prerequisites();
if (missing.length) {
  process.stdout.write(`test:cluster skipped: missing ${missing.join('; ')}\n`);
  process.exit(0);
}
process.on('SIGINT', () => {
  for (const c of children) c.kill('SIGKILL');
  process.exit(130);
});
for (const mode of MODES) {
  try {
    await runSuite(mode);
  } catch (e) {
    check(`cluster run (${mode}) completed`, false, e.stack ?? String(e));
    await stopAll();
  }
}
const failed = results.filter((r) => !r.ok);
process.stdout.write(`\ntest:cluster: ${results.length - failed.length} passed, ${failed.length} failed\n`);
process.exit(failed.length ? 1 : 0);
