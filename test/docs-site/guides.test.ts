// @slow: starts the guides' servers as their own processes and runs npm install (npm run test:slow)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import dnsPromises from 'node:dns/promises';
import { syncBuiltinESMExports } from 'node:module';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { allowLoopbackPort, bearer, createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, submitPayForm } from '../checkout/factory';
import { pump } from '../webhooks/setup';
import { ManualClock } from '../../src/platform/clock';
import { loadConfig } from '../../src/config';
import { TEST_CARDS } from '../../src/payments';
import { blocksOf, guideFiles, type Block } from './blocks';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';

/**
 * Every code block of the guides (docs/guides/{ko,en}/*.md) runs here, as written, against a real service listening
 * on a local port: shell blocks with bash and curl, the shop and webhook servers as their own processes receiving real
 * payments and signed deliveries, `.env` blocks through the service's own config validation. The only inputs are the
 * environment variables the guides name (COMMERCE_URL, COMMERCE_API_KEY, …), which a reader sets too.
 *
 * Examples that are programs run as a reader runs them: blocks marked `project=NAME` belong to a project the guide
 * makes in a new, empty folder with the commands it states (`npm init -y`, `npm install …` from the registry or from
 * the service's /downloads), `file=` blocks are saved there under the name the guide gives, and the guide's own run
 * command (`node shop.mjs`) starts it: no package linked in, no loader, no tsconfig. Each project is made and run on
 * every supported Node version this machine has: its own Node, and Node 22 where CI fetched it (.ci/run).
 * The Next.js route handler is the one exception: Next itself is not installed here; its route module runs, with the
 * `standardwebhooks` the guide installs, behind a plain node:http server that calls it as Next does.
 */

const ROOT = process.cwd();
const RUNS = new Set(['sh', 'sh-postgres', 'server', 'next-route', 'env', 'json', 'skip']);

/** The Node versions the projects run on: this one, and CI's Node 22 (.ci/run unpacks it there) when present. */
const NODE22 = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'commerce-ci', 'node-v22.23.3', 'bin');
const NODES: Array<{ label: string; bin: string }> = [
  { label: `node${process.versions.node.split('.')[0]}`, bin: dirname(process.execPath) },
  ...(existsSync(join(NODE22, 'node')) && !process.versions.node.startsWith('22.') ? [{ label: 'node22', bin: NODE22 }] : []),
];

let t: TestApp;
let toss: FakeToss;
let s: TestStore;
let baseUrl: string;
let work: string;
let outer: string;
const env: Record<string, string> = {};
let restoreDns: () => void = () => {};

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as any).port;
      srv.close(() => resolve(port));
    });
  });
}

/** The service's clock follows real time: webhook timestamps and license answers are checked against it. */
const syncClock = () => t.clock.set(Date.now());

/** A test-mode purchase paid with the test card through the hosted payment form; resolves to the order id. */
async function buy(productId: string): Promise<string> {
  syncClock();
  const res = await fetch(`${baseUrl}/v1/checkout/sessions`, {
    method: 'POST',
    headers: { ...post(s.key), 'content-type': 'application/json' },
    body: JSON.stringify({ productId, successUrl: 'http://localhost/thanks' }),
  });
  const session = await res.json();
  assert.equal(res.status, 200, JSON.stringify(session));
  const paid = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
  assert.equal(paid.statusCode, 303, paid.body);
  return new URL(paid.headers.location as string).searchParams.get('order_id')!;
}

