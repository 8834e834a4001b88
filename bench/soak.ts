// `npm run soak -- --minutes N [--rate R] [--out DIR] [--warmup M] [--after-gc]`: the service for a long run at a fixed
// rate (issue 43).
//
// Starts the compiled server (`node bin/commerce.js start`, production defaults, its in-process workers off) and one
// `commerce worker` process on a fresh PostgreSQL database (SOAK_DATABASE_URL, BENCH_DATABASE_URL or TEST_DATABASE_URL,
// else postgres://postgres@127.0.0.1:5432/postgres; the database `commerce_bench_<pid>_…` is created and dropped), a
// local webhook receiver, and drives from this process, open loop at R operations a second, a mix of: checkouts,
// payments of those sessions on the simulator (the hosted page's form), license verifies, full refunds of paid orders,
// subscription renewals under test clocks (the console's test-clock advance), order lists through the API and
// dashboard reads (Home, orders, subscriptions) with a signed-in member. Webhook deliveries follow from the events.
//
// Every 5 s it samples the server's and worker's RSS (/proc) and the server's heap and event-loop delay (its own
// /metrics: prom-client's nodejs_heap_size_used_bytes and nodejs_eventloop_lag_seconds); every minute it prints
// those, p50/p99 per route, the row counts of the tables that grow and the errors. At the end it writes
// minutes.csv, samples.csv and soak.svg (hand-written SVG) to the output directory and judges the run (see JUDGE
// below); the exit code is 1 when any judgement fails.
//
// Each minute also records what the database server and the disk did (bench/pg-watch.ts): the soak database's
// backends by wait event (sampled every 200 ms), the WAL written and flushed (with the flushes' time when the server
// has `track_wal_io_timing` on), checkpoints, the disk's mean write and flush latency (/proc/diskstats), and, with
// --after-gc, how much of each process's RSS is glibc's main arena (`[heap]`) and how much other anonymous mappings.
// Beside the mix, five times a second, the bench's bare reference process (bench/bare-reference.mjs) answers one SELECT of
// data that never grows: its CPU per request and latency are the machine's speed for this kind of work, and each
// route's p99 is also given over that CPU per request, so a tail that grows only as the host slows shows flat there.
// The judgement prints beside the p99 verdicts each route's median per-minute p99 of the first and last thirds, and
// the same for those figures, so a tail that grows with the WAL's flushes or the disk shows it.
// p99 flat is judged on each third's pooled requests for every route, and on the worst minute of each third only for a
// route asked at least 100 times a minute: with fewer, a minute's p99 is its slowest request (the hour of 2026-12-05
// failed the dashboard's Home, 47 requests a minute, on one request of 37 ms while its median p99 fell).
//
// `--ci` (CI runs `npm run soak -- --minutes 5 --ci` on PostgreSQL): the same run and figures, but on a shared machine
// only what load cannot excuse fails it: an error (an unexpected answer, a 5xx, a failed payment, the metrics not
// answering), a webhook delivery lost (an event not fanned out, a delivery pending or failed at the end, or one the
// receiver never got), an error line in a log, a retention that leaves rows older than itself (the rows seeded past
// it before the worker started included), and a table that grows with nothing to hold it. The memory slopes, the p99
// flatness and the overload count (more than 64 operations in flight) are printed, not judged: a five-minute run on
// a shared machine measures the neighbours as much as the service; the hour-long run (`--minutes 60`) judges them.
//
// `--after-gc`: the server and the worker are started with their inspector on loopback, and at the end of every minute
// each is asked for a full garbage collection (bench/gc-probe.mjs) before its RSS and heap are read. V8 lets the old
// space grow to about twice what is live before it collects it, so RSS and heap sampled at any moment rise for tens of
// minutes without a leak; memory kept after a full collection is what a leak moves. With it, the memory slopes are
// judged on those per-minute figures (after-gc.csv), and the 5-second samples' slopes are printed beside them.
// The collection (and the probe processes it starts) stops the server for a moment each minute: a route with few
// requests a minute (a refund, ~60) had any request caught in it as that minute's p99 (0.2–0.4 s in the hour of
// 2026-12-04). So a request whose time overlaps a probe, from the probe's start to its end, is the harness's doing, not
// the service's: it is left out of the route's percentiles and counted apart (per minute in minutes.csv, and in all
// with its p50 and worst in the judgement).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { autovacuumCost, autovacuumOff, autovacuumPass } from './autovacuum';
import { formatWaits, machineCpuSeconds, mappingsMb, PgWatch, processCpuSeconds, yardstickMs } from './pg-watch';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import pg from 'pg';
import { rssMb, startBareReference, startServer, type Server } from './lib';
import { overlapsAny, p99Flat, p99FlatPooled, P99_MIN_REQUESTS, plot, slopePer10Min, thirdsMedian, type Sample } from './soak-report';
import { createStore, updateModeSettings, updateBusinessDetails } from '../src/stores/service';
import { createApiKey, ALL_SCOPES } from '../src/stores/api-keys';
import { createProduct } from '../src/catalog/service';
import { createEndpoint } from '../src/webhooks/service';
import { createMember } from '../src/dashboard/members';
import { licensed } from '../test/licenses/factory';
import { TEST_BUSINESS_DETAILS } from '../test/helpers/app';
import { TEST_CARDS } from '../src/payments/simulator-cards';

const ROOT = join(import.meta.dirname, '..');
const STARTED = Date.now();

// ---------- arguments ----------
function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && process.argv[i + 1] !== undefined) return process.argv[i + 1];
  const eq = process.argv.find((a) => a.startsWith(`--${name}=`));
  return eq ? eq.slice(name.length + 3) : fallback;
}
const CI = process.argv.includes('--ci');
const AFTER_GC = process.argv.includes('--after-gc');
/** The inspector ports for --after-gc: the server's, and the worker's next to it. */
const INSPECT_PORT = 40000 + Math.floor(Math.random() * 10000);
if (AFTER_GC) process.env.BENCH_INSPECT_PORT = String(INSPECT_PORT);
const MINUTES = Number(arg('minutes', '60'));
const RATE = Number(arg('rate', '20'));
/** Minutes left out of the slope and flatness judgements: a sixth of the run, at least 1 and at most 10. */
const WARMUP = Number(arg('warmup', String(Math.min(10, Math.max(1, Math.floor(MINUTES / 6))))));
const OUT = arg('out', join(tmpdir(), `commerce-soak-${new Date().toISOString().replace(/[:.]/g, '-')}`));
const SAMPLE_MS = 5_000;
const MAX_IN_FLIGHT = 64;
const SUBSCRIPTIONS = 12;
if (!(MINUTES > 0) || !(RATE > 0) || !(WARMUP >= 0) || WARMUP >= MINUTES) {
  console.error('usage: npm run soak -- --minutes N [--rate R] [--warmup M < N] [--out DIR] [--ci] [--after-gc]');
  process.exit(2);
}
const DATABASE = process.env.SOAK_DATABASE_URL ?? process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The tables that grow under the mix, and what holds each. `retention` in ms for the tables a periodic task purges,
 * `record` for what the service keeps as the seller's business record (grows with sales, by design). Any other table
 * that grows during the run has nothing to hold it: the judge fails it (every table is counted at the start and the end).
 *
 * `past`: the SQL condition of a row the retention should have deleted by now: older than the retention plus the
 * sweep's interval and 5 minutes (between two hourly sweeps a row may outlive its limit by up to an hour). The limits
 * are the service's defaults (the soak's processes set none of IDEMPOTENCY_RETENTION_HOURS, JOB_RETENTION_*_DAYS,
 * MAIL_RETENTION_DAYS).
 */
