import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config';
import { createTestApp } from '../helpers/app';
import { postForm, signIn, signInAs } from './helpers';
import { closedPort, startSmtp } from './smtp-helpers';

test('config: SMTP_URL is validated once; MAIL_FROM is required with it; errors never echo the URL (it holds a password)', () => {
  const base = { DATA_DIR: 'memory://', DATABASE_URL: '', MASTER_KEY: '0'.repeat(64) };
  const ok = loadConfig({ ...base, SMTP_URL: 'smtps://mailer:s3cret@mail.example.com:465', MAIL_FROM: '상점 <no-reply@example.com>' });
  assert.equal(ok.smtpUrl, 'smtps://mailer:s3cret@mail.example.com:465');
  assert.equal(ok.mailFrom, '상점 <no-reply@example.com>');
  assert.equal(loadConfig(base).smtpUrl, null, 'no SMTP by default');
  assert.throws(() => loadConfig({ ...base, SMTP_URL: 'http://user:hunter2@mail.example.com', MAIL_FROM: 'a@example.com' }), (e: Error) => /SMTP_URL must look like smtp:\/\//.test(e.message) && !e.message.includes('hunter2'));
  assert.throws(() => loadConfig({ ...base, SMTP_URL: 'not a url hunter2' }), (e: Error) => /SMTP_URL/.test(e.message) && !e.message.includes('hunter2'));
  assert.throws(() => loadConfig({ ...base, SMTP_URL: 'smtp://u:hunter2@mail.example.com:587' }), (e: Error) => /MAIL_FROM is required/.test(e.message) && !e.message.includes('hunter2'));
  assert.throws(() => loadConfig({ ...base, SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: 'nobody' }), /MAIL_FROM must be an e-mail address/);
});

test('Members page with SMTP: the new member gets the password by mail (not on the page) and it signs in; a failed send shows it as before', async (tc) => {
  const smtp = await startSmtp();
  tc.after(() => smtp.close());
  const t = await createTestApp({ config: { smtpUrl: `smtp://mailer:pw-123@127.0.0.1:${smtp.port}`, mailFrom: '판매자 대시보드 <no-reply@example.com>' } });
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '윤사장' });
  const storeName = (await t.db.selectFrom('stores').select('name').where('id', '=', owner.storeId).executeTakeFirstOrThrow()).name;

  const res = await postForm(t, owner, '/dashboard/settings/members', { name: '서지원', email: 'Support@Example.com', role: 'support' });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(res.body, /서지원님의 첫 비밀번호를 support@example\.com로 보냈습니다/);
  assert.doesNotMatch(res.body, /data-testid="secret"/, 'the password is not shown when it was mailed');
  const mail = await smtp.next();
  assert.deepEqual(mail.to, ['support@example.com']);
  assert.equal(mail.user, 'mailer', 'the credentials of SMTP_URL were used');
  assert.equal(mail.subject, `[${storeName}] 판매자 대시보드 비밀번호`);
  assert.match(mail.text, /서지원님, 안녕하세요/);
  assert.match(mail.text, /로그인: http:\/\/localhost:3000\/dashboard\/login/);
  const password = /비밀번호: (\S+)/.exec(mail.text)![1];
  assert.ok(!res.body.includes(password));
  const session = await signInAs(t, 'support@example.com', password);
  assert.equal((await t.app.inject({ url: '/dashboard', headers: session.headers })).statusCode, 200);

  // The mail server goes away: the member is still added and the password shown once, with a warning.
  const down = await createTestApp({ database: t.deps.database, config: { smtpUrl: `smtp://127.0.0.1:${await closedPort()}`, mailFrom: 'no-reply@example.com' } });
  tc.after(() => down.close());
  const owner2 = await signInAs(down, owner.email, owner.password);
  const failed = await postForm(down, owner2, '/dashboard/settings/members', { name: '이개발', email: 'dev@example.com', role: 'developer' });
  assert.equal(failed.statusCode, 200, failed.body);
  assert.match(failed.body, /비밀번호 메일을 보내지 못했습니다/);
  const shown = /data-testid="secret">[\s\S]*?<code>([^<]+)<\/code>/.exec(failed.body)![1];
  await signInAs(down, 'dev@example.com', shown);
  assert.equal(smtp.mails.length, 1, 'nothing else was sent');
});
