// @slow: starts the built service as its own process, puts load on it and sends SIGTERM
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/ports';
import http from 'node:http';
import { seedEmbedded } from '../helpers/embedded-dir';

const BIN = join(process.cwd(), 'bin/commerce.js');

function get(port: number, path: string, agent: http.Agent | false, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const DRAIN_DELAY_MS = 3000;

test('SIGTERM under load: /ready turns 503 at once, every request sent before and during the drain delay answers 200, exit 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-drain-'));
  await seedEmbedded(dir);
  const port = await freePort();
  const env: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dir, PORT: String(port), LOG_LEVEL: 'info', LOG_FORMAT: 'json', DRAIN_DELAY_MS: String(DRAIN_DELAY_MS), SHUTDOWN_TIMEOUT_MS: '10000', RATE_LIMIT_PER_MINUTE: '1000000' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, [BIN, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.on('exit', (code) => resolve({ code, at: Date.now() })));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  try {
    for (let i = 0; i < 1200 && !/commerce api listening/.test(out); i++) {
      if (child.exitCode !== null) throw new Error(`exited: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const key = /test API key : (svc_test_\S+)/.exec(out)?.[1];
    assert.ok(key, `demo key printed: ${out.slice(0, 500)}`);
    assert.equal((await get(port, '/ready', false)).status, 200);

    // Sixteen keep-alive clients send requests back to back until told to stop.
    const results: Array<{ status: number | string; sentAt: number }> = [];
    let inFlight = 0;
    let stopAt = Infinity;
    const loader = async () => {
      while (Date.now() < stopAt) {
        const sentAt = Date.now();
        inFlight++;
        try {
          const res = await get(port, '/v1/products?limit=100', agent, { authorization: `Bearer ${key}` });
          results.push({ status: res.status, sentAt });
        } catch (e) {
          results.push({ status: (e as NodeJS.ErrnoException).code ?? String(e), sentAt });
        } finally {
          inFlight--;
        }
      }
    };
    const loaders = Array.from({ length: 16 }, loader);
    await new Promise((r) => setTimeout(r, 1000));
    const inFlightAtSigterm = inFlight;
    const sigtermAt = Date.now();
    child.kill('SIGTERM');
    // New requests are still served until shortly before the listener closes (a proxy stops sending once /ready is 503).
    stopAt = sigtermAt + DRAIN_DELAY_MS - 1000;

    let ready = await get(port, '/ready', false);
    const readyAt = Date.now();
    for (let i = 0; i < 20 && ready.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 25));
      ready = await get(port, '/ready', false);
    }
    assert.equal(ready.status, 503, '/ready answers 503 while draining');
    assert.equal(JSON.parse(ready.body).status, 'draining');
    // The first /ready after SIGTERM already says so (a loaded machine may take a moment to deliver the signal).
    assert.ok(Date.now() - sigtermAt < 1500, `503 soon after SIGTERM (${readyAt - sigtermAt} ms)`);

    await Promise.all(loaders);
    assert.ok(inFlightAtSigterm > 0, 'requests were in flight when SIGTERM arrived');
    const before = results.filter((r) => r.sentAt < sigtermAt);
    const during = results.filter((r) => r.sentAt >= sigtermAt);
    assert.ok(before.length > 20 && during.length > 20, `load before (${before.length}) and during (${during.length}) the drain`);
    const failed = results.filter((r) => r.status !== 200);
    assert.deepEqual(failed.slice(0, 5).map((f) => [f.status, f.sentAt - sigtermAt]), [], `every request answered 200 (${failed.length} of ${results.length} did not)`);

    const { code, at } = await exited;
    assert.equal(code, 0, `exits 0: ${out.slice(-800)}`);
    assert.ok(at - sigtermAt >= DRAIN_DELAY_MS - 100, 'the listener stayed open for the drain delay');
    assert.ok(at - sigtermAt < DRAIN_DELAY_MS + 10_000, 'exits within the drain delay plus the shutdown timeout');
    assert.match(out, /draining: \/ready answers 503/);
  } finally {
    agent.destroy();
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
