// @slow: starts the built service (`npx commerce start`) on an empty PostgreSQL database and runs the operator CLI (npm run test:slow)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../../src/config';
import { TEST_CARDS } from '../../src/payments';
import { blocksOfFile, type Block } from '../docs-site/blocks';
import { AGREED, BUYER } from '../checkout/factory';
import { freePort } from '../helpers/ports';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';

/**
 * The production manual's "From an empty database to the first live payment" (docs/manual/14-production-deployment.md),
 * run as written: every annotated block of that page in order, against the built service started by the page's own
 * start command on a new, empty PostgreSQL database, with the CLI and curl as an operator types them. What a buyer
 * does in a browser between two blocks (`then=pay-test`, `then=pay-live`) is done over HTTP here, the live payment
 * through a local stand-in of Toss's API (test/payments/fake-toss.ts). Values the page says to keep (`capture=`) are
 * read from the output, as a reader copies them.
 */

const ROOT = process.cwd();
const MANUAL = join(ROOT, 'docs/manual/14-production-deployment.md');
const PG = process.env.TEST_DATABASE_URL;
const skip = PG ? false : 'needs PostgreSQL (the page starts from an empty PostgreSQL database): set TEST_DATABASE_URL=postgres://…';
/** Only a bound on failure (a command that never ends), never waited for otherwise. */
const DEADLINE_MS = 180_000;

let toss: FakeToss;
let admin: pg.Client;
let dbName: string;
let server: ChildProcess | null = null;
let serverOut = '';
let port: number;
const env: Record<string, string> = {};

before(async () => {
  if (!PG) return;
  toss = await startFakeToss({ kind: 'live' });
  admin = new pg.Client({ connectionString: PG });
  await admin.connect();
  dbName = `commerce_first_run_${process.pid}_${randomBytes(3).toString('hex')}`;
  await admin.query(`create database ${dbName}`);
  const u = new URL(PG);
  u.pathname = `/${dbName}`;
  port = await freePort();
  // What the operator's shell holds: the database and the master key (the manual's step 1), the Toss keys of step 5b,
  // and where the service answers. No PUBLIC_BASE_URL: the CLI takes the address the server recorded.
  Object.assign(env, {
    PATH: process.env.PATH!,
    HOME: process.env.HOME ?? '/tmp',
    DATABASE_URL: u.toString(),
    MASTER_KEY: randomBytes(32).toString('hex'),
    COMMERCE_URL: `http://127.0.0.1:${port}`,
    TOSS_CLIENT_KEY: toss.clientKey,
    TOSS_SECRET_KEY: toss.secretKey,
  });
});

after(async () => {
  if (!PG) return;
  if (server && server.exitCode === null) {
    const gone = new Promise((r) => server!.once('exit', r));
    process.kill(-server.pid!, 'SIGTERM');
    await gone;
  }
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  await toss.close();
});

function sh(code: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-eo', 'pipefail', '-c', code], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
    child.on('exit', (c) => {
      clearTimeout(timer);
      resolve({ code: c, out });
    });
  });
}

/** The page's start command, in its own process group, with the service's settings of step 1. */
async function start(b: Block): Promise<void> {
  server = spawn('bash', ['-eo', 'pipefail', '-c', b.code], {
    cwd: ROOT,
    detached: true,
    env: {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: 'https://pay.example.com',
      TOSS_API_BASE_URL: toss.baseUrl,
      RECONCILIATION_SCHEDULE: 'off',
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d) => (serverOut += d));
  server.stderr!.on('data', (d) => (serverOut += d));
  const until = Date.now() + DEADLINE_MS;
  for (;;) {
    assert.equal(server.exitCode, null, `the server exited: ${serverOut}`);
    const ready = await fetch(`${env.COMMERCE_URL}/ready`).then((r) => r.ok, () => false);
    if (ready && new RegExp(b.attrs.expect!).test(serverOut)) break;
    assert.ok(Date.now() < until, `not ready, or no "${b.attrs.expect}" in: ${serverOut}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.match(serverOut, /migrations applied: 001_platform/, 'the first start migrated the empty database');
}

/** The page's URL (made with PUBLIC_BASE_URL, the public address) as reached here: this machine's port. */
const local = (url: string) => {
  const u = new URL(url);
  return `${env.COMMERCE_URL}${u.pathname}${u.search}`;
};

/** The buyer pays the session's page with the test card; the page sends them to successUrl with the order id. */
async function payTest(): Promise<void> {
  const res = await fetch(local(env.SESSION_URL!), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...BUYER, method: 'card', action: 'pay', ...AGREED, cardNumber: TEST_CARDS.success }).toString(),
  });
  assert.equal(res.status, 303, await res.text());
  const back = new URL(res.headers.get('location')!);
  assert.equal(`${back.origin}${back.pathname}`, 'https://shop.example.com/thanks');
  env.ORDER_ID = back.searchParams.get('order_id')!;
}

/** The buyer opens Toss's window from the page, pays there, and Toss sends the browser back to the service. */
async function payLive(): Promise<void> {
  const pay = local(env.SESSION_URL!);
  const launch = await fetch(pay, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...BUYER, method: 'card', action: 'pay', ...AGREED }).toString(),
  });
  const page = await launch.text();
  assert.equal(launch.status, 200, page);
  assert.ok(page.includes(`"clientKey":"${toss.clientKey}"`), 'the page opens the window with the live client key');
  const orderId = /"orderId":"(ord_[^"]+)"/.exec(page)![1]!;
  const amount = Number(/"amount":\{"currency":"KRW","value":(\d+)\}/.exec(page)![1]);
  const paymentKey = `tpk_first_live_${randomBytes(4).toString('hex')}`;
  toss.requestPayment({ paymentKey, orderId, amount });
  const back = await fetch(`${env.COMMERCE_URL}${new URL(pay).pathname}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: String(amount) })}`, { redirect: 'manual' });
  assert.equal(back.status, 303, await back.text());
  const to = new URL(back.headers.get('location')!);
  assert.equal(`${to.origin}${to.pathname}`, 'https://shop.example.com/thanks');
  env.ORDER_ID = to.searchParams.get('order_id')!;
  assert.equal(env.ORDER_ID, orderId);
}

/** The owner signs in to the dashboard with the password `commerce setup` printed. */
async function signIn(email: string, password: string): Promise<number> {
  const page = await fetch(`${env.COMMERCE_URL}/dashboard/login`);
  const cookies = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
  const res = await fetch(`${env.COMMERCE_URL}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
  return res.status;
}