before(async () => {
  // Toss keys are checked with Toss when saved: the going-live guide saves the live pair of a Toss stand-in.
  // The 자동결제 MID's pair too (go-live guide, section 10).
  toss = await startFakeToss({ kind: 'live', billingMid: true });
  t = await createTestApp({ clock: new ManualClock(Date.now()), config: { tossApiBaseUrl: toss.baseUrl } });
  baseUrl = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
  t.deps.config.publicBaseUrl = baseUrl;
  s = await createTestStore(t);
  const product = await createProduct(t, s, { name: '전자책: 타입스크립트 실전 가이드', price: 15_000 });
  const licensed = await createProduct(t, s, { name: '데스크톱 앱 라이선스', price: 49_000, license: { mode: 'service', maxActivations: 3, validityDays: null } });
  const orderId = await buy(licensed.id);
  const licenses = (await t.app.inject({ url: `/v1/licenses?orderId=${orderId}`, headers: bearer(s.key) })).json();
  Object.assign(env, {
    PATH: process.env.PATH!,
    HOME: process.env.HOME ?? tmpdir(),
    COMMERCE_URL: baseUrl,
    COMMERCE_API_KEY: s.key,
    COMMERCE_OWNER_TOKEN: s.ownerToken,
    PRODUCT_ID: product.id,
    LICENSE_PRODUCT_ID: licensed.id,
    LICENSE_KEY: licenses.data[0].key,
    ORDER_ID: orderId,
    TOSS_CLIENT_KEY: toss.clientKey,
    TOSS_SECRET_KEY: toss.secretKey,
    TOSS_BILLING_CLIENT_KEY: toss.billing!.clientKey,
    TOSS_BILLING_SECRET_KEY: toss.billing!.secretKey,
  });
  assert.ok(env.LICENSE_KEY);

  // The examples use example.com names, which this machine cannot resolve: answer as public DNS would.
  const original = dnsPromises.lookup;
  (dnsPromises as any).lookup = async (host: string, opts: any) =>
    host.endsWith('example.com') ? (opts?.all ? [{ address: '93.184.216.34', family: 4 }] : { address: '93.184.216.34', family: 4 }) : original(host, opts);
  syncBuiltinESMExports();
  restoreDns = () => {
    (dnsPromises as any).lookup = original;
    syncBuiltinESMExports();
  };

  // Shell blocks that belong to no project (curl) run in an empty folder; projects are made in folders of their own.
  outer = mkdtempSync(join(tmpdir(), 'commerce-guides-'));
  work = join(outer, 'shell');
  mkdirSync(work);
});

after(async () => {
  restoreDns();
  await t?.close();
  await toss?.close();
  if (outer) rmSync(outer, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  out: string;
}

function runProcess(cmd: string, args: string[], extra: Record<string, string> = {}, timeoutMs = 60_000, cwd = work): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/**
 * A guide's project on one Node version: a new, empty folder (made once per guide file and version), where the guide's
 * commands run with that Node first on PATH. npm's own switches come from the environment (a cache-first install, no
 * audit), so the command stays the one the guide prints.
 */
function projectEnv(node: { bin: string }): Record<string, string> {
  return { PATH: `${node.bin}:${env.PATH}`, npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
}
function projectDir(file: string, name: string, node: { label: string }): string {
  const dir = join(outer, node.label, file.replace(/[/.]/g, '_'), name);
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    // "In your Next.js app": the app exists before the guide's first command; a bare package.json stands for it.
    if (name === 'next-app') writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'next-app', private: true }));
  }
  return dir;
}

/** Starts a server command (the guide's `node webhook.mjs`) as its own process and waits until its port accepts connections. */
async function startServer(command: string, cwd: string, extra: Record<string, string>): Promise<{ child: ChildProcess; output: () => string; stop: () => Promise<void> }> {
  const child = spawn('bash', ['-eo', 'pipefail', '-c', `exec ${command}`], { cwd, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const port = Number(extra.RECEIVER_PORT);
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}: ${out}`);
    const up = await fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false);
    if (up) break;
    if (i > 300) throw new Error(`server never listened: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exit = new Promise((r) => child.on('exit', r));
      child.kill('SIGTERM');
      await exit;
    },
  };
}

async function waitFor(what: string, ok: () => boolean, output: () => string): Promise<void> {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(ok(), `${what}; the server printed: ${output()}`);
}

