import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { signIn } from './helpers';
import { auditOf, enrolTotp, nextStep, passwordStep, totpCode } from './two-factor-helpers';
import { SIGN_IN_LIMITS } from '../../src/dashboard/sign-in/throttle';

test('two-step sign-in with an authenticator app (TOTP) and recovery codes', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());

  await tc.test('enrolling shows a QR code and the key once; the app is on only after a code from it is typed', async () => {
    const s = await signIn(t);
    const start = await t.app.inject({ method: 'POST', url: '/dashboard/account/totp/start', headers: { ...s.headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: `_csrf=${encodeURIComponent(s.csrf)}` });
    assert.equal(start.statusCode, 303);
    const page = await t.app.inject({ url: '/dashboard/account/security', headers: s.headers });
    assert.match(page.body, /<img class="qr" src="data:image\/svg\+xml;base64,/);
    // Not on yet: a password sign-in still goes straight in.
    const before = await passwordStep(t, s.email, s.password);
    assert.equal(before.res.headers.location, '/dashboard');
    const { recoveryCodes } = await enrolTotp(t, s);
    assert.equal(recoveryCodes.length, 10);
    assert.equal(new Set(recoveryCodes).size, 10);
    const after = await t.app.inject({ url: '/dashboard/account/security', headers: s.headers });
    assert.doesNotMatch(after.body, /data-testid="totp-secret"/, 'the key is not shown again once the app is on');
    assert.match(after.body, /사용하지 않은 코드 10개/);
  });

  await tc.test('sign-in asks for the code after the password; the pending session opens nothing else; a right code signs in under a new cookie', async () => {
    const s = await signIn(t);
    const { secret } = await enrolTotp(t, s);
    nextStep(t);
    const { b, res } = await passwordStep(t, s.email, s.password);
    assert.equal(res.statusCode, 303);
    assert.match(res.headers.location, /^\/dashboard\/login\/verify/);
    const pendingCookie = b.cookies.dash_session;
    // Nothing but the verify page opens with the password alone.
    const home = await b.get('/dashboard/orders');
    assert.equal(home.statusCode, 303);
    assert.match(home.headers.location, /^\/dashboard\/login\/verify/);
    const verify = await b.get('/dashboard/login/verify');
    assert.equal(verify.statusCode, 200);
    assert.match(verify.body, /인증 앱의 6자리 코드/);
    const ok = await b.post('/dashboard/login/verify?next=%2Fdashboard%2Forders', { code: totpCode(secret, t.clock.now().getTime()) });
    assert.equal(ok.statusCode, 303);
    assert.equal(ok.headers.location, '/dashboard/orders');
    assert.notEqual(b.cookies.dash_session, pendingCookie, 'the session is re-issued once complete');
    assert.equal((await b.get('/dashboard/orders')).statusCode, 200);
    const audit = await auditOf(t, s.storeId);
    const signedIn = audit.find((a) => a.action === 'session.signed_in' && a.details.method === 'password+totp');
    assert.ok(signedIn, 'the sign-in is audited with its method');
  });

  await tc.test('a code already used is refused (same step, and a step before it), also one step later while still valid', async () => {
    const s = await signIn(t);
    const { secret } = await enrolTotp(t, s);
    nextStep(t);
    const code = totpCode(secret, t.clock.now().getTime());
    const first = await passwordStep(t, s.email, s.password);
    assert.equal((await first.b.post('/dashboard/login/verify', { code })).statusCode, 303);
    // The same code again, 20 seconds later (still inside the ±1-step window): refused.
    t.clock.advance(20_000);
    const second = await passwordStep(t, s.email, s.password);
    const replay = await second.b.post('/dashboard/login/verify', { code });
    assert.equal(replay.statusCode, 401);
    assert.match(replay.body, /코드가 올바르지 않거나 이미 사용되었습니다/);
    // The previous step's code (accepted by the ±1 window) is older than the one used: refused too.
    const older = totpCode(secret, t.clock.now().getTime() - 30_000);
    assert.equal((await second.b.post('/dashboard/login/verify', { code: older })).statusCode, 401);
    nextStep(t);
    assert.equal((await second.b.post('/dashboard/login/verify', { code: totpCode(secret, t.clock.now().getTime()) })).statusCode, 303);
  });

  await tc.test('wrong codes lock the e-mail out with the password lock, and signing in with the password again does not reset it', async () => {
    const s = await signIn(t);
    await enrolTotp(t, s);
    nextStep(t);
    for (let i = 0; i < SIGN_IN_LIMITS.perEmail; i++) {
      // A fresh password step each time: the right password must not forgive the wrong codes.
      const { b, res } = await passwordStep(t, s.email, s.password);
      assert.equal(res.statusCode, 303, `password step ${i}`);
      assert.equal((await b.post('/dashboard/login/verify', { code: String(100000 + i) })).statusCode, 401);
    }
    const { res } = await passwordStep(t, s.email, s.password);
    assert.equal(res.statusCode, 429, 'the password step is locked too');
    assert.match(res.body, /로그인 시도가 너무 많습니다/);
    const audit = await auditOf(t, s.storeId);
    assert.equal(audit.filter((a) => a.action === 'session.second_factor_failed').length, SIGN_IN_LIMITS.perEmail);
  });

  await tc.test('each recovery code signs in once; a used one is refused', async () => {
    const s = await signIn(t);
    const { recoveryCodes } = await enrolTotp(t, s);
    const first = await passwordStep(t, s.email, s.password);
    const ok = await first.b.post('/dashboard/login/verify', { code: recoveryCodes[0].toUpperCase() });
    assert.equal(ok.statusCode, 303, 'a recovery code (any case) signs in');
    const second = await passwordStep(t, s.email, s.password);
    assert.equal((await second.b.post('/dashboard/login/verify', { code: recoveryCodes[0] })).statusCode, 401, 'used once only');
    assert.equal((await second.b.post('/dashboard/login/verify', { code: recoveryCodes[1].replace('-', '') })).statusCode, 303, 'another code still works');
    const page = await t.app.inject({ url: '/dashboard/account/security', headers: s.headers });
    assert.match(page.body, /사용하지 않은 코드 8개/);
    const audit = await auditOf(t, s.storeId);
    assert.equal(audit.filter((a) => a.action === 'member.recovery_code_used').length, 2);
  });
});