test("the production manual's first-run order, as written: empty PostgreSQL → setup → a test payment → going live → a live payment", { skip }, async () => {
  const all = blocksOfFile(MANUAL, 'manual/14-production-deployment.md');
  const from = all.findIndex((b) => b.attrs.run === 'start');
  assert.ok(from > 0, 'the page has its start block');
  const steps = all.slice(from - 1).filter((b) => b.attrs.run);
  assert.ok(steps.length >= 12, `${steps.length} steps`);
  const ran: string[] = [];
  for (const b of steps) {
    const where = `block ${b.index}:\n${b.code}`;
    if (b.attrs.run === 'env') {
      // Every line names a setting and the whole block passes the service's own validation.
      const values = Object.fromEntries(b.code.split('\n').filter((l) => l.trim()).map((l) => l.split(/=(.*)/s).slice(0, 2)));
      if (/^<.*>$/.test(values.MASTER_KEY)) values.MASTER_KEY = randomBytes(32).toString('hex');
      assert.equal(loadConfig(values).publicBaseUrl, values.PUBLIC_BASE_URL);
    } else if (b.attrs.run === 'start') {
      await start(b);
    } else if (b.attrs.run === 'sh') {
      const r = await sh(b.code);
      assert.equal(r.code, 0, `${where}\n${r.out}`);
      if (b.attrs.expect) assert.match(r.out, new RegExp(b.attrs.expect, 'm'), `${where}\n${r.out}`);
      for (const pair of (b.attrs.capture ?? '').split(';').filter(Boolean)) {
        const [name, re] = pair.split(/=(.*)/s) as [string, string];
        const m = new RegExp(re).exec(r.out);
        assert.ok(m, `${where}: ${name} not in the output:\n${r.out}`);
        env[name] = m[1]!;
      }
      if (b.attrs.then === 'pay-test') await payTest();
      else if (b.attrs.then === 'pay-live') await payLive();
      else assert.equal(b.attrs.then, undefined, `${where}: unknown then=${b.attrs.then}`);
    } else {
      assert.fail(`${where}: run=${b.attrs.run} is not a step this test knows`);
    }
    ran.push(b.attrs.run);
  }
  assert.ok(ran.includes('start') && ran.filter((r) => r === 'sh').length >= 10);

  // What the steps left behind, beyond what each block's output showed.
  assert.ok(env.STORE_ID && env.COMMERCE_OWNER_TOKEN && env.COMMERCE_API_KEY?.startsWith('svc_test_'), 'setup printed the store, its owner token and a test key');
  assert.equal(await signIn('owner@example.com', env.DASHBOARD_PASSWORD!), 303, 'the owner signs in with the printed password');
  const live = await fetch(`${env.COMMERCE_URL}/v1/orders/${env.ORDER_ID}`, { headers: { authorization: `Bearer ${env.COMMERCE_LIVE_API_KEY}` } }).then((r) => r.json());
  assert.equal(live.mode, 'live');
  assert.equal(live.status, 'paid');
  assert.ok(toss.payments.has(toss.calls.filter((c) => c.path === '/v1/payments/confirm').at(-1)!.body.paymentKey), 'Toss confirmed the live payment');
  // The CLI, run without PUBLIC_BASE_URL, took the address the running server recorded for the links it printed.
  assert.equal(env.DASHBOARD_URL, 'https://pay.example.com/dashboard');
});