/** The checks a running example server must pass. */
const CHECKS: Record<string, { prepare?: (port: number) => Promise<Record<string, string>>; run: (port: number, output: () => string, ctx: Record<string, string>) => Promise<void> }> = {
  /** The shop of "Accept a payment": buy → 303 to the payment page → pay → back on /thanks, confirmed by reading the order. */
  shop: {
    prepare: async (port) => ({ SHOP_URL: `http://localhost:${port}` }),
    run: async (port, output) => {
      syncClock();
      const buy = await fetch(`http://127.0.0.1:${port}/buy/${env.PRODUCT_ID}`, { method: 'POST', redirect: 'manual' });
      assert.equal(buy.status, 303, output());
      const payUrl = buy.headers.get('location')!;
      assert.ok(payUrl.startsWith(`${baseUrl}/pay/cs_`), payUrl);
      const paid = await submitPayForm(t, { url: payUrl }, { cardNumber: TEST_CARDS.success });
      assert.equal(paid.statusCode, 303, paid.body);
      const back = new URL(paid.headers.location as string);
      assert.equal(`${back.origin}${back.pathname}`, `http://localhost:${port}/thanks`);
      const orderId = back.searchParams.get('order_id');
      const thanks = await fetch(`http://127.0.0.1:${port}${back.pathname}${back.search}`);
      const text = await thanks.text();
      assert.equal(thanks.status, 200, text);
      assert.ok(text.includes('결제가 완료되었습니다') && text.includes(orderId!), text);
      // Typing the address with someone else's (or no) order id never shows success.
      const forged = await fetch(`http://127.0.0.1:${port}/thanks?order_id=ord_00000000000000000000000000`);
      assert.notEqual(forged.status, 200);
      assert.ok(!(await forged.text()).includes('결제가 완료되었습니다'));
    },
  },
  /** A webhook receiver: real signed deliveries (order.paid, webhook.test) are handled; the raw body is what is verified. */
  webhook: {
    prepare: async (port) => {
      allowLoopbackPort(port);
      const res = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/webhook-endpoints',
        headers: bearer(s.ownerToken),
        payload: { mode: 'test', url: `http://127.0.0.1:${port}/webhooks/commerce`, eventTypes: ['order.paid'] },
      });
      assert.equal(res.statusCode, 201, res.body);
      return { WEBHOOK_SECRET: res.json().secret, ENDPOINT_ID: res.json().endpoint.id };
    },
    run: async (port, output, ctx) => {
      const orderId = await buy(env.PRODUCT_ID!);
      syncClock();
      await pump(t);
      await waitFor(`order.paid for ${orderId} handled`, () => new RegExp(`order\\.paid ${orderId} evt_`).test(output()), output);
      syncClock();
      const test = await t.app.inject({ method: 'POST', url: `/admin/v1/webhook-endpoints/${ctx.ENDPOINT_ID}/test`, headers: bearer(s.ownerToken) });
      assert.equal(test.statusCode, 200, test.body);
      await waitFor('webhook.test handled', () => /webhook\.test evt_/.test(output()), output);
      // The endpoint is done with: later payments in this file must not be delivered to a stopped server.
      await t.app.inject({ method: 'DELETE', url: `/admin/v1/webhook-endpoints/${ctx.ENDPOINT_ID}`, headers: bearer(s.ownerToken) });

      // The raw body matters: a correctly signed body that is not compact JSON must verify (a handler that parsed
      // and re-serialized it would refuse it), and the same signature over other bytes must not.
      const wh = new Webhook(ctx.WEBHOOK_SECRET!);
      const id = `evt_docs${randomBytes(8).toString('hex')}`;
      const payload = JSON.stringify({ id, type: 'order.paid', mode: 'test', createdAt: new Date().toISOString(), data: { id: 'ord_raw_body', metadata: { note: '한글 ✓' } } }, null, 2);
      const now = new Date();
      const headers = { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': wh.sign(id, now, payload) };
      const good = await fetch(`http://127.0.0.1:${port}/webhooks/commerce`, { method: 'POST', headers, body: payload });
      assert.ok(good.status >= 200 && good.status < 300, `a signed pretty-printed body is accepted: ${good.status} ${output()}`);
      await waitFor('the pretty-printed delivery handled', () => output().includes(`order.paid ord_raw_body ${id}`), output);
      const tampered = await fetch(`http://127.0.0.1:${port}/webhooks/commerce`, { method: 'POST', headers, body: payload.replace('ord_raw_body', 'ord_raw_bodz') });
      assert.equal(tampered.status, 400, 'a changed body is refused');
      const unsigned = await fetch(`http://127.0.0.1:${port}/webhooks/commerce`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload });
      assert.equal(unsigned.status, 400, 'an unsigned body is refused');
    },
  },
};

/** Serves a Next.js App Router route module (`export async function POST(req: Request)`) the way Next does. */
const NEXT_SERVER = `import { createServer } from 'node:http';
import { POST } from './app/api/webhooks/commerce/route.ts';
createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const url = new URL(req.url, 'http://' + req.headers.host);
  if (req.method !== 'POST' || url.pathname !== '/webhooks/commerce') { res.writeHead(404).end(); return; }
  const request = new Request(url, { method: 'POST', headers: req.headers, body: Buffer.concat(chunks) });
  const response = await POST(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}).listen(Number(process.env.RECEIVER_PORT), '127.0.0.1');
`;

