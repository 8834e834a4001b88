// @slow: runs the operator CLI as its own processes (npm run test:slow)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openPGlite } from '../../src/db';
import { ManualClock } from '../../src/platform/clock';
import { confirmTotp, startTotp, totpCode } from '../../src/dashboard/sign-in/second-factor';
import { factorsOf, insertPasskey } from '../../src/dashboard/sign-in/second-factor-repo';
import { seedEmbedded } from '../helpers/embedded-dir';

const run = promisify(execFile);
const BIN = join(process.cwd(), 'bin/commerce.js');

const env = (dataDir: string) => {
  const e: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete e.DATABASE_URL;
  delete e.REDIS_URL;
  return e;
};

test('CLI (built): member reset-2fa removes an owner\'s app, passkeys and recovery codes, signs them out, and is audited', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-2fa-'));
  await seedEmbedded(dir);
  try {
    const store = await run(process.execPath, [BIN, 'store', 'create', '--name', '복구 상점'], { env: env(dir) });
    const storeId = /store id\s+: (st_\S+)/.exec(store.stdout)![1];
    const created = await run(process.execPath, [BIN, 'member', 'create', '--store', storeId, '--email', 'owner@example.com', '--name', '김대표', '--role', 'owner'], { env: env(dir) });
    const memberId = /member id : (mem_\S+)/.exec(created.stdout)![1];

    // The owner has an authenticator app (with its ten recovery codes), a passkey and a session.
    let d = await openPGlite(dir);
    try {
      const clock = new ManualClock(new Date());
      const config = { masterKey: (await import('../../src/config')).loadConfig(env(dir)).masterKey };
      const deps = { db: d.db, clock, config };
      const en = await startTotp(deps, { id: memberId, email: 'owner@example.com', storeName: '복구 상점' });
      assert.ok(en);
      assert.equal((await confirmTotp(deps, memberId, totpCode(en.secret, clock.now().getTime()))).recoveryCodes?.length, 10);
      await insertPasskey(d.db, { id: 'pk_test', member_id: memberId, store_id: storeId, credential_id: 'cred-1', public_key: 'AA', sign_count: 0, transports: [], name: '노트북', device_type: 'singleDevice', backed_up: false, created_at: clock.now(), last_used_at: null });
      await d.db.insertInto('dashboard_sessions').values({ id: 'dss_test', token_hash: 'x'.repeat(64), member_id: memberId, store_id: storeId, mode: 'test', created_at: clock.now(), expires_at: new Date(clock.now().getTime() + 3_600_000), last_seen_at: clock.now(), ip: null, user_agent: null }).execute();
      assert.deepEqual(await factorsOf(d.db, memberId), { totp: true, passkeys: 1 });
    } finally {
      await d.close();
    }

    const out = await run(process.execPath, [BIN, 'member', 'reset-2fa', '--store', storeId, '--email', 'OWNER@example.com'], { env: env(dir) });
    assert.match(out.stdout, new RegExp(`member id : ${memberId}`));
    assert.match(out.stdout, /authenticator app, 1 passkey/);
    assert.match(out.stdout, /signed out/);

    d = await openPGlite(dir);
    try {
      assert.deepEqual(await factorsOf(d.db, memberId), { totp: false, passkeys: 0 });
      assert.equal((await d.db.selectFrom('member_recovery_codes').select('id').where('member_id', '=', memberId).execute()).length, 0);
      assert.equal((await d.db.selectFrom('dashboard_sessions').select('id').where('member_id', '=', memberId).execute()).length, 0);
      const log = await d.db.selectFrom('audit_log').select(['action', 'actor_kind', 'target_id']).where('store_id', '=', storeId).where('action', '=', 'member.two_factor_reset').execute();
      assert.deepEqual(log, [{ action: 'member.two_factor_reset', actor_kind: 'operator', target_id: memberId }]);
    } finally {
      await d.close();
    }

    const unknown = await run(process.execPath, [BIN, 'member', 'reset-2fa', '--store', storeId, '--email', 'nobody@example.com'], { env: env(dir) }).catch((e) => e);
    assert.notEqual(unknown.code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