const HOURLY_SLACK = `interval '65 minutes'`;
const TABLES: Array<{ table: string; holds: string; kind: 'retention' | 'record'; retentionMs?: number; past?: string }> = [
  { table: 'idempotency_keys', holds: 'IDEMPOTENCY_RETENTION_HOURS (24 h), purged at expiry every minute (idempotency.purge)', kind: 'retention', retentionMs: 24 * 3_600_000, past: `expires_at < now() - interval '6 minutes'` },
  { table: 'events', holds: '30 days (EVENT_RETENTION_MS), purged hourly (webhooks.prune)', kind: 'retention', retentionMs: 30 * 86_400_000, past: `created_at < now() - interval '30 days' - ${HOURLY_SLACK}` },
  { table: 'webhook_deliveries', holds: 'deleted with their event (on delete cascade): 30 days', kind: 'retention', retentionMs: 30 * 86_400_000, past: `created_at < now() - interval '30 days' - ${HOURLY_SLACK}` },
  { table: 'webhook_attempts', holds: 'deleted with their delivery (on delete cascade): 30 days', kind: 'retention', retentionMs: 30 * 86_400_000, past: `started_at < now() - interval '30 days' - ${HOURLY_SLACK}` },
  { table: 'dashboard_sessions', holds: 'deleted at expiry, hourly (dashboard.prune-sessions)', kind: 'retention', retentionMs: 0, past: `expires_at < now() - ${HOURLY_SLACK}` },
  {
    table: 'jobs',
    holds: 'done JOB_RETENTION_DONE_DAYS (7), dead JOB_RETENTION_DEAD_DAYS (30) after the last change, purged hourly (jobs.prune)',
    kind: 'retention',
    retentionMs: 30 * 86_400_000,
    past: `(status = 'done' and updated_at < now() - interval '7 days' - ${HOURLY_SLACK}) or (status = 'failed' and updated_at < now() - interval '30 days' - ${HOURLY_SLACK})`,
  },
  {
    table: 'mail_outbox',
    holds: 'sent, captured and failed mail MAIL_RETENTION_DAYS (30) after the last change, purged hourly (mail.prune)',
    kind: 'retention',
    retentionMs: 30 * 86_400_000,
    past: `status in ('sent', 'captured', 'failed') and updated_at < now() - interval '30 days' - ${HOURLY_SLACK}`,
  },
  { table: 'checkout_sessions', holds: 'business record (kept; grows with sales)', kind: 'record' },
  { table: 'orders', holds: 'business record (kept; grows with sales)', kind: 'record' },
  { table: 'order_refunds', holds: 'business record (kept; grows with sales)', kind: 'record' },
  { table: 'subscription_charges', holds: 'business record (kept; grows with sales): the renewals under the test clocks', kind: 'record' },
  { table: 'audit_log', holds: 'business record (kept; grows with sales)', kind: 'record' },
  { table: 'home_daily_figures', holds: "Home's figures per store, mode and KST day: at most 8 rows a day with sales (the renewals under test clocks add their days)", kind: 'record' },
  { table: 'home_subscription_figures', holds: "Home's active subscriptions and MRR per store, mode and billing interval: at most 2 × 8 rows a store", kind: 'record' },
  { table: 'vat_day_figures', holds: 'the 부가세 figures per store, mode and KST day: at most 8 slots a day of each kind, payment method and currency with sales or refunds (the renewals under test clocks add their days)', kind: 'record' },
  { table: 'row_counts', holds: 'the kept row counts of the listed tables: at most 6 tables × 8 slots a store and mode, and per status or type', kind: 'record' },
  { table: 'signing_keys', holds: 'licence signing keys: the first made at the first verify, another only on a rotation an operator asks for', kind: 'record' },
];

/**
 * Rows seeded before the worker starts, so a run of minutes still watches every retention work in the soak's own
 * worker, on its own clock: `aged` ones past their limit (the worker's first pass of each sweep must delete them) and
 * `young` ones just inside it (they must stay). Ids start with `soakseed`; the seeded events are dispatched already
 * and their deliveries succeeded, so nothing sends them.
 */
const SEED = 'soakseed';
async function seedRetentionProbes(db: pg.Client, storeId: string): Promise<Map<string, { aged: number; young: number }>> {
  const day = `interval '1 day'`;
  const { rows: ep } = await db.query<{ id: string }>('select id from webhook_endpoints where store_id = $1 limit 1', [storeId]);
  const { rows: mb } = await db.query<{ id: string }>('select id from store_members where store_id = $1 limit 1', [storeId]);
  const seeded = new Map<string, { aged: number; young: number }>();
  // ages in days: aged past the limit, young inside it
  const events: Array<[string, string]> = [['aged', `now() - 31 * ${day}`], ['young', `now() - 29 * ${day}`]];
  for (const [which, at] of events) {
    const id = `evt_${SEED}_${which}`;
    await db.query(`insert into events (id, store_id, mode, type, data, created_at, dispatched_at) values ($1, $2, 'test', 'soak.seeded', '{}', ${at}, ${at})`, [id, storeId]);
    await db.query(
      `insert into webhook_deliveries (id, event_id, endpoint_id, store_id, mode, trigger, status, attempts, created_at, updated_at) values ($1, $2, $3, $4, 'test', 'event', 'succeeded', 1, ${at}, ${at})`,
      [`whd_${SEED}_${which}`, id, ep[0].id, storeId],
    );
    await db.query(
      `insert into webhook_attempts (id, delivery_id, event_id, endpoint_id, attempt, started_at, url, succeeded, status_code, duration_ms) values ($1, $2, $3, $4, 1, ${at}, 'http://127.0.0.1/hooks', true, 204, 1)`,
      [`wha_${SEED}_${which}`, `whd_${SEED}_${which}`, id, ep[0].id],
    );
  }
  for (const t of ['events', 'webhook_deliveries', 'webhook_attempts']) seeded.set(t, { aged: 1, young: 1 });
  await db.query(
    `insert into idempotency_keys (store_id, mode, key, fingerprint, state, response_status, created_at, locked_until, expires_at) values ($1, 'test', '${SEED}_aged', 'x', 'done', 200, now() - interval '25 hours', now() - interval '25 hours', now() - interval '1 hour')`,
    [storeId],
  );
  seeded.set('idempotency_keys', { aged: 1, young: 0 });
  await db.query(
    `insert into dashboard_sessions (id, token_hash, member_id, store_id, mode, created_at, expires_at, last_seen_at) values ('${SEED}_aged', '${SEED}_aged', $1, $2, 'test', now() - 3 * ${day}, now() - 2 * ${day}, now() - 3 * ${day})`,
    [mb[0].id, storeId],
  );
  seeded.set('dashboard_sessions', { aged: 1, young: 0 });
  // Jobs: done past 7 days and dead past 30 go; done at 6 days and dead at 29 stay.
  const jobs: Array<[string, string, string]> = [['aged_done', 'done', `now() - 8 * ${day}`], ['aged_failed', 'failed', `now() - 31 * ${day}`], ['young_done', 'done', `now() - 6 * ${day}`], ['young_failed', 'failed', `now() - 29 * ${day}`]];
  for (const [which, status, at] of jobs) {
    await db.query(`insert into jobs (id, name, payload, status, run_at, attempts, created_at, updated_at) values ($1, 'soak.seeded', '{}', $2, ${at}, 1, ${at}, ${at})`, [`job_${SEED}_${which}`, status]);
  }
  seeded.set('jobs', { aged: 2, young: 2 });
  // Mail: captured (test) and failed past 30 days go; captured at 29 days stays.
  const mails: Array<[string, string, string]> = [['aged_captured', 'captured', `now() - 31 * ${day}`], ['aged_failed', 'failed', `now() - 40 * ${day}`], ['young_captured', 'captured', `now() - 29 * ${day}`]];
  for (const [which, status, at] of mails) {
    await db.query(
      `insert into mail_outbox (id, store_id, mode, kind, event_id, event_type, data, recipient, status, attempts, next_attempt_at, created_at, updated_at) values ($1, $2, 'test', 'order_confirmation', $1, 'order.paid', '{}', 'seeded@example.com', $3, 1, ${at}, ${at}, ${at})`,
      [`mail_${SEED}_${which}`, storeId, status],
    );
  }
  seeded.set('mail_outbox', { aged: 2, young: 1 });
  return seeded;
}

