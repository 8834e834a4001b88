// @slow: runs the operator CLI as its own processes (npm run test:slow)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openPGlite } from '../../src/db';
import { systemClock } from '../../src/platform/clock';
import { authenticateMember } from '../../src/dashboard/members';
import { seedEmbedded } from '../helpers/embedded-dir';

const run = promisify(execFile);
const BIN = join(process.cwd(), 'bin/commerce.js');

const env = (dataDir: string) => {
  const e: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete e.DATABASE_URL;
  delete e.REDIS_URL;
  return e;
};

function withStdin(args: string[], dataDir: string, input: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: env(dataDir) });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
    child.stdin.end(input);
  });
}

test('CLI (built): member create prints a generated password that signs in; --password-stdin; reset-password replaces it; bad input is one clear line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-member-'));
  await seedEmbedded(dir);
  try {
    const store = await run(process.execPath, [BIN, 'store', 'create', '--name', '멤버 상점'], { env: env(dir) });
    const storeId = /store id\s+: (st_\S+)/.exec(store.stdout)![1];
    const created = await run(process.execPath, [BIN, 'member', 'create', '--store', storeId, '--email', 'Owner@Example.com', '--name', '김대표', '--role', 'owner'], { env: env(dir) });
    const generated = /password\s+: (\S+)/.exec(created.stdout)![1];
    assert.match(created.stdout, /member id : mem_/);
    const piped = await withStdin(['member', 'create', '--store', storeId, '--email', 'dev@example.com', '--name', '이개발', '--role', 'developer', '--password-stdin'], dir, 'piped-password-123\n');
    assert.equal(piped.code, 0, piped.out);
    assert.doesNotMatch(piped.out, /password\s+:/, 'a given password is not echoed');
    const dup = await withStdin(['member', 'create', '--store', storeId, '--email', 'dev@example.com', '--name', 'x', '--role', 'admin'], dir, '');
    assert.notEqual(dup.code, 0);
    assert.match(dup.out, /이미 등록된 이메일/);
    const badRole = await withStdin(['member', 'create', '--store', storeId, '--email', 'a@example.com', '--name', 'x', '--role', 'boss'], dir, '');
    assert.match(badRole.out, /owner, admin, support, developer/);
    const reset = await run(process.execPath, [BIN, 'member', 'reset-password', '--store', storeId, '--email', 'owner@example.com'], { env: env(dir) });
    const fresh = /password\s+: (\S+)/.exec(reset.stdout)![1];
    assert.notEqual(fresh, generated);

    const d = await openPGlite(dir);
    try {
      const deps = { db: d.db, clock: systemClock };
      assert.equal(await authenticateMember(deps, 'owner@example.com', generated), null, 'the old password no longer works');
      assert.equal((await authenticateMember(deps, 'OWNER@example.com', fresh))?.role, 'owner');
      assert.equal((await authenticateMember(deps, 'dev@example.com', 'piped-password-123'))?.name, '이개발');
      const log = await d.db.selectFrom('audit_log').select(['action', 'actor_kind']).where('store_id', '=', storeId).orderBy('created_at').execute();
      assert.deepEqual(log.map((r) => `${r.actor_kind}:${r.action}`).sort(), ['operator:member.created', 'operator:member.created', 'operator:member.password_reset']);
    } finally {
      await d.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
