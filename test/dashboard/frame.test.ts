import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, TEST_ADMIN_TOKEN } from '../helpers/app';
import { cookieHeader, csrfFrom, formRequest, postForm, signIn } from './helpers';
import { SIGN_IN_LIMITS } from '../../src/dashboard/sign-in/sign-in';

test('dashboard frame: sign-in, roles, CSRF, throttling, mode, language, sign-out', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());

  await tc.test('signed out, a page redirects to the sign-in form (with next), which is Korean and carries a CSRF field', async () => {
    const res = await t.app.inject({ url: '/dashboard/audit' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/dashboard/login?next=%2Fdashboard%2Faudit');
    const page = await t.app.inject({ url: '/dashboard/login' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<html lang="ko">/);
    assert.match(page.body, /판매자 대시보드 로그인/);
    csrfFrom(page.body);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self';/);
  });

  await tc.test('an owner signs in and sees the frame: store, test-mode banner, mode switch, their name', async () => {
    const s = await signIn(t, { name: '김대표' });
    const cookie = s.cookies.dash_session;
    assert.ok(cookie);
    const res = await t.app.inject({ url: '/dashboard', headers: s.headers });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /김대표/);
    assert.match(res.body, /테스트 모드입니다/);
    assert.match(res.body, /라이브 모드로 전환/);
    assert.match(res.body, /src="\/dashboard\/assets\/htmx.min.js"/);
  });

  await tc.test('the session cookie is HttpOnly, SameSite=Lax, signed, scoped to /dashboard', async () => {
    const store = await createTestStore(t);
    const s = await signIn(t, { store });
    const login = await t.app.inject({ url: '/dashboard/login' });
    const form = { _csrf: csrfFrom(login.body), email: s.email, password: s.password };
    const res = await t.app.inject(formRequest('/dashboard/login', { cookie: cookieHeader(Object.fromEntries(login.cookies.map((c) => [c.name, c.value]))) }, form));
    const set = ([] as string[]).concat(res.headers['set-cookie'] as any).find((c) => c.startsWith('dash_session='))!;
    assert.match(set, /HttpOnly/);
    assert.match(set, /SameSite=Lax/);
    assert.match(set, /Path=\/dashboard/);
    assert.doesNotMatch(set, /Secure/, 'http base URL: no Secure flag');
    // A tampered cookie (signature no longer matches) is no session.
    const tampered = set.split(';')[0].replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const page = await t.app.inject({ url: '/dashboard', headers: { cookie: tampered } });
    assert.equal(page.statusCode, 303);
  });

  await tc.test('a wrong password is refused with a Korean message; the form stays', async () => {
    const s = await signIn(t);
    const login = await t.app.inject({ url: '/dashboard/login' });
    const cookies = Object.fromEntries(login.cookies.map((c) => [c.name, c.value]));
    const res = await t.app.inject(formRequest('/dashboard/login', { cookie: cookieHeader(cookies) }, { _csrf: csrfFrom(login.body), email: s.email, password: 'wrong-password-1' }));
    assert.equal(res.statusCode, 401);
    assert.match(res.body, /이메일 또는 비밀번호가 올바르지 않습니다/);
    assert.equal(res.cookies.find((c) => c.name === 'dash_session'), undefined);
  });

  await tc.test('sign-in is throttled per e-mail after repeated failures, even with the right password then', async () => {
    const s = await signIn(t);
    const login = await t.app.inject({ url: '/dashboard/login' });
    const cookie = cookieHeader(Object.fromEntries(login.cookies.map((c) => [c.name, c.value])));
    const csrf = csrfFrom(login.body);
    const attempt = (password: string) => t.app.inject(formRequest('/dashboard/login', { cookie }, { _csrf: csrf, email: s.email.toUpperCase(), password }));
    for (let i = 0; i < SIGN_IN_LIMITS.perEmail; i++) assert.equal((await attempt(`wrong-${i}-password`)).statusCode, 401);
    const refused = await attempt(s.password);
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.match(refused.body, /로그인 시도가 너무 많습니다/);
    assert.equal(refused.cookies.find((c) => c.name === 'dash_session'), undefined);
  });

  await tc.test('a form posted without the CSRF token is refused with the Korean 403 page and changes nothing', async () => {
    const s = await signIn(t);
    const res = await postForm(t, s, '/dashboard/mode', { mode: 'live' }, { csrf: false });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /요청을 확인할 수 없습니다/);
    const home = await t.app.inject({ url: '/dashboard', headers: s.headers });
    assert.match(home.body, /data-testid="mode">테스트</);
    const forged = await postForm(t, { ...s, csrf: 'forged-token' }, '/dashboard/mode', { mode: 'live' });
    assert.equal(forged.statusCode, 403);
  });

  await tc.test('the mode switch moves the session to live (banner gone); a developer may not switch to live', async () => {
    const s = await signIn(t);
    const res = await postForm(t, s, '/dashboard/mode', { mode: 'live' });
    assert.equal(res.statusCode, 303);
    const home = await t.app.inject({ url: '/dashboard', headers: s.headers });
    assert.match(home.body, /data-testid="mode">라이브</);
    assert.doesNotMatch(home.body, /테스트 모드입니다/);
    const dev = await signIn(t, { role: 'developer', store: s.store });
    const refused = await postForm(t, dev, '/dashboard/mode', { mode: 'live' });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /접근 권한이 없습니다/);
  });

  await tc.test('a support member gets the Korean 403 page on the audit log; the nav does not offer it', async () => {
    const s = await signIn(t, { role: 'support' });
    const res = await t.app.inject({ url: '/dashboard/audit', headers: s.headers });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /접근 권한이 없습니다/);
    assert.match(res.body, /고객 지원/);
    const home = await t.app.inject({ url: '/dashboard', headers: s.headers });
    assert.doesNotMatch(home.body, /href="\/dashboard\/audit"/);
  });

  await tc.test('English is switchable with the lang cookie', async () => {
    const s = await signIn(t);
    const res = await postForm(t, s, '/dashboard/lang', { lang: 'en' });
    const lang = res.cookies.find((c) => c.name === 'lang');
    assert.equal(lang?.value, 'en');
    const home = await t.app.inject({ url: '/dashboard', headers: { cookie: `${s.headers.cookie}; lang=en` } });
    assert.match(home.body, /<html lang="en">/);
    assert.match(home.body, /Switch to live mode/);
  });

  await tc.test('sign-out deletes the session server-side: the old cookie no longer signs in', async () => {
    const s = await signIn(t);
    const out = await postForm(t, s, '/dashboard/logout');
    assert.equal(out.statusCode, 303);
    assert.equal(out.headers.location, '/dashboard/login');
    const res = await t.app.inject({ url: '/dashboard', headers: s.headers });
    assert.equal(res.statusCode, 303);
  });

  await tc.test('a session expires after 12 hours', async () => {
    const s = await signIn(t);
    t.clock.advance(12 * 3600 * 1000 + 1000);
    const res = await t.app.inject({ url: '/dashboard', headers: s.headers });
    assert.equal(res.statusCode, 303);
  });

  await tc.test('htmx is served from the npm package under /dashboard/assets', async () => {
    const res = await t.app.inject({ url: '/dashboard/assets/htmx.min.js' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /javascript/);
    assert.ok(res.body.includes('htmx'));
  });

  await tc.test('the console API still answers JSON (operator token untouched)', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/admin/v1/stores', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, payload: { name: 'x' } });
    assert.equal(res.statusCode, 201);
  });
});
