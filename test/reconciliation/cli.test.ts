import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kstDate } from '../../src/platform/calendar';
import { systemClock } from '../../src/platform/clock';
import { TossProvider } from '../../src/payments/toss';
import { startFakeToss } from '../payments/fake-toss';
import { seedEmbedded } from '../helpers/embedded-dir';

// `commerce reconcile` against an embedded database in a temporary DATA_DIR and the fake Toss API, in real time
// (the CLI's clock is the system's): today's KST day, with one payment at Toss that the store never recorded.
test('CLI: commerce reconcile --store --date runs one reconciliation now and prints its differences', async () => {
  const fake = await startFakeToss({ kind: 'live' });
  const dir = mkdtempSync(join(tmpdir(), 'commerce-reconcile-cli-'));
  await seedEmbedded(dir);
  const saved = { ...process.env };
  Object.assign(process.env, { DATA_DIR: dir, MASTER_KEY: 'c'.repeat(64), LOG_LEVEL: 'warn', TOSS_API_BASE_URL: fake.baseUrl });
  delete process.env.DATABASE_URL;
  delete process.env.REDIS_URL;
  const { main } = await import('../../src/cli');
  const write = process.stdout.write.bind(process.stdout);
  const cli = async (...argv: string[]) => {
    let out = '';
    (process.stdout as any).write = (chunk: any) => ((out += String(chunk)), true);
    try {
      await main(argv);
    } finally {
      (process.stdout as any).write = write;
    }
    return out;
  };
  try {
    const storeId = /store id\s+: (\S+)/.exec(await cli('store', 'create', '--name', '대사 상점'))![1];
    const { openDatabase } = await import('../../src/db');
    const { loadConfig } = await import('../../src/config');
    const { updateModeSettings } = await import('../../src/stores/service');
    const d = await openDatabase({ databaseUrl: null, dataDir: dir, poolSize: 1 });
    try {
      await updateModeSettings({ db: d.db, clock: systemClock, config: loadConfig() }, storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
    } finally {
      await d.close();
    }
    const toss = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl });
    assert.equal((await toss.confirmPayment({ paymentKey: 'tpay_cli_unknown', orderId: 'ord_cli_unknown1', amount: 9_000, idempotencyKey: 'cli-1' })).status, 'succeeded');

    const today = kstDate(new Date());
    const out = await cli('reconcile', '--store', storeId, '--date', today);
    assert.match(out, /^reconciliation : rcn_/m);
    assert.match(out, new RegExp(`^date \\(KST\\)     : ${today}$`, 'm'));
    assert.match(out, /^status         : completed$/m);
    assert.match(out, /^differences    : 1$/m);
    assert.match(out, /unknown_here\s+order ord_cli_unknown1\s+payment tpay_cli_unknown\s+ours -\s+toss 9000/);
    assert.ok(fake.calls.some((c) => c.path === '/v1/transactions'), 'Toss was asked');

    // The store's test mode has no Toss keys: refused with the code.
    await assert.rejects(cli('reconcile', '--store', storeId, '--date', today, '--mode', 'test'), /RECONCILIATION_NOT_AVAILABLE/);
    await assert.rejects(cli('reconcile', '--store', storeId), /--date/);
  } finally {
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
    await fake.close();
  }
});