const signed = (n: number) => (n < 0 ? `${n}` : `+${n}`);

/** The column the seeded rows are named in. */
const idColumn = (table: string) => (table === 'idempotency_keys' ? 'key' : 'id');

/** Exact row counts of every table of the service's schema. */
async function countAllTables(db: pg.Client): Promise<Map<string, number>> {
  const { rows: tables } = await db.query<{ t: string }>(`select table_name as t from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1`);
  const { rows } = await db.query<{ t: string; n: string }>(tables.map(({ t }) => `select '${t}' as t, count(*)::text as n from "${t}"`).join(' union all '));
  return new Map(rows.map((r) => [r.t, Number(r.n)]));
}

type Op = 'checkout' | 'pay' | 'verify' | 'refund' | 'renewal' | 'orders list' | 'dashboard';
/** Share of each operation in the mix (the weights sum to 100). */
const MIX: Array<[Op, number]> = [
  ['checkout', 25],
  ['pay', 20],
  ['verify', 25],
  ['refund', 5],
  ['renewal', 3],
  ['orders list', 10],
  ['dashboard', 12],
];

// ---------- measurement state ----------
const samples: Sample[] = [];
/** --after-gc: the figures read right after a full collection, once a minute (server and worker). */
const gcSamples: Array<{ t: number; serverRss: number; heapMb: number; workerRss: number; workerHeapMb: number }> = [];

/** One full collection in the process whose inspector listens on `port`, and what it holds after it (bench/gc-probe.mjs). */
function gcProbe(port: number): Promise<{ rss: number; heapUsed: number }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--experimental-websocket', join(ROOT, 'bench', 'gc-probe.mjs'), String(port)], { timeout: 30_000 }, (err, stdout) => {
      if (err) return reject(err);
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? ''));
      } catch (e) {
        reject(e);
      }
    });
  });
}
const windowLat = new Map<string, number[]>();
const errors: string[] = [];
let errorsThisMinute = 0;
let errorsInAll = 0;
let overloaded = 0;
let inFlight = 0;
let received = 0;
/** The event ids (`webhook-id`, the same on every retry) the receiver got: a delivery recorded as sent must be here. */
const receivedIds = new Set<string>();

/** --after-gc: the spans of the full-collection probes (performance.now()), and the start of one under way. */
const probeSpans: Array<[number, number]> = [];
let probeSince: number | null = null;
/** Requests left out of the percentiles because they overlapped a probe: how many this minute, and all their times. */
let probeOverlapThisMinute = 0;
const probeOverlapMs: number[] = [];
const overlapsProbe = (start: number, end: number) => overlapsAny(probeSpans, probeSince, start, end);

function record(route: string, ms: number): void {
  let a = windowLat.get(route);
  if (!a) windowLat.set(route, (a = []));
  a.push(ms);
}
function fail(what: string): void {
  errorsThisMinute++;
  errorsInAll++;
  if (errors.length < 200) errors.push(`${new Date().toISOString()} ${what}`);
}
function pct(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

async function metric(server: Server, name: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const m = new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

// ---------- the webhook receiver ----------
function receiver(): Promise<{ port: number; close(): Promise<void> }> {
  const srv = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      const id = req.headers['webhook-id'];
      if (typeof id === 'string') receivedIds.add(id);
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    srv.listen(0, '127.0.0.1', () =>
      resolve({
        port: (srv.address() as AddressInfo).port,
        close: () => {
          srv.closeAllConnections();
          return new Promise<void>((r) => srv.close(() => r()));
        },
      }),
    ),
  );
}

function cookiesOf(res: Response, jar: Record<string, string>): void {
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(';');
    const i = pair.indexOf('=');
    jar[pair.slice(0, i).trim()] = pair.slice(i + 1).trim();
  }
}
const cookieHeader = (jar: Record<string, string>) => Object.entries(jar).map(([k, v]) => `${k}=${v}`).join('; ');

const BUYER = { buyerName: '김구매', buyerEmail: 'buyer@example.com', buyerPhone: '010-1234-5678' };
const AGREED = { agreeTerms: 'on', agreePrivacy: 'on', agreeThirdParty: 'on', agreeRecurring: 'on' };

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const rx = await receiver();
  const hookEnv = { WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_LOOPBACK_PORTS: String(rx.port), RUN_WORKERS: 'false' };
  const memberPassword = `soak-${randomBytes(12).toString('hex')}`;
  const memberEmail = `soak-owner-${process.pid}@example.com`;
  const { server, seeded } = await startServer(async (deps) => {
    const { store, ownerToken } = await createStore(deps, { name: '소크 상점', publicContactVerified: true });
    await updateBusinessDetails(deps, store.id, TEST_BUSINESS_DETAILS);
    await updateModeSettings(deps, store.id, 'test', { returnUrlDomains: ['example.com'], paymentProvider: 'simulator' });
    const product = await createProduct(deps, store.id, { mode: 'test', type: 'one_time', name: '소크 상품', pricing: { price: 15_000 } });
    const sub = await createProduct(deps, store.id, {
      mode: 'test',
      type: 'subscription',
      name: '소크 멤버십',
      pricing: { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 }] },
    } as any);
    const { secret } = await createApiKey(deps, store.id, { mode: 'test', name: 'soak', scopes: ALL_SCOPES });
    const lic = await licensed({ db: deps.db, clock: deps.clock, deps }, store.id, { maxActivations: 0 });
    await createEndpoint(deps, store.id, {
      mode: 'test',
      url: `http://127.0.0.1:${rx.port}/hooks`,
      eventTypes: ['order.paid', 'order.refunded', 'subscription.created', 'subscription.updated'],
    });
    await createMember(deps, { storeId: store.id, email: memberEmail, name: '소크 담당자', role: 'owner', password: memberPassword }, { kind: 'operator', id: null, name: null });
    return { storeId: store.id, ownerToken, productId: product.id, subProductId: sub.id, key: secret, lic };
  }, hookEnv, DATABASE);
  if (server.kind !== 'postgres') throw new Error('the soak runs on PostgreSQL');
  const db = new pg.Client({ connectionString: server.env.DATABASE_URL });
  await db.connect();
  // Before the worker starts: its first pass runs every sweep, which must delete the rows seeded past their retention.
  const probes = await seedRetentionProbes(db, seeded.storeId);
  const workerLog = join(OUT, 'worker.log');
  const worker: ChildProcess = spawn(process.execPath, [...(AFTER_GC ? [`--inspect=127.0.0.1:${INSPECT_PORT + 1}`] : []), join(ROOT, 'bin/commerce.js'), 'worker'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...server.env, ...hookEnv },
    stdio: ['ignore', openSync(workerLog, 'a'), openSync(workerLog, 'a')],
  });
  let code = 1;
  try {
    code = await drive(server, worker, db, seeded, memberEmail, memberPassword, probes);
  } finally {
    await db.end();
    worker.kill('SIGTERM');
    if (worker.exitCode === null) await new Promise((r) => worker.once('exit', r));
    const serverLog = readFileSync(server.logFile, 'utf8');
    writeFileSync(join(OUT, 'server.log'), serverLog);
    await server.close();
    await rx.close();
  }
  console.log(`soak: ${code === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - STARTED) / 60_000).toFixed(1)} min including setup and teardown`);
  process.exit(code);
}

