// @slow: runs the operator CLI as its own processes (npm run test:slow)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openPGlite } from '../../src/db';
import { createTestApp } from '../helpers/app';
import { signInAs } from './helpers';
import { closedPort, startSmtp } from './smtp-helpers';
import { seedEmbedded } from '../helpers/embedded-dir';

const run = promisify(execFile);
const BIN = join(process.cwd(), 'bin/commerce.js');

const env = (dataDir: string, smtp: Record<string, string> = {}) => {
  const e: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...smtp };
  delete e.DATABASE_URL;
  delete e.REDIS_URL;
  if (!smtp.SMTP_URL) delete e.SMTP_URL;
  return e;
};

/** Opens the CLI's embedded database in an app (the CLI is not running then) and signs in at /dashboard/login. */
async function signsIn(dir: string, email: string, password: string, replaced?: string): Promise<void> {
  const database = await openPGlite(dir);
  const t = await createTestApp({ database });
  try {
    if (replaced) await assert.rejects(signInAs(t, email, replaced), 'the earlier password was replaced');
    const session = await signInAs(t, email, password);
    assert.equal((await t.app.inject({ url: '/dashboard', headers: session.headers })).statusCode, 200);
  } finally {
    await t.close();
    await database.close();
  }
}

test('CLI (built) with SMTP_URL: member create and reset-password mail the password instead of printing it; a failed send prints it with a warning, exit 0', async (tc) => {
  const smtp = await startSmtp();
  tc.after(() => smtp.close());
  const dir = mkdtempSync(join(tmpdir(), 'commerce-member-mail-'));
  await seedEmbedded(dir);
  tc.after(() => rmSync(dir, { recursive: true, force: true }));
  const mailEnv = env(dir, { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'no-reply@example.com', PUBLIC_BASE_URL: 'https://pay.example.com' });

  const store = await run(process.execPath, [BIN, 'store', 'create', '--name', '메일 상점'], { env: env(dir) });
  const storeId = /store id\s+: (st_\S+)/.exec(store.stdout)![1];
  const created = await run(process.execPath, [BIN, 'member', 'create', '--store', storeId, '--email', 'Owner@Example.com', '--name', '김대표', '--role', 'owner'], { env: mailEnv });
  assert.match(created.stdout, /비밀번호를 owner@example\.com로 보냈습니다 \/ password sent to owner@example\.com/);
  assert.doesNotMatch(created.stdout, /password\s+:/);
  const first = await smtp.next();
  assert.equal(first.subject, '[메일 상점] 판매자 대시보드 비밀번호');
  assert.match(first.text, /계정이 만들어졌습니다/);
  const firstPassword = /비밀번호: (\S+)/.exec(first.text)![1];
  assert.ok(!created.stdout.includes(firstPassword));

  const reset = await run(process.execPath, [BIN, 'member', 'reset-password', '--store', storeId, '--email', 'owner@example.com'], { env: mailEnv });
  assert.match(reset.stdout, /password sent to owner@example\.com/);
  const mail = await smtp.next();
  assert.deepEqual(mail.to, ['owner@example.com']);
  assert.equal(mail.subject, '[메일 상점] 판매자 대시보드 비밀번호');
  assert.match(mail.text, /비밀번호가 재설정되었습니다/);
  assert.match(mail.text, /https:\/\/pay\.example\.com\/dashboard\/login/);
  const password = /비밀번호: (\S+)/.exec(mail.text)![1];
  assert.notEqual(password, firstPassword);
  assert.ok(!reset.stdout.includes(password) && !reset.stderr.includes(password), 'the mailed password is not printed');
  await signsIn(dir, 'owner@example.com', password);

  const printed = await run(process.execPath, [BIN, 'member', 'reset-password', '--store', storeId, '--email', 'owner@example.com', '--print'], { env: mailEnv });
  const printedPassword = /password\s+: (\S+)/.exec(printed.stdout)![1];
  assert.match((await smtp.next()).text, new RegExp(`비밀번호: ${printedPassword}`), '--print prints the mailed password too');

  // The mail server cannot be reached: the reset is stored, the password printed, a warning, exit 0.
  const failedEnv = { ...mailEnv, SMTP_URL: `smtp://user:hunter2@127.0.0.1:${await closedPort()}` };
  const failed = await run(process.execPath, [BIN, 'member', 'reset-password', '--store', storeId, '--email', 'owner@example.com'], { env: failedEnv });
  assert.match(failed.stderr, /warning: 메일을 보내지 못했습니다/);
  assert.ok(!failed.stderr.includes('hunter2') && !failed.stdout.includes('hunter2'), 'the SMTP password is not printed');
  const fallback = /password\s+: (\S+)/.exec(failed.stdout)![1];
  assert.equal(smtp.mails.length, 3);

  await signsIn(dir, 'owner@example.com', fallback, password);
});
