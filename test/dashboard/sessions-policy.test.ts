import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestDatabase } from '../helpers/app';
import { postForm, signIn, signInAs } from './helpers';
import { auditOf, enrolTotp, jar, nextStep, passwordStep, totpCode } from './two-factor-helpers';
import { STEP_UP_WINDOW_MS } from '../../src/dashboard/sign-in/step-up';

const UA_PHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

test('sessions on two server processes of one database: listed with device, address and last seen; an ended one is refused at once by both', async (tc) => {
  const database = await createTestDatabase();
  const a = await createTestApp({ database });
  const b = await createTestApp({ database, clock: a.clock });
  tc.after(async () => {
    await a.close();
    await b.close();
    await database.drop();
  });
  const s = await signIn(a);
  // A second device signs in through the other process, from a phone.
  const phone = await jar(b);
  const res = await b.app.inject({ method: 'POST', url: '/dashboard/login', headers: { cookie: phone.headers.cookie, 'content-type': 'application/x-www-form-urlencoded', 'user-agent': UA_PHONE }, payload: new URLSearchParams({ _csrf: phone.csrf, email: s.email, password: s.password }).toString() });
  assert.equal(res.statusCode, 303);
  const phoneCookie = { cookie: `${phone.headers.cookie}; dash_session=${res.cookies.find((c) => c.name === 'dash_session')!.value}` };
  a.clock.advance(5 * 60_000);
  assert.equal((await b.app.inject({ url: '/dashboard', headers: { ...phoneCookie, 'user-agent': UA_PHONE } })).statusCode, 200);

  const list = await a.app.inject({ url: '/dashboard/account/sessions', headers: s.headers });
  assert.equal(list.statusCode, 200);
  const rows = [...list.body.matchAll(/<tr data-session="([^"]+)">([\s\S]*?)<\/tr>/g)];
  assert.equal(rows.length, 2);
  const phoneRow = rows.find((r) => r[2].includes('Safari 17 · iOS'));
  assert.ok(phoneRow, 'the phone is named from its User-Agent');
  assert.match(phoneRow[2], /<code>127\.0\.0\.1<\/code>/);
  assert.match(phoneRow[2], /2026-11-01 09:05/, 'last seen: the request five minutes later (KST)');
  assert.match(list.body, /지금 이 기기/);

  // Ended on process A; the phone's next request, on process B, is sent to sign in.
  const end = await postForm(a, s, `/dashboard/account/sessions/${phoneRow[1]}/end`);
  assert.equal(end.statusCode, 200);
  assert.match(end.body, /세션을 끝냈습니다/);
  const refusedB = await b.app.inject({ url: '/dashboard', headers: phoneCookie });
  assert.equal(refusedB.statusCode, 303);
  assert.match(String(refusedB.headers.location), /^\/dashboard\/login/);
  assert.equal((await a.app.inject({ url: '/dashboard', headers: phoneCookie })).statusCode, 303);
  assert.equal((await b.app.inject({ url: '/dashboard', headers: s.headers })).statusCode, 200, 'the session that ended it goes on, on both');

  // "Sign out every other device", and the owner ending a member's sessions, reach both processes the same way.
  const again = await signInAs(b, s.email, s.password);
  assert.equal((await postForm(a, s, '/dashboard/account/sessions/end-others')).statusCode, 200);
  assert.equal((await b.app.inject({ url: '/dashboard', headers: again.headers })).statusCode, 303);
  const support = await signIn(b, { role: 'support', store: s.store });
  assert.equal((await postForm(a, s, `/dashboard/settings/members/${support.memberId}/end-sessions`)).statusCode, 200);
  assert.equal((await b.app.inject({ url: '/dashboard/orders', headers: support.headers })).statusCode, 303);
  const audit = await auditOf(a, s.storeId);
  assert.ok(audit.some((x) => x.action === 'session.ended'));
  assert.ok(audit.some((x) => x.action === 'member.sessions_ended' && x.target?.id === support.memberId));
});

