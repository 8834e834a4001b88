import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp } from '../helpers/app';
import { postForm, signIn, signInAs } from './helpers';
import { startFakeToss } from '../payments/fake-toss';

test('Settings: members and roles (owner only), return URLs, write-only Toss secret, settlements; audited with the member', async (tc) => {
  const secret = 'test_sk_zXLkKEypNArWmo50nX3lmeaxYG5R';
  const toss = await startFakeToss({ secretKey: secret });
  const t = await createTestApp({ config: { tossApiBaseUrl: toss.baseUrl } });
  tc.after(async () => {
    await t.close();
    await toss.close();
  });
  const owner = await signIn(t, { name: '윤사장' });
  const s = owner.store;
  const audit = async (action: string) => (await t.app.inject({ url: `/admin/v1/audit-log?action=${action}`, headers: bearer(s.ownerToken) })).json().data;

  await tc.test('the owner adds a member: a generated password is shown once and signs them in; the audit names the owner', async () => {
    const res = await postForm(t, owner, '/dashboard/settings/members', { name: '서지원', email: 'Support@Example.com', role: 'support' });
    assert.equal(res.statusCode, 200, res.body);
    const password = /data-testid="secret">[\s\S]*?<code>([^<]+)<\/code>/.exec(res.body)![1];
    assert.equal(password.length, 20);
    const session = await signInAs(t, 'support@example.com', password);
    const home = await t.app.inject({ url: '/dashboard', headers: session.headers });
    assert.match(home.body, /서지원/);
    const entry = (await audit('member.created')).find((e: any) => e.details.email === 'support@example.com');
    assert.equal(entry.actor.name, '윤사장');
    assert.equal(entry.details.email, 'support@example.com');
    assert.equal(JSON.stringify(entry).includes(password), false, 'the password is not in the log');
    const again = await postForm(t, owner, '/dashboard/settings/members', { name: '중복', email: 'support@example.com', role: 'admin' });
    assert.equal(again.statusCode, 400);
    assert.match(again.body, /이미 등록된 이메일/);
  });

  await tc.test('an admin may open Settings but not Members (403); the role change and disable are the owner\'s', async () => {
    const admin = await signIn(t, { role: 'admin', store: s, name: '관리자' });
    assert.equal((await t.app.inject({ url: '/dashboard/settings', headers: admin.headers })).statusCode, 200);
    const page = await t.app.inject({ url: '/dashboard/settings/members', headers: admin.headers });
    assert.equal(page.statusCode, 403);
    assert.match(page.body, /접근 권한이 없습니다/);
    const res = await postForm(t, admin, `/dashboard/settings/members/${admin.memberId}/role`, { role: 'owner' });
    assert.equal(res.statusCode, 403);
  });

  await tc.test('changing a role and disabling a member: the disabled member is signed out at once; the last owner cannot be demoted', async () => {
    const dev = await signIn(t, { role: 'developer', store: s, name: '개발자김' });
    const role = await postForm(t, owner, `/dashboard/settings/members/${dev.memberId}/role`, { role: 'admin' });
    assert.equal(role.statusCode, 200);
    assert.equal((await t.app.inject({ url: '/dashboard/settings', headers: dev.headers })).statusCode, 200, 'the new role applies at once');
    const off = await postForm(t, owner, `/dashboard/settings/members/${dev.memberId}/disable`);
    assert.equal(off.statusCode, 200);
    assert.equal((await t.app.inject({ url: '/dashboard', headers: dev.headers })).statusCode, 303);
    const last = await postForm(t, owner, `/dashboard/settings/members/${owner.memberId}/role`, { role: 'admin' });
    assert.equal(last.statusCode, 403);
    assert.match(last.body, /활성 소유자/);
    assert.equal((await audit('member.role_changed'))[0].details.to, 'admin');
    assert.equal((await audit('member.disabled'))[0].target.id, dev.memberId);
  });

  await tc.test('return-URL domains are saved for the session mode; a malformed one is refused and nothing changes', async () => {
    const ok = await postForm(t, owner, '/dashboard/settings/return-urls', { returnUrlDomains: 'shop.example.com\nlocalhost:3000' });
    assert.equal(ok.statusCode, 200);
    const store = (await t.app.inject({ url: '/admin/v1/store', headers: bearer(s.ownerToken) })).json();
    assert.deepEqual(store.settings.test.returnUrlDomains, ['shop.example.com', 'localhost:3000']);
    const bad = await postForm(t, owner, '/dashboard/settings/return-urls', { returnUrlDomains: 'https://evil.example.com/path' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /도메인 형식이 올바르지 않습니다/);
    const after = (await t.app.inject({ url: '/admin/v1/store', headers: bearer(s.ownerToken) })).json();
    assert.deepEqual(after.settings.test.returnUrlDomains, ['shop.example.com', 'localhost:3000']);
  });

  await tc.test('the Toss secret key is write-only: saved, never shown, kept when the field is left empty', async () => {
    const res = await postForm(t, owner, '/dashboard/settings/payments', { paymentProvider: 'toss', tossClientKey: toss.clientKey, tossSecretKey: secret });
    assert.equal(res.statusCode, 200);
    assert.ok(!res.body.includes(secret));
    assert.match(res.body, /시크릿 키가 설정되어 있습니다/);
    t.clock.advance(1000); // the audit log is newest first
    await postForm(t, owner, '/dashboard/settings/payments', { paymentProvider: 'toss', tossClientKey: toss.clientKey, tossSecretKey: '' });
    const store = (await t.app.inject({ url: '/admin/v1/store', headers: bearer(s.ownerToken) })).json();
    assert.equal(store.settings.test.tossSecretKeySet, true);
    assert.equal(store.settings.test.paymentProvider, 'toss');
    const [entry] = await audit('settings.payments_updated');
    assert.equal(JSON.stringify(entry).includes(secret), false);
    assert.equal(entry.details.tossSecretKey, 'unchanged');
    await postForm(t, owner, '/dashboard/settings/payments', { paymentProvider: 'simulator' });
  });

  await tc.test('running a settlement with nothing to settle says so (SETTLEMENT_EMPTY), in Korean', async () => {
    const page = await t.app.inject({ url: '/dashboard/settings/settlements', headers: owner.headers });
    assert.equal(page.statusCode, 200);
    const res = await postForm(t, owner, '/dashboard/settings/settlements');
    assert.equal(res.statusCode, 409);
    assert.match(res.body, /정산할 주문이 없습니다/);
  });

  await tc.test('the business details section is reserved in Settings', async () => {
    const page = await t.app.inject({ url: '/dashboard/settings', headers: owner.headers });
    assert.match(page.body, /data-testid="business-details"/);
  });

  await tc.test('payment settings show the mode\'s Toss webhook URL to register at Toss', async () => {
    const page = await t.app.inject({ url: '/dashboard/settings', headers: owner.headers });
    assert.ok(page.body.includes(`value="http://localhost:3000/gateway/toss/webhook/${s.storeId}/test" readonly`), 'the test-mode session shows the test-mode URL');
  });
});