/** Every KEY=value line names a real setting and the whole block passes the service's own validation. */
function checkEnvBlock(b: Block) {
  const source = readFileSync(join(ROOT, 'src/config.ts'), 'utf8');
  const values: Record<string, string> = {};
  for (const line of b.code.split('\n')) {
    if (!line.trim() || line.trim().startsWith('#')) continue;
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    assert.ok(m, `${b.file}: not a KEY=value line: ${line}`);
    const [, name, raw] = m;
    assert.ok(source.includes(`'${name}'`) || source.includes(`env.${name}`), `${b.file}: ${name} is not a setting the service reads`);
    // A placeholder such as <the output of openssl rand -hex 32> stands for what the reader makes.
    values[name!] = /^<.*>$/.test(raw!) ? (name === 'MASTER_KEY' ? randomBytes(32).toString('hex') : assert.fail(`${b.file}: no stand-in for ${name}`)) : raw!;
  }
  const config = loadConfig(values);
  if (values.PUBLIC_BASE_URL) assert.equal(config.publicBaseUrl, values.PUBLIC_BASE_URL);
  if (values.DATABASE_URL) assert.equal(config.databaseUrl, values.DATABASE_URL);
  if (values.RUN_WORKERS) assert.equal(config.runWorkers, values.RUN_WORKERS === 'true');
}

/** The documented shape of order.paid's `licenses`, and, where the served document declares it, the schema's. */
async function checkJsonBlock(b: Block) {
  const sample = JSON.parse(b.code);
  if (b.attrs.check === 'mode-settings-request') {
    // A settings body a guide shows (e.g. choosing PortOne) names only fields the console API declares.
    const admin = (await t.app.inject({ url: '/admin/v1/openapi.json' })).json();
    const props = Object.keys(admin.components.schemas.UpdateModeSettingsRequest.properties);
    for (const k of Object.keys(sample)) assert.ok(props.includes(k), `${b.file}: ${k} is not a field of UpdateModeSettingsRequest`);
    return;
  }
  if (b.attrs.check !== 'order-paid-licenses') return;
  assert.equal(sample.type, 'order.paid');
  for (const l of sample.data.licenses) assert.deepEqual(Object.keys(l), ['id', 'key', 'status', 'expiresAt']);
  assert.match(sample.data.id, /^ord_/);
  assert.match(sample.data.licenses[0].id, /^lic_/);
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  const text = JSON.stringify(doc.webhooks?.['order.paid'] ?? {});
  // Before the Order carries `licenses` the document does not mention it; once it does, every sample field is declared.
  if (text.includes('"licenses"')) for (const k of ['id', 'key', 'status', 'expiresAt']) assert.ok(text.includes(`"${k}"`), k);
}

