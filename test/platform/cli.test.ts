import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
      const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 60_000);
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
