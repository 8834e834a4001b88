// @slow: starts the built service as its own process (npm run test:slow)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createServer } from 'node:net';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN = join(process.cwd(), 'bin/commerce.js');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as any).port;
      srv.close(() => resolve(port));
    });
  });
}

const env = (dataDir: string, extra: Record<string, string> = {}) => {
  const e: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extra };
  delete e.DATABASE_URL;
  delete e.REDIS_URL;
  return e;
};

test('first start on an empty embedded database creates the demo store, serves it, and shuts down gracefully', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-cli-'));
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'start'], { env: env(dir, { PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 120_000);
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('API docs:')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr.on('data', (d) => (out += d));
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const key = /test API key : (svc_test_\S+)/.exec(out)?.[1];
    assert.ok(key, 'the banner prints the test API key');
    assert.match(out, /owner token\s+: own_/);
    assert.match(out, /dashboard\s+: http:\/\/localhost:\d+\/dashboard {2}e-mail owner@demo\.example {2}password \S{12,}/, 'the banner prints the dashboard sign-in');
    assert.match(out, /curl -s http:\/\/localhost:\d+\/v1\/products -H "Authorization: Bearer svc_test_/);
    // The banner is printed just before listening; wait for the port.
    let ready: Response | null = null;
    for (let i = 0; i < 100 && !ready; i++) {
      ready = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => null);
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(ready);
    assert.equal(ready.status, 200);
    const authed = await fetch(`http://127.0.0.1:${port}/v1/orders`, { headers: { authorization: `Bearer ${key}` } });
    assert.notEqual(authed.status, 401, 'the printed key works');
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exit, 0, 'graceful shutdown exits 0');
    assert.ok(!out.includes(key!.slice(12)) || out.split(key!).length === 3, 'the key appears only in the banner lines, never in logs');
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the CLI migrates, creates a store and a key', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-cli-'));
  try {
    const m1 = await run(process.execPath, [BIN, 'migrate'], { env: env(dir) });
    assert.match(m1.stdout, /applied: 001_platform/);
    const m2 = await run(process.execPath, [BIN, 'migrate'], { env: env(dir) });
    assert.match(m2.stdout, /up to date/);
    const store = await run(process.execPath, [BIN, 'store', 'create', '--name', 'CLI 상점', '--verified'], { env: env(dir) });
    const storeId = /store id\s+: (st_\S+)/.exec(store.stdout)?.[1];
    assert.ok(storeId);
    assert.match(store.stdout, /owner token : own_/);
    const key = await run(process.execPath, [BIN, 'key', 'create', '--store', storeId!, '--mode', 'live', '--scopes', 'orders:read'], { env: env(dir) });
    assert.match(key.stdout, /api key: svc_live_[0-9A-Za-z]{38}/);
    await assert.rejects(run(process.execPath, [BIN, 'key', 'create', '--store', storeId!, '--mode', 'live', '--scopes', 'orders:write'], { env: env(dir) }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Starts `commerce start` and resolves once `marker` is printed and /ready answers; the caller kills it. */
async function startUntil(dir: string, marker: string, extra: Record<string, string> = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'start'], { env: env(dir, { PORT: String(port), ...extra }), stdio: ['ignore', 'pipe', 'pipe'] });
  const state = { out: '' };
  child.stdout.on('data', (d) => (state.out += d));
  child.stderr.on('data', (d) => (state.out += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${marker}": ${state.out}`)), 120_000);
    const check = () => {
      if (state.out.includes(marker)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${state.out}`)));
  });
  for (let i = 0; i < 100; i++) {
    if (await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.ok, () => false)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exit = new Promise((r) => child.on('exit', r));
    child.kill('SIGTERM');
    await exit;
  };
  return { child, port, state, stop };
}

test('a bare `commerce` and `--help` on every command print the usage and start nothing', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'commerce-cli-')), 'never-created');
  try {
    const bare = await run(process.execPath, [BIN], { env: env(dir), timeout: 20_000 });
    assert.match(bare.stdout, /Usage:/);
    assert.match(bare.stdout, /commerce start/);
    assert.match(bare.stdout, /commerce key create --store ID --mode test\|live/);
    const commands = [['start'], ['worker'], ['migrate'], ['store', 'create'], ['store', 'token', 'rotate'], ['store', 'verify'], ['key', 'create'], ['demo']];
    for (const c of commands) {
      for (const h of ['--help', '-h']) {
        const res = await run(process.execPath, [BIN, ...c, h], { env: env(dir), timeout: 20_000 });
        assert.match(res.stdout, /Usage:/, c.join(' '));
        assert.ok(res.stdout.includes(`commerce ${c[0]}`), `${c.join(' ')} ${h}: ${res.stdout}`);
      }
    }
    const start = await run(process.execPath, [BIN, 'start', '--help'], { env: env(dir), timeout: 20_000 });
    assert.match(start.stdout, /commerce start \[--demo\]/);
    assert.ok(!start.stdout.includes('commerce key create'), 'start --help shows the start command only');
    // Nothing ran: no database directory, no migration, no demo store.
    assert.ok(!existsSync(dir), 'no data directory was created');
    await assert.rejects(run(process.execPath, [BIN, 'bogus'], { env: env(dir), timeout: 20_000 }), (err: any) => err.code === 2 && /unknown command/.test(err.stderr));
  } finally {
    rmSync(dirname(dir), { recursive: true, force: true });
  }
});

test('a restart with the demo store prints its id, a working `commerce key create` line and the demo coupon', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-cli-'));
  try {
    const first = await startUntil(dir, 'API docs:');
    const storeId = /store id\s+: (st_\S+)/.exec(first.state.out)?.[1];
    assert.ok(storeId);
    assert.match(first.state.out, /Demo coupon: WELCOME10/);
    await first.stop();

    const second = await startUntil(dir, 'API docs:');
    await second.stop();
    const out = second.state.out;
    assert.ok(!out.includes('Demo store created'), 'no second demo store');
    assert.ok(out.includes(`store id     : ${storeId}`), out);
    assert.match(out, /Demo coupon: WELCOME10/);
    const line = new RegExp(`npx commerce (key create --store ${storeId} --mode test)`).exec(out);
    assert.ok(line, out);
    // The printed command works as printed (server stopped: the embedded database admits one process).
    const key = await run(process.execPath, [BIN, ...line[1].split(' ')], { env: env(dir) });
    assert.match(key.stdout, /api key: svc_test_[0-9A-Za-z]{38}/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('LOG_FORMAT=pretty logs one readable line per request; without a terminal the default stays JSON', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-cli-'));
  try {
    const pretty = await startUntil(dir, 'commerce api listening', { LOG_LEVEL: 'info', LOG_FORMAT: 'pretty', NO_COLOR: '1' });
    await fetch(`http://127.0.0.1:${pretty.port}/v1/products?probe=1`);
    for (let i = 0; i < 50 && !pretty.state.out.includes('GET /v1/products 401'); i++) await new Promise((r) => setTimeout(r, 100));
    await pretty.stop();
    // The access line names the route, never the raw URL (its query can carry tokens and e-mails: issue 30).
    const lines = pretty.state.out.split('\n').filter((l) => l.includes('GET /v1/products 401'));
    assert.equal(lines.length, 1, pretty.state.out);
    assert.ok(!pretty.state.out.includes('probe=1'), 'no query string in the log');
    assert.match(lines[0]!, /INFO.*GET \/v1\/products 401 [\d.]+ms/, 'the route, never the raw URL with its query');
    assert.ok(!lines[0]!.trimStart().startsWith('{'), 'not JSON');

    const json = await startUntil(dir, 'commerce api listening', { LOG_LEVEL: 'info' });
    await fetch(`http://127.0.0.1:${json.port}/v1/products?probe=2`);
    await json.stop();
    const listening = json.state.out.split('\n').find((l) => l.includes('commerce api listening'));
    assert.equal(JSON.parse(listening!).msg, 'commerce api listening', 'JSON lines when stdout is not a terminal');
    assert.ok(!json.state.out.includes('probe=2'), 'no access log line by default with JSON');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('`npm start` stopped by a signal to npm alone leaves no server behind: the port and the embedded database lock are freed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-npm-start-'));
  const port = await freePort();
  // As an IDE's stop button or a process manager does: the signal goes to npm's pid only, not to its process group.
  const npm = spawn('npm', ['start', '--silent'], { cwd: process.cwd(), env: env(dir, { PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let up = false;
    for (let i = 0; i < 1200 && !up; i++) {
      up = await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.ok, () => false);
      if (!up) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(up, 'the server started under npm');
    assert.ok(existsSync(join(dir, 'pglite.lock')), 'it holds the embedded database');
    const npmGone = new Promise((r) => npm.once('exit', r));
    npm.kill('SIGTERM');
    await npmGone;
    let freed = false;
    for (let i = 0; i < 300 && !freed; i++) {
      freed = !existsSync(join(dir, 'pglite.lock')) && !(await fetch(`http://127.0.0.1:${port}/ready`).then(() => true, () => false));
      if (!freed) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(freed, 'the server process stopped on its own: the lock file is gone and the port refuses connections');
  } finally {
    npm.kill('SIGKILL');
    // A server left behind by a failure is named in the lock file it holds.
    const lock = join(dir, 'pglite.lock');
    if (existsSync(lock)) {
      try {
        process.kill(Number(readFileSync(lock, 'utf8').trim()), 'SIGKILL');
      } catch {}
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