async function drive(
  server: Server,
  worker: ChildProcess,
  db: pg.Client,
  seeded: { storeId: string; ownerToken: string; productId: string; subProductId: string; key: string; lic: { key: string; productId: string } },
  memberEmail: string,
  memberPassword: string,
  probes: Map<string, { aged: number; young: number }>,
): Promise<number> {
  const { url } = server;
  const api = { authorization: `Bearer ${seeded.key}` };
  const owner = { authorization: `Bearer ${seeded.ownerToken}`, 'content-type': 'application/json' };
  const json = { 'content-type': 'application/json' };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  const createSession = async (body: Record<string, unknown>) => {
    const r = await fetch(`${url}/v1/checkout/sessions`, { method: 'POST', headers: { ...api, ...json, 'idempotency-key': randomUUID() }, body: JSON.stringify(body) });
    if (r.status !== 200) throw new Error(`checkout answered ${r.status}: ${(await r.text()).slice(0, 300)}`);
    return (await r.json()) as { id: string; url: string };
  };
  const pay = async (session: { url: string }) => {
    const r = await fetch(`${url}${new URL(session.url).pathname}`, {
      method: 'POST',
      headers: form,
      redirect: 'manual',
      body: new URLSearchParams({ ...BUYER, method: 'card', action: 'pay', ...AGREED, cardNumber: TEST_CARDS.success }).toString(),
    });
    await r.arrayBuffer();
    if (r.status !== 303) throw new Error(`pay answered ${r.status}`);
    const orderId = new URL(r.headers.get('location')!).searchParams.get('order_id');
    if (!orderId) throw new Error('pay redirected without an order id');
    return orderId;
  };

  // Subscriptions for the renewals, bought through the page before the clock starts.
  const subscriptions: string[] = [];
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const s = await createSession({ productId: seeded.subProductId, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
    const orderId = await pay(s);
    const { rows } = await db.query<{ subscription_id: string }>('select subscription_id from orders where id = $1', [orderId]);
    subscriptions.push(rows[0].subscription_id);
  }

  // A dashboard member signed in through the form, as a browser does.
  const jar: Record<string, string> = {};
  const loginPage = await fetch(`${url}/dashboard/login`);
  cookiesOf(loginPage, jar);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await loginPage.text())?.[1];
  if (!csrf) throw new Error('no CSRF field on the sign-in page');
  const login = await fetch(`${url}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...form, cookie: cookieHeader(jar) },
    body: new URLSearchParams({ _csrf: csrf, email: memberEmail, password: memberPassword }).toString(),
  });
  await login.arrayBuffer();
  cookiesOf(login, jar);
  if (login.status !== 303 || !jar.dash_session) throw new Error(`dashboard sign-in answered ${login.status}`);
  const dash = { cookie: cookieHeader(jar) };

  const sessions: Array<{ id: string; url: string }> = [];
  const paidOrders: string[] = [];
  const verifyBody = JSON.stringify({ key: seeded.lic.key, productId: seeded.lic.productId, nonce: randomBytes(32).toString('hex') });
  const dashboardPages = ['/dashboard', '/dashboard/orders', '/dashboard/subscriptions'];
  let nextSub = 0;
  let nextPage = 0;

  async function timed(route: string, f: () => Promise<void>): Promise<void> {
    const t0 = performance.now();
    try {
      await f();
      const t1 = performance.now();
      if (overlapsProbe(t0, t1)) {
        probeOverlapThisMinute++;
        probeOverlapMs.push(t1 - t0);
      } else record(route, t1 - t0);
    } catch (e) {
      fail(`${route}: ${(e as Error).message}`);
    }
  }
  async function expect(r: Response, status: number, what: string): Promise<void> {
    const body = await r.text();
    if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${body.slice(0, 200)}`);
  }

  const ops: Record<Op, () => Promise<void>> = {
    checkout: () =>
      timed('POST /v1/checkout/sessions', async () => {
        const s = await createSession({ productId: seeded.productId, customer: { name: '김구매', email: 'buyer@example.com' }, successUrl: 'https://example.com/thanks', cancelUrl: 'https://example.com/cart' });
        if (sessions.length < 1000) sessions.push(s);
      }),
    pay: async () => {
      const s = sessions.shift();
      if (!s) return ops.checkout();
      return timed('POST /pay/:id (simulator)', async () => {
        paidOrders.push(await pay(s));
      });
    },
    verify: () => timed('POST /v1/licenses/verify', async () => expect(await fetch(`${url}/v1/licenses/verify`, { method: 'POST', headers: json, body: verifyBody }), 200, 'verify')),
    refund: async () => {
      const id = paidOrders.shift();
      if (!id) return ops.verify();
      return timed('POST /v1/orders/:id/refund', async () =>
        expect(
          await fetch(`${url}/v1/orders/${id}/refund`, { method: 'POST', headers: { ...api, ...json, 'idempotency-key': randomUUID() }, body: JSON.stringify({ reason: '소크 환불' }) }),
          200,
          'refund',
        ),
      );
    },
    renewal: () =>
      timed('POST /admin/v1/subscriptions/:id/test-clock/advance', async () =>
        expect(
          await fetch(`${url}/admin/v1/subscriptions/${subscriptions[nextSub++ % subscriptions.length]}/test-clock/advance`, { method: 'POST', headers: owner, body: JSON.stringify({ days: 31 }) }),
          200,
          'test-clock advance',
        ),
      ),
    'orders list': () => timed('GET /v1/orders', async () => expect(await fetch(`${url}/v1/orders?limit=20`, { headers: api }), 200, 'orders list')),
    dashboard: () => {
      const page = dashboardPages[nextPage++ % dashboardPages.length];
      return timed(`GET ${page}`, async () => expect(await fetch(`${url}${page}`, { headers: dash }), 200, page));
    },
  };
  const total = MIX.reduce((s, [, w]) => s + w, 0);
  const pick = (): Op => {
    let x = Math.random() * total;
    for (const [op, w] of MIX) if ((x -= w) < 0) return op;
    return 'verify';
  };

  // ---------- the run ----------
  const rowsAtStart = await countAllTables(db);
  const t0 = Date.now();
  const minutes: Array<Record<string, number | string>> = [];
  const routeP99ByMinute = new Map<string, number[]>();
  // Every request's latency, per route and minute, for the judgement's pooled thirds (about 72,000 numbers an hour).
  const routeLatByMinute = new Map<string, number[][]>();
  const tableRows = new Map<string, number[]>();
  console.log(
    `soak${CI ? ' (CI mode)' : ''}: ${MINUTES} min at ${RATE} operations/s (warm-up ${WARMUP} min), setup ${((t0 - STARTED) / 1000).toFixed(0)} s, server pid ${server.pid} and worker pid ${worker.pid} on PostgreSQL; output in ${OUT}`,
  );
  // A server without autovacuum (this machine's, for CI) keeps the statistics of the first minute: the soak then does
  // autovacuum's work, with its default thresholds (bench/autovacuum.ts): on a connection of its own, once a minute
  // (autovacuum_naptime) and under autovacuum's cost-based delay, beside the mix as the daemon would, not between the
  // minutes' readings.
  const emulateAutovacuum = await autovacuumOff(db);
  let autovacuumRuns = 0;
  let autovacuumDone: string[] = [];
  let autovacuumStop = false;
  let autovacuumLoop: Promise<void> = Promise.resolve();
  if (emulateAutovacuum) {
    const av = new pg.Client({ connectionString: server.env.DATABASE_URL });
    av.on('error', () => undefined); // ended by the database's forced drop when a run fails
    await av.connect();
    const cost = await autovacuumCost(av);
    console.log(
      `     autovacuum is off on this server: the soak runs autovacuum's VACUUM and ANALYZE every minute, at its default thresholds and cost-based delay (${cost.delayMs} ms per ${cost.limit} of page cost), on a connection of its own`,
    );
    autovacuumLoop = (async () => {
      try {
        while (!autovacuumStop) {
          const started = Date.now();
          try {
            const done = await autovacuumPass(av);
            autovacuumRuns += done.length;
            autovacuumDone.push(...done.map((d) => `${d.did} ${d.table}`));
          } catch (e) {
            fail(`autovacuum pass: ${(e as Error).message}`);
          }
          while (!autovacuumStop && Date.now() < started + 60_000) await new Promise((r) => setTimeout(r, 200));
        }
      } finally {
        await av.end();
      }
    })();
  }
  const watch = await PgWatch.start(server.env.DATABASE_URL, new URL(server.env.DATABASE_URL).pathname.slice(1));
  const walTimed = await watch.walTimed();
  const pgMinutes: Array<Awaited<ReturnType<PgWatch['minute']>>> = [];
  // CPU per minute: the server's and the worker's per operation answered, and the machine's (busy, stolen by the host).
  // At a fixed rate, a server that does more work per request as the store grows shows it here, and so does a machine
  // whose cores got slower (the same work costing more CPU time: 2026-12-04, late); the reference below tells them apart.
  const cpuSeries: Array<{ serverMsPerOp: number; workerS: number; machineBusy: number; steal: number; yardstick: number; refMsPerReq: number; refP50: number; refP99: number }> = [];
  // The reference: the bench's bare process (bench/bare-reference.mjs: node:http and pg, nothing else), asked five times
  // a second beside the mix for one indexed SELECT of the store's products, which do not grow. Its state never changes,
  // so its CPU per request and its latency move only with the machine (its cores, the database server's, the
  // loopback): where a route's p99 rises with the reference's, the machine slowed, not the service. The SHA-256
  // yardstick alone missed that: in the hour of 2026-12-04 (late) it stayed flat while the same work cost the server
  // and the worker half as much CPU again, and a fresh server on a fresh database after it started where the hour ended.
  const ref = await startBareReference(server);
  process.once('exit', () => {
    try {
      process.kill(ref.pid);
    } catch {
      /* gone already */
    }
  });
  const refLat: number[] = [];
  let refAnswered = 0;
  const refTicker = setInterval(() => {
    const started = performance.now();
    void fetch(`${ref.url}/bench/select?store=${encodeURIComponent(seeded.storeId)}`)
      .then(async (r) => {
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`answered ${r.status}`);
        refLat.push(performance.now() - started);
        refAnswered++;
      })
      .catch((e) => fail(`reference process: ${(e as Error).message}`));
  }, 200);
  let refCpuLast = processCpuSeconds(ref.pid);
  let cpuLast = { server: processCpuSeconds(server.pid), worker: worker.pid ? processCpuSeconds(worker.pid) : 0, machine: machineCpuSeconds() };
  const sampleOnce = async () => {
    try {
      const [heap, loop] = await Promise.all([metric(server, 'nodejs_heap_size_used_bytes'), metric(server, 'nodejs_eventloop_lag_seconds')]);
      samples.push({ t: (Date.now() - t0) / 60_000, serverRss: rssMb(server.pid), workerRss: worker.pid ? rssMb(worker.pid) : NaN, heapMb: heap / 2 ** 20, loopMs: loop * 1000 });
    } catch (e) {
      fail(`metrics: ${(e as Error).message}`);
    }
  };
  await sampleOnce();
  const sampler = setInterval(sampleOnce, SAMPLE_MS);
  let issued = 0;
  const ticker = setInterval(() => {
    // Open loop: the operations due by now are started whatever the answers' pace, up to MAX_IN_FLIGHT at once.
    const due = Math.floor(((Date.now() - t0) / 1000) * RATE);
    while (issued < due) {
      issued++;
      if (inFlight >= MAX_IN_FLIGHT) {
        overloaded++;
        fail('overload: more than 64 operations in flight (the service fell behind the rate)');
        continue;
      }
      inFlight++;
      void ops[pick()]().finally(() => inFlight--);
    }
  }, 10);

  const header = `${'min'.padStart(4)} ${'RSS'.padStart(6)} ${'wRSS'.padStart(6)} ${'heap'.padStart(6)} ${'loopmx'.padStart(7)} ${'errors'.padStart(6)} ${'hooks'.padStart(6)}  routes p50/p99 ms (n) · rows`;
  console.log(header);
  for (let m = 1; m <= MINUTES; m++) {
    await new Promise((r) => setTimeout(r, t0 + m * 60_000 - Date.now()));
    const last = samples[samples.length - 1];
    const loopMax = Math.max(...samples.filter((x) => x.t > m - 1).map((x) => x.loopMs));
    const row: Record<string, number | string> = { minute: m, server_rss_mb: last.serverRss, worker_rss_mb: last.workerRss, heap_mb: +last.heapMb.toFixed(1), eventloop_max_ms: +loopMax.toFixed(2), errors: errorsThisMinute, webhooks_received: received };
    const parts: string[] = [];
    for (const [route, lat] of [...windowLat.entries()].sort()) {
      lat.sort((a, b) => a - b);
      const p50 = pct(lat, 50);
      const p99 = pct(lat, 99);
      row[`${route} p50`] = +p50.toFixed(1);
      row[`${route} p99`] = +p99.toFixed(1);
      row[`${route} n`] = lat.length;
      let s = routeP99ByMinute.get(route);
      if (!s) routeP99ByMinute.set(route, (s = []));
      s[m - 1] = p99;
      let all = routeLatByMinute.get(route);
      if (!all) routeLatByMinute.set(route, (all = []));
      all[m - 1] = lat;
      parts.push(`${route} ${p50.toFixed(1)}/${p99.toFixed(1)} (${lat.length})`);
    }
    const answeredThisMinute = [...windowLat.values()].reduce((n, l) => n + l.length, 0) + probeOverlapThisMinute;
    windowLat.clear();
    const counts: string[] = [];
    for (const { table } of TABLES) {
      const { rows } = await db.query<{ n: string }>(`select count(*)::text as n from ${table}`);
      const n = Number(rows[0].n);
      row[`rows ${table}`] = n;
      let s = tableRows.get(table);
      if (!s) tableRows.set(table, (s = []));
      s.push(n);
      counts.push(`${table} ${n}`);
    }
    if (emulateAutovacuum) {
      row.autovacuum = autovacuumDone.join('; ');
      autovacuumDone = [];
    }
    const cpuNow = { server: processCpuSeconds(server.pid), worker: worker.pid ? processCpuSeconds(worker.pid) : 0, machine: machineCpuSeconds() };
    const dMachine = { busy: cpuNow.machine.busy - cpuLast.machine.busy, idle: cpuNow.machine.idle - cpuLast.machine.idle, steal: cpuNow.machine.steal - cpuLast.machine.steal };
    const dAll = dMachine.busy + dMachine.idle + dMachine.steal;
    const cpu = {
      serverMsPerOp: +(((cpuNow.server - cpuLast.server) * 1000) / Math.max(1, answeredThisMinute)).toFixed(3),
      workerS: +(cpuNow.worker - cpuLast.worker).toFixed(2),
      machineBusy: +((100 * dMachine.busy) / dAll).toFixed(1),
      steal: +((100 * dMachine.steal) / dAll).toFixed(2),
      yardstick: yardstickMs(),
      ...(() => {
        refLat.sort((a, b) => a - b);
        const refCpu = processCpuSeconds(ref.pid);
        const r = { refMsPerReq: +(((refCpu - refCpuLast) * 1000) / Math.max(1, refAnswered)).toFixed(3), refP50: +pct(refLat, 50).toFixed(2), refP99: +pct(refLat, 99).toFixed(2) };
        refCpuLast = refCpu;
        refLat.length = 0;
        refAnswered = 0;
        return r;
      })(),
    };
    cpuLast = cpuNow;
    cpuSeries.push(cpu);
    Object.assign(row, {
      server_cpu_ms_per_op: cpu.serverMsPerOp,
      worker_cpu_s: cpu.workerS,
      machine_busy_pct: cpu.machineBusy,
      machine_steal_pct: cpu.steal,
      yardstick_cpu_ms: cpu.yardstick,
      reference_cpu_ms_per_request: cpu.refMsPerReq,
      reference_p50_ms: cpu.refP50,
      reference_p99_ms: cpu.refP99,
    });
    const pgm = await watch.minute(walTimed);
    pgMinutes.push(pgm);
    Object.assign(row, {
      pg_waits: formatWaits(pgm.waits, 10),
      wal_records: pgm.walRecords,
      wal_fpi: pgm.walFpi,
      wal_mb: pgm.walMb,
      wal_syncs: pgm.walSyncs,
      wal_sync_ms: Number.isNaN(pgm.walSyncMs) ? '' : pgm.walSyncMs,
      checkpoints: pgm.checkpoints,
      checkpoint_buffers: pgm.checkpointBuffers,
      disk_writes: pgm.diskWrites,
      disk_write_ms: pgm.diskWriteMs,
      disk_flushes: pgm.diskFlushes,
      disk_flush_ms: pgm.diskFlushMs,
    });
    if (AFTER_GC) {
      const probeStart = performance.now();
      probeSince = probeStart;
      try {
        const [sv, wk] = await Promise.all([gcProbe(INSPECT_PORT), gcProbe(INSPECT_PORT + 1)]);
        gcSamples.push({ t: (Date.now() - t0) / 60_000, serverRss: sv.rss, heapMb: sv.heapUsed, workerRss: wk.rss, workerHeapMb: wk.heapUsed });
        Object.assign(row, { server_rss_after_gc_mb: sv.rss, heap_after_gc_mb: sv.heapUsed, worker_rss_after_gc_mb: wk.rss, worker_heap_after_gc_mb: wk.heapUsed });
        // Which mappings hold the RSS: glibc's main arena ([heap]) or the other anonymous ones (V8's, threads' arenas).
        if (worker.pid) {
          const sm = mappingsMb(server.pid);
          const wm = mappingsMb(worker.pid);
          Object.assign(row, { server_malloc_heap_mb: sm.mallocHeap, server_other_anon_mb: sm.otherAnon, worker_malloc_heap_mb: wm.mallocHeap, worker_other_anon_mb: wm.otherAnon });
        }
        parts.unshift(`after GC: RSS ${sv.rss} heap ${sv.heapUsed} worker ${wk.rss}/${wk.heapUsed}`);
      } catch (e) {
        fail(`gc probe: ${(e as Error).message}`);
      } finally {
        probeSpans.push([probeStart, performance.now()]);
        probeSince = null;
        // spans older than two minutes are dropped: a request that old is one the drain counts as a hang
        while (probeSpans.length && probeSpans[0][1] < performance.now() - 120_000) probeSpans.shift();
      }
    }
    if (AFTER_GC) {
      row.requests_overlapping_gc_probe = probeOverlapThisMinute;
      probeOverlapThisMinute = 0;
    }
    minutes.push(row);
    console.log(
      `${String(m).padStart(4)} ${`${last.serverRss}`.padStart(6)} ${`${last.workerRss}`.padStart(6)} ${last.heapMb.toFixed(1).padStart(6)} ${loopMax.toFixed(1).padStart(7)} ${String(errorsThisMinute).padStart(6)} ${String(received).padStart(6)}  ${parts.join(' · ')} · ${counts.join(', ')}`,
    );
    console.log(
      `     cpu: server ${cpu.serverMsPerOp} ms per operation, worker ${cpu.workerS} s, machine ${cpu.machineBusy}% busy, ${cpu.steal}% stolen, yardstick ${cpu.yardstick} ms, reference ${cpu.refMsPerReq} ms CPU per request and ${cpu.refP50}/${cpu.refP99} ms p50/p99 · pg: ${formatWaits(pgm.waits)} · WAL ${pgm.walMb} MB, ${pgm.walFpi} full pages, ${pgm.walSyncs} flushes${walTimed ? ` of ${pgm.walSyncMs} ms` : ''} · disk: ${pgm.diskWrites} writes of ${pgm.diskWriteMs} ms, ${pgm.diskFlushes} flushes of ${pgm.diskFlushMs} ms · checkpoints ${pgm.checkpoints}${row.autovacuum ? ` · autovacuum: ${row.autovacuum}` : ''}`,
    );
    errorsThisMinute = 0;
    // BENCH_HEAP_SNAPSHOTS: one heap snapshot as the warm-up ends and one a minute before the end (see bench/lib.ts).
    if (process.env.BENCH_HEAP_SNAPSHOTS && (m === WARMUP || m === MINUTES - 1)) {
      process.kill(server.pid, 'SIGUSR2');
      console.log(`     heap snapshot requested (SIGUSR2) into ${process.env.BENCH_HEAP_SNAPSHOTS}`);
    }
  }
  clearInterval(ticker);
  clearInterval(refTicker);
  clearInterval(sampler);
  autovacuumStop = true;
  await autovacuumLoop;
  await watch.stop();
  await new Promise((r) => setTimeout(r, 1000)); // the reference's last requests answered
  await ref.close();
  const drainUntil = Date.now() + 30_000;
  while (inFlight > 0 && Date.now() < drainUntil) await new Promise((r) => setTimeout(r, 50));
  // An operation still unanswered 30 s after the mix stopped is a hang, not a slow machine: an error in either mode.
  for (let i = 0; i < inFlight; i++) fail('no answer 30 s after the mix stopped');

  // Webhooks: every event fanned out, every delivery settled, every one recorded as sent received. The worker gets up
  // to 60 s after the mix stops to finish what is due (a first retry comes after 5 s; a delivery still pending then is
  // counted lost, as one failed for good is).
  const deliveryState = async () => {
    const { rows } = await db.query<{ undispatched: string; pending: string; failed: string }>(
      `select (select count(*) from events where dispatched_at is null)::text as undispatched,
              (select count(*) from webhook_deliveries where status = 'pending')::text as pending,
              (select count(*) from webhook_deliveries where status = 'failed')::text as failed`,
    );
    return { undispatched: Number(rows[0].undispatched), pending: Number(rows[0].pending), failed: Number(rows[0].failed) };
  };
  const settleUntil = Date.now() + 60_000;
  let hooks = await deliveryState();
  while ((hooks.undispatched > 0 || hooks.pending > 0) && Date.now() < settleUntil) {
    await new Promise((r) => setTimeout(r, 500));
    hooks = await deliveryState();
  }
  const { rows: sentRows } = await db.query<{ event_id: string }>(`select distinct event_id from webhook_deliveries where status = 'succeeded' and event_id not like $1`, [`evt_${SEED}%`]);
  const notReceived = sentRows.filter((r) => !receivedIds.has(r.event_id)).length;
  const lostDeliveries = hooks.undispatched + hooks.pending + hooks.failed + notReceived;
  const rowsAtEnd = await countAllTables(db);

  // Error lines in the processes' logs (pino level ≥ 50).
  const logErrors = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => /"level":(5\d|60)/.test(l));
  const serverErrors = logErrors(server.logFile);
  const workerErrors = logErrors(join(OUT, 'worker.log'));
  for (const l of [...serverErrors, ...workerErrors].slice(0, 20)) errors.push(`log: ${l.slice(0, 300)}`);

  // ---------- files ----------
  const cols = [...new Set(minutes.flatMap((r) => Object.keys(r)))];
  const csvCell = (v: unknown) => (v === undefined ? '' : /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
  writeFileSync(join(OUT, 'minutes.csv'), [cols.map(csvCell).join(','), ...minutes.map((r) => cols.map((c) => csvCell(r[c])).join(','))].join('\n') + '\n');
  writeFileSync(
    join(OUT, 'samples.csv'),
    ['minute,server_rss_mb,worker_rss_mb,heap_mb,eventloop_delay_ms', ...samples.map((s) => `${s.t.toFixed(3)},${s.serverRss},${s.workerRss},${s.heapMb.toFixed(2)},${s.loopMs.toFixed(2)}`)].join('\n') + '\n',
  );
  writeFileSync(join(OUT, 'soak.svg'), plot(samples, routeP99ByMinute, { minutes: MINUTES, warmup: WARMUP }));
  writeFileSync(join(OUT, 'errors.txt'), errors.join('\n') + '\n');
  if (AFTER_GC) {
    writeFileSync(
      join(OUT, 'after-gc.csv'),
      ['minute,server_rss_mb,server_heap_mb,worker_rss_mb,worker_heap_mb', ...gcSamples.map((s) => `${s.t.toFixed(3)},${s.serverRss},${s.heapMb},${s.workerRss},${s.workerHeapMb}`)].join('\n') + '\n',
    );
  }

  // ---------- JUDGE ----------
  // [verdict, text, judged]: in CI mode what a shared machine can excuse (memory slopes, p99 flatness, overload) is
  // printed with its figure but not judged (`info`).
  const verdicts: Array<[boolean, string, boolean]> = [];
  const after = samples.filter((s) => s.t >= WARMUP);
  for (const [name, get] of [
    ['server RSS', (s: Sample) => s.serverRss],
    ['server heap', (s: Sample) => s.heapMb],
    ['worker RSS', (s: Sample) => s.workerRss],
  ] as const) {
    const slope = slopePer10Min(after.map((s) => [s.t, get(s)]));
    // With --after-gc these moments include garbage not yet collected: printed, and the after-GC figures judged below.
    verdicts.push([slope < 1, `${name} slope after warm-up${AFTER_GC ? ' (5-second samples, garbage included)' : ''}: ${slope.toFixed(2)} MB per 10 min (limit 1; ${after.length} samples over ${(MINUTES - WARMUP).toFixed(0)} min)`, !CI && !AFTER_GC]);
  }
  if (AFTER_GC) {
    const kept = gcSamples.filter((s) => s.t >= WARMUP);
    for (const [name, get] of [
      ['server RSS after a full GC', (s: (typeof gcSamples)[number]) => s.serverRss],
      ['server heap after a full GC', (s: (typeof gcSamples)[number]) => s.heapMb],
      ['worker RSS after a full GC', (s: (typeof gcSamples)[number]) => s.workerRss],
      ['worker heap after a full GC', (s: (typeof gcSamples)[number]) => s.workerHeapMb],
    ] as const) {
      const slope = slopePer10Min(kept.map((s) => [s.t, get(s)]));
      verdicts.push([kept.length >= 2 && slope < 1, `${name} slope after warm-up: ${slope.toFixed(2)} MB per 10 min (limit 1; ${kept.length} minutes; ${kept[0] ? get(kept[0]) : '?'} → ${kept.length ? get(kept[kept.length - 1]) : '?'} MB)`, !CI]);
    }
  }
  // p99 flat, per route, two ways (each late ≤ 1.5× early + 5 ms):
  // - the worst minute of the last third against the first post-warm-up third's worst: judged for a route asked at
  //   least P99_MIN_REQUESTS times a minute; below that a minute has no p99 of its own (with 47 requests its "p99" is
  //   its slowest request), so it is printed, not judged;
  // - the p99 of all the last third's requests against that of all the first third's: judged for every route.
  for (const [route, series] of [...routeP99ByMinute.entries()].sort()) {
    const f = p99Flat(series, WARMUP);
    if (!f) {
      verdicts.push([true, `p99 flat ${route}: not judged (fewer than 2 minutes after warm-up)`, !CI]);
      continue;
    }
    const perMinute = (routeLatByMinute.get(route) ?? []).slice(WARMUP).map((l) => l?.length ?? 0);
    const medianN = [...perMinute].sort((a, b) => a - b)[Math.floor(perMinute.length / 2)] ?? 0;
    const thin = medianN < P99_MIN_REQUESTS;
    verdicts.push([
      f.flat,
      `p99 flat ${route}, worst minute: ${f.early.toFixed(1)} ms early → ${f.late.toFixed(1)} ms late (limit 1.5× + 5 ms)${thin ? `; not judged: ${medianN} requests a minute, so a minute's p99 is its slowest request` : ''}`,
      !CI && !thin,
    ]);
    const pooled = p99FlatPooled(routeLatByMinute.get(route) ?? [], WARMUP);
    if (pooled) verdicts.push([pooled.flat, `p99 flat ${route}, thirds pooled: ${pooled.early.toFixed(1)} ms (${pooled.earlyN} requests) → ${pooled.late.toFixed(1)} ms (${pooled.lateN}) (limit 1.5× + 5 ms)`, !CI]);
    else verdicts.push([true, `p99 flat ${route}, thirds pooled: not judged (fewer than ${P99_MIN_REQUESTS} requests in a third: run longer)`, false]);
  }
  // The trend without single minutes: the median per-minute p99 of the first and last thirds, and beside it what the
  // database and the disk did in the same minutes (bench/pg-watch.ts), so a tail that grows with the WAL's flushes or
  // the disk's latency shows it. Printed, not judged.
  const trend = (label: string, series: number[], unit: string) => {
    const t = thirdsMedian(series, WARMUP);
    if (t) verdicts.push([true, `trend ${label}: median of the first third ${t.early.toFixed(2)}${unit} → last third ${t.late.toFixed(2)}${unit}`, false]);
  };
  for (const [route, series] of [...routeP99ByMinute.entries()].sort()) trend(`p99 ${route}`, series, ' ms');
  const waitsOf = (pgm: (typeof pgMinutes)[number], re: RegExp) => Object.entries(pgm.waits).reduce((n, [w, c]) => (re.test(w) ? n + c : n), 0);
  trend('WAL flush waits (IO:WALSync + LWLock:WALWrite samples a minute)', pgMinutes.map((m) => waitsOf(m, /^(IO:WALSync|LWLock:WALWrite)$/)), '');
  trend('row lock waits (Lock:* samples a minute)', pgMinutes.map((m) => waitsOf(m, /^Lock:/)), '');
  trend('running on CPU (samples a minute)', pgMinutes.map((m) => waitsOf(m, /^CPU$/)), '');
  if (walTimed) trend('WAL flush time', pgMinutes.map((m) => m.walSyncMs), ' ms');
  trend("server's CPU per operation answered", cpuSeries.map((c) => c.serverMsPerOp), ' ms');
  trend("worker's CPU a minute", cpuSeries.map((c) => c.workerS), ' s');
  trend('machine busy', cpuSeries.map((c) => c.machineBusy), '%');
  trend('machine CPU stolen by the host', cpuSeries.map((c) => c.steal), '%');
  trend('yardstick (CPU ms for SHA-256 of 8 MiB: the machine\'s speed)', cpuSeries.map((c) => c.yardstick), ' ms');
  trend("reference process's CPU per request (constant work: the machine's speed for it)", cpuSeries.map((c) => c.refMsPerReq), ' ms');
  trend("reference process's p50", cpuSeries.map((c) => c.refP50), ' ms');
  // Each route's per-minute p99 over the reference's CPU per request in the same minute: a route whose tail grows only
  // as the machine slows stays flat here.
  for (const [route, series] of [...routeP99ByMinute.entries()].sort()) trend(`p99 ${route} ÷ the reference's CPU per request`, series.map((p, i) => p / (cpuSeries[i]?.refMsPerReq ?? NaN)), '');
  trend('WAL written', pgMinutes.map((m) => m.walMb), ' MB/min');
  trend('disk write latency', pgMinutes.map((m) => m.diskWriteMs), ' ms');
  trend('disk flush latency', pgMinutes.map((m) => m.diskFlushMs), ' ms');
  if (AFTER_GC) {
    const sorted = [...probeOverlapMs].sort((a, b) => a - b);
    verdicts.push([
      true,
      `requests that overlapped a full-collection probe, left out of the percentiles: ${sorted.length} (p50 ${pct(sorted, 50).toFixed(1)} ms, worst ${sorted.length ? sorted[sorted.length - 1].toFixed(1) : '-'} ms)`,
      false,
    ]);
  }
  const otherErrors = errorsInAll - overloaded;
  if (CI) {
    verdicts.push([overloaded === 0, `overload (more than ${MAX_IN_FLIGHT} operations in flight: the machine fell behind the rate): ${overloaded}`, false]);
    verdicts.push([otherErrors === 0, `errors (unexpected answers, 5xx, failed payments, metrics not answering): ${otherErrors}; the first 200 in errors.txt`, true]);
  } else {
    verdicts.push([errorsInAll === 0, `errors from the driver: ${errorsInAll} (overload ${overloaded}); the first 200 in errors.txt`, true]);
  }
  verdicts.push([serverErrors.length + workerErrors.length === 0, `error lines in the logs: server ${serverErrors.length}, worker ${workerErrors.length}`, true]);
  verdicts.push([
    lostDeliveries === 0 && received > 0,
    `webhooks: ${received} requests received (${receivedIds.size} events); lost ${lostDeliveries} (events not fanned out ${hooks.undispatched}, deliveries pending ${hooks.pending}, failed for good ${hooks.failed}, recorded as sent but not received ${notReceived})`,
    true,
  ]);
  const runMinutes = MINUTES;
  for (const t of TABLES) {
    let grew = (rowsAtEnd.get(t.table) ?? 0) - (rowsAtStart.get(t.table) ?? 0);
    if (t.kind === 'retention') {
      // Bounded: nothing past its retention is left (the seeded aged rows included: the sweep ran in the soak's worker,
      // on its clock), the seeded rows inside it are kept, and the steady state it implies at this rate is printed.
      // A run shorter than the retention cannot watch the purge delete the rows the run itself wrote.
      const { rows } = await db.query<{ past: string; aged: string; young: string }>(
        `select (select count(*) from ${t.table} where ${t.past})::text as past,
                (select count(*) from ${t.table} where ${idColumn(t.table)} like $1)::text as aged,
                (select count(*) from ${t.table} where ${idColumn(t.table)} like $2)::text as young`,
        [`%${SEED}_aged%`, `%${SEED}_young%`],
      );
      const probe = probes.get(t.table) ?? { aged: 0, young: 0 };
      // What the run wrote: the seeded rows are left out at both ends.
      grew -= Number(rows[0].aged) + Number(rows[0].young) - (probe.aged + probe.young);
      const ok = Number(rows[0].past) === 0 && Number(rows[0].aged) === 0 && Number(rows[0].young) === probe.young;
      const steady = t.retentionMs ? Math.round(((grew / MINUTES) * t.retentionMs) / 60_000) : 0;
      verdicts.push([
        ok,
        `${t.table}: ${signed(grew)} rows in ${runMinutes} min; held by ${t.holds}; rows past retention now ${rows[0].past} (seeded past it ${probe.aged}, left ${rows[0].aged}; seeded inside it ${probe.young}, kept ${rows[0].young}); steady state at this rate ≈ ${steady.toLocaleString('en')} rows`,
        true,
      ]);
    } else {
      verdicts.push([true, `${t.table}: ${signed(grew)} rows (${t.holds})`, true]);
    }
  }
  // Any other table that grew: nothing holds it.
  const listed = new Set(TABLES.map((t) => t.table));
  const unheld = [...rowsAtEnd.entries()].filter(([table, n]) => !listed.has(table) && n > (rowsAtStart.get(table) ?? 0));
  verdicts.push([unheld.length === 0, `tables that grew with nothing listed to hold them: ${unheld.length ? unheld.map(([table, n]) => `${table} +${n - (rowsAtStart.get(table) ?? 0)}`).join(', ') : 'none'}`, true]);
  if (emulateAutovacuum) verdicts.push([true, `autovacuum's work done by the soak (the server's autovacuum is off): ${autovacuumRuns} VACUUM or ANALYZE runs, listed per minute in minutes.csv`, false]);
  console.log(`\njudgement${CI ? ' (CI mode: "info" lines are printed, not judged)' : ''}:`);
  for (const [ok, text, judged] of verdicts) console.log(`  ${!judged ? 'info' : ok ? 'ok  ' : 'FAIL'} ${text}`);
  console.log(`\nfiles: ${join(OUT, 'minutes.csv')}, samples.csv, soak.svg, errors.txt, server.log, worker.log`);
  return verdicts.every(([ok, , judged]) => ok || !judged) ? 0 : 1;
}

await main();