test('changing the password or removing a factor ends the other sessions', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const s = await signIn(t);
  const other = await signInAs(t, s.email, s.password);
  const pw = await postForm(t, s, '/dashboard/account/password', { current: s.password, password: 'a-brand-new-password', confirm: 'a-brand-new-password' });
  assert.equal(pw.statusCode, 200);
  assert.match(pw.body, /비밀번호를 바꿨습니다/);
  assert.equal((await t.app.inject({ url: '/dashboard', headers: other.headers })).statusCode, 303, 'the other session ended');
  assert.equal((await t.app.inject({ url: '/dashboard', headers: s.headers })).statusCode, 200, 'this one goes on');
  const wrong = await postForm(t, s, '/dashboard/account/password', { current: 'not-the-password', password: 'another-new-password', confirm: 'another-new-password' });
  assert.equal(wrong.statusCode, 422);

  const { secret } = await enrolTotp(t, s);
  const third = await passwordStep(t, s.email, 'a-brand-new-password');
  nextStep(t);
  assert.equal((await third.b.post('/dashboard/login/verify', { code: totpCode(secret, t.clock.now().getTime()) })).statusCode, 303);
  assert.equal((await third.b.get('/dashboard')).statusCode, 200);
  // Removing the app: asked to confirm (stale window), then done; the other device is signed out.
  t.clock.advance(STEP_UP_WINDOW_MS + 1000);
  nextStep(t);
  const removed = await postForm(t, s, '/dashboard/account/totp/remove', { _stepup_code: totpCode(secret, t.clock.now().getTime()) });
  assert.equal(removed.statusCode, 303);
  assert.equal((await third.b.get('/dashboard')).statusCode, 303);
  assert.equal((await t.app.inject({ url: '/dashboard', headers: s.headers })).statusCode, 200);
  assert.ok((await auditOf(t, s.storeId)).some((x) => x.action === 'member.totp_removed'));
});

test('store policy: a member without a factor is led to set one up at sign-in before anything else; an owner resets a member (audited)', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t);
  const admin = await signIn(t, { role: 'admin', store: owner.store });
  const support = await signIn(t, { role: 'support', store: owner.store });
  // The owner, who has an app (the policy covers owners too), turns the policy on for owners and admins.
  await enrolTotp(t, owner);
  const set = await postForm(t, owner, '/dashboard/settings/security', { policy: 'admins', refundStepUpAmount: '' });
  assert.equal(set.statusCode, 200);
  assert.ok((await auditOf(t, owner.storeId)).some((x) => x.action === 'store.security_updated'));

  // An admin signing in now lands on the security page and can open nothing else.
  const { b, res } = await passwordStep(t, admin.email, admin.password);
  assert.equal(res.statusCode, 303);
  const home = await b.get('/dashboard');
  assert.equal(home.statusCode, 303);
  assert.equal(home.headers.location, '/dashboard/account/security');
  const orders = await b.get('/dashboard/orders');
  assert.equal(orders.headers.location, '/dashboard/account/security');
  const sec = await b.get('/dashboard/account/security');
  assert.equal(sec.statusCode, 200);
  assert.match(sec.body, /data-testid="must-enrol"/);
  // Support is not covered by "owners and admins".
  assert.equal((await t.app.inject({ url: '/dashboard/orders', headers: support.headers })).statusCode, 200);
  // The admin's session already open is held to it too (the policy is read on every request).
  assert.equal((await t.app.inject({ url: '/dashboard', headers: admin.headers })).headers.location, '/dashboard/account/security');

  // Setting the app up lets them in.
  const adminSession = { headers: b.headers, csrf: b.csrf };
  const { secret } = await enrolTotp(t, adminSession);
  assert.equal((await b.get('/dashboard')).statusCode, 200);

  // The owner resets the admin (a lost phone; within the owner's step-up window): factors gone, signed out, and sent
  // to set one up again.
  const reset = await postForm(t, owner, `/dashboard/settings/members/${admin.memberId}/reset-2fa`);
  assert.equal(reset.statusCode, 200);
  assert.match(reset.body, /2단계 인증을 초기화했습니다/);
  assert.equal((await b.get('/dashboard')).statusCode, 303);
  const again = await passwordStep(t, admin.email, admin.password);
  assert.equal(again.res.headers.location, '/dashboard', 'no second step: the factors are gone');
  assert.equal((await again.b.get('/dashboard')).headers.location, '/dashboard/account/security');
  const entry = (await auditOf(t, owner.storeId)).find((x) => x.action === 'member.two_factor_reset');
  assert.equal(entry?.target?.id, admin.memberId);
  assert.equal(entry?.actor.id, owner.memberId);
  void secret;

  // "Everyone" covers support too.
  await postForm(t, owner, '/dashboard/settings/security', { policy: 'everyone', refundStepUpAmount: '' });
  assert.equal((await t.app.inject({ url: '/dashboard/orders', headers: support.headers })).headers.location, '/dashboard/account/security');
});