async function runShPostgres(b: Block, tc: { skip: (m: string) => void }) {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    tc.skip('needs TEST_DATABASE_URL (PostgreSQL)');
    return;
  }
  const name = `commerce_guide_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  const port = await freePort();
  const extra: Record<string, string> = { DATABASE_URL: u.toString(), MASTER_KEY: randomBytes(32).toString('hex'), PORT: String(port), RUN_WORKERS: 'false', LOG_LEVEL: 'warn', ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}) };
  // Run from the repository, as an operator in the installed service's folder would (`npx commerce` is its bin).
  const child = spawn('bash', ['-eo', 'pipefail', '-c', b.code], { cwd: ROOT, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  try {
    let ready = false;
    for (let i = 0; i < 600 && !ready; i++) {
      ready = await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.ok, () => false);
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(ready, `the API instance is ready on the shared database: ${out}`);
    assert.match(out, /applied: 001_platform/, 'migrate ran first');
    const { out: stdout } = await runProcess('ps', ['-o', 'args=', '-g', String(child.pid)]);
    assert.match(stdout ?? '', /commerce(\.js)? worker/, 'a worker process runs');
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {}
    await new Promise((r) => setTimeout(r, 1500));
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

test('every code block of the guides is marked with how it runs; skipping is rare and explained', () => {
  const all = guideFiles().flatMap(blocksOf);
  assert.ok(all.length >= 30, `${all.length} blocks`);
  for (const b of all) {
    const run = b.attrs.run ?? (b.attrs.file ? 'file' : undefined);
    assert.ok(run && (RUNS.has(run) || run === 'file'), `${b.file} block ${b.index} (${b.lang}) has no run= annotation`);
    if (run === 'skip') assert.ok((b.attrs.reason ?? '').length > 10, `${b.file} block ${b.index}: run=skip needs a reason`);
  }
  assert.ok(all.filter((b) => b.attrs.run === 'skip').length <= 2, 'skipped blocks stay rare');
  // The Korean and English guides are the same guides: the same files, with the same blocks in the same order.
  const names = (lang: string) => guideFiles().filter((f) => f.startsWith(`${lang}/`)).map((f) => f.slice(3));
  assert.deepEqual(names('ko'), names('en'));
  for (const f of names('ko')) assert.deepEqual(blocksOf(`ko/${f}`).map((b) => JSON.stringify(b.attrs)), blocksOf(`en/${f}`).map((b) => JSON.stringify(b.attrs)), f);
});

for (const file of guideFiles()) {
  test(`the code of ${file} runs against the service`, async (tc) => {
    const blocks = blocksOf(file);
    for (const b of blocks) {
      const where = `${file} block ${b.index}`;
      const run = b.attrs.run;
      const project = b.attrs.project;
      if (project && b.attrs.file) {
        // Saved as the guide names it; several blocks of one file make it together, in order.
        for (const node of NODES) {
          const path = join(projectDir(file, project, node), b.attrs.file);
          if (existsSync(path)) appendFileSync(path, `\n${b.code}\n`);
          else writeFileSync(path, `${b.code}\n`);
        }
      }
      if (!run || run === 'skip') continue;
      syncClock();
      if (run === 'sh' && project) {
        for (const node of NODES) {
          const r = await runProcess('bash', ['-eo', 'pipefail', '-c', b.code], projectEnv(node), 180_000, projectDir(file, project, node));
          assert.equal(r.code, 0, `${where} (${node.label}) failed:\n${b.code}\n${r.out}`);
          if (b.attrs.expect) assert.match(r.out, new RegExp(b.attrs.expect, 'm'), `${where} (${node.label}): ${r.out}`);
        }
      } else if (run === 'sh') {
        const r = await runProcess('bash', ['-eo', 'pipefail', '-c', b.code]);
        assert.equal(r.code, 0, `${where} failed:\n${b.code}\n${r.out}`);
        if (b.attrs.expect) assert.match(r.out, new RegExp(b.attrs.expect, 'm'), `${where}: ${r.out}`);
      } else if (run === 'server' || run === 'next-route') {
        assert.ok(project, `${where}: a server example belongs to a project (project=NAME) made as the guide says`);
        const code = run === 'next-route' ? b.code : blocks.filter((o) => o.attrs.project === project && o.attrs.file).map((o) => o.code).join('\n\n');
        const check = CHECKS[b.attrs.check ?? ''];
        assert.ok(check, `${where}: unknown check "${b.attrs.check}"`);
        // The example receivers run beside the service: they must not read its PORT, and they bind loopback only.
        assert.doesNotMatch(code, /process\.env\.PORT\b/, `${where}: an example receiver reads the service's own PORT variable`);
        if (run === 'server') assert.match(code, /\.listen\(.*'127\.0\.0\.1'/, `${where}: an example receiver must bind 127.0.0.1`);
        for (const node of NODES) {
          const dir = projectDir(file, project, node);
          const port = await freePort();
          const ctx = { RECEIVER_PORT: String(port), ...(await check.prepare?.(port)) };
          let command = b.code.trim();
          if (run === 'next-route') {
            // The route module where the guide puts it, served by a stand-in for Next (see the file's header).
            mkdirSync(join(dir, 'app/api/webhooks/commerce'), { recursive: true });
            writeFileSync(join(dir, 'app/api/webhooks/commerce/route.ts'), b.code);
            writeFileSync(join(dir, 'next-server.mts'), NEXT_SERVER);
            command = `node --import ${JSON.stringify(pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href)} next-server.mts`;
          }
          const server = await startServer(command, dir, { ...projectEnv(node), ...ctx });
          try {
            await check.run(port, server.output, ctx);
          } catch (e) {
            throw new Error(`${where} (${node.label}): ${(e as Error).message}`, { cause: e });
          } finally {
            await server.stop();
          }
        }
      } else if (run === 'env') {
        checkEnvBlock(b);
      } else if (run === 'json') {
        await checkJsonBlock(b);
      } else if (run === 'sh-postgres') {
        await runShPostgres(b, tc);
      }
    }
  });
}
