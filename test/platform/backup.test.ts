// @slow: runs the built service as its own processes, takes a backup under write load, restores it and reads it back
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/ports';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { openPGlite } from '../../src/db';
import { TEST_CARDS } from '../../src/payments';

const run = promisify(execFile);
const BIN = join(process.cwd(), 'bin/commerce.js');

function envFor(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    RATE_LIMIT_PER_MINUTE: '1000000',
    ...extra,
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return env;
}

async function start(dataDir: string, extra: Record<string, string> = {}): Promise<{ child: ChildProcess; port: number; out: () => string; stop: () => Promise<number | null> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'start'], { env: envFor(dataDir, { PORT: String(port), ...extra }), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  for (let i = 0; !/commerce api listening/.test(out); i++) {
    if (child.exitCode !== null || i > 1200) throw new Error(`server did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    port,
    out: () => out,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

test('a backup taken while the embedded server takes writes restores to a database that passes the read checks', async () => {
  const root = mkdtempSync(join(tmpdir(), 'commerce-backup-'));
  const dirA = join(root, 'a');
  const dirB = join(root, 'b');
  const file = join(root, 'backup.tgz');
  const servers: ChildProcess[] = [];
  try {
    const a = await start(dirA);
    servers.push(a.child);
    const base = `http://127.0.0.1:${a.port}`;
    const key = /test API key : (svc_test_\S+)/.exec(a.out())![1];
    const ownerToken = /owner token\s+: (own_\S+)/.exec(a.out())![1];
    const api = { authorization: `Bearer ${key}` };
    const owner = { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' };

    // A paid order of the demo's license product: an order to read and a license to verify after the restore.
    const products = (await (await fetch(`${base}/v1/products`, { headers: api })).json()) as { data: Array<{ id: string; name: string }> };
    const licensed = products.data.find((p) => p.name.includes('라이선스'))!;
    assert.ok(licensed, 'the demo catalog has a license product');
    const sessionRes = await fetch(`${base}/v1/checkout/sessions`, {
      method: 'POST',
      headers: { ...api, 'content-type': 'application/json', 'idempotency-key': `backup-${randomBytes(6).toString('hex')}` },
      body: JSON.stringify({ productId: licensed.id, successUrl: 'http://localhost/ok' }),
    });
    assert.equal(sessionRes.status, 200, await sessionRes.clone().text());
    const session = (await sessionRes.json()) as { url: string };
    const form = new URLSearchParams({ buyerName: '김구매', buyerEmail: 'buyer@example.com', buyerPhone: '010-1234-5678', method: 'card', action: 'pay', agreeTerms: 'on', agreePrivacy: 'on', agreeThirdParty: 'on', agreeRecurring: 'on', cardNumber: TEST_CARDS.success });
    const paid = await fetch(`${base}${new URL(session.url).pathname}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString(), redirect: 'manual' });
    assert.equal(paid.status, 303, await paid.text());
    const orderId = new URL(paid.headers.get('location')!).searchParams.get('order_id')!;
    const order = (await (await fetch(`${base}/v1/orders/${orderId}`, { headers: api })).json()) as any;
    assert.equal(order.licenses.length, 1);
    const licenseKey = order.licenses[0].key as string;

    // Write load: four clients creating products back to back, while the backup is taken.
    // `sentAt`: when the request left; `at`: when its answer arrived (the write had committed by then).
    const created: Array<{ id: string; sentAt: number; at: number }> = [];
    let stop = false;
    let n = 0;
    const writer = async () => {
      while (!stop) {
        const sentAt = Date.now();
        const res = await fetch(`${base}/admin/v1/products`, { method: 'POST', headers: owner, body: JSON.stringify({ mode: 'test', type: 'one_time', name: `부하 상품 ${++n}`, pricing: { price: 1000 + n } }) });
        assert.equal(res.status, 201, await res.clone().text());
        const at = Date.now();
        created.push({ id: ((await res.json()) as { id: string }).id, sentAt, at });
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    // Some writes answered before the backup starts (however slow the machine is), more while it runs.
    for (let i = 0; i < 600 && created.length < 8; i++) await new Promise((r) => setTimeout(r, 50));
    const backupStarted = Date.now();
    const backup = await run(process.execPath, [BIN, 'backup', file], { env: envFor(dirA) });
    const backupEnded = Date.now();
    // Keep writing a little after the backup: those writes must not be in it.
    for (let i = 0; i < 200 && created.filter((c) => c.sentAt > backupEnded).length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    stop = true;
    await Promise.all(writers);
    assert.match(backup.stdout, /backup written: .* from the running server/);
    assert.match(backup.stdout, /master key is not in it/);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'the backup file is readable by its owner only');
    const before = created.filter((c) => c.at < backupStarted).map((c) => c.id);
    // Sent after the backup command had exited, so after the copy was taken: never in it.
    const after = created.filter((c) => c.sentAt > backupEnded).map((c) => c.id);
    assert.ok(before.length > 5 && after.length > 0, `writes before (${before.length}) and after (${after.length}) the backup`);
    assert.equal(await a.stop(), 0);
    assert.match(a.out(), /backup served on the control socket/);

    // Restore into a new data directory: refused without the master key, then done with it.
    const noKey = await run(process.execPath, [BIN, 'restore', file], { env: envFor(dirB) }).then(
      () => null,
      (e) => e.stderr as string,
    );
    assert.match(noKey ?? '', /restore needs the master key/, 'no key, no restore');
    assert.equal(existsSync(join(dirB, 'master.key')), false, 'and no new key was generated');
    const masterKey = readFileSync(join(dirA, 'master.key'), 'utf8').trim();
    const restored = await run(process.execPath, [BIN, 'restore', file], { env: envFor(dirB, { MASTER_KEY: masterKey }) });
    assert.match(restored.stdout, /restored .* migrations recorded/);

    const b = await start(dirB, { MASTER_KEY: masterKey });
    servers.push(b.child);
    const baseB = `http://127.0.0.1:${b.port}`;
    assert.match(b.out(), /created at an earlier start/, 'the demo store came back: no second one');
    // Every product whose creation was answered before the backup began is there; the API key still authenticates.
    for (const id of before) {
      const res = await fetch(`${baseB}/admin/v1/products/${id}`, { headers: { authorization: `Bearer ${ownerToken}` } });
      assert.equal(res.status, 200, `product ${id} written before the backup`);
    }
    const list = await fetch(`${baseB}/v1/products`, { headers: api });
    assert.equal(list.status, 200);
    const orderB = (await (await fetch(`${baseB}/v1/orders/${orderId}`, { headers: api })).json()) as any;
    assert.equal(orderB.status, order.status);
    assert.equal(orderB.total, order.total);
    assert.deepEqual(orderB.licenses, order.licenses);
    // The license verifies and the answer is signed: its signing key, sealed with the master key, was read back.
    const verify = await fetch(`${baseB}/v1/licenses/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: licenseKey, productId: licensed.id, nonce: randomBytes(16).toString('hex') }) });
    const verifyBody = await verify.text();
    assert.equal(verify.status, 200, verifyBody);
    assert.ok(verify.headers.get('service-signature'), 'signed with the restored signing key');
    assert.match(verifyBody, /"valid":true|"status":"active"/);
    assert.equal(await b.stop(), 0);

    // Consistent: the restored products are a prefix of what was written (all answered before, none unknown).
    const db = await openPGlite(dirB);
    try {
      const rows = (await db.db.selectFrom('products').select('id').where('name', 'like', '부하 상품 %').execute()).map((r) => r.id);
      const all = new Set(created.map((c) => c.id));
      assert.ok(rows.every((id) => all.has(id)), 'no product the load did not create');
      assert.ok(rows.length >= before.length && rows.length <= created.length - after.length, `${rows.length} between ${before.length} and ${created.length - after.length}`);
    } finally {
      await db.close();
    }
  } finally {
    for (const c of servers) c.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  }
});
