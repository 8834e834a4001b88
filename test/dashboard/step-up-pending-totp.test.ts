import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { postForm, signIn } from './helpers';
import { totpCode } from './two-factor-helpers';
import { insertPasskey } from '../../src/dashboard/sign-in/second-factor-repo';
import { regenerateRecoveryCodes } from '../../src/dashboard/sign-in/second-factor';

/**
 * The sequence the attack run reproduced: a member with a passkey starts setting up an authenticator app and never
 * confirms it. Later, with the session's second factor 20 minutes old (a stolen cookie), the security page must not
 * show the pending key, and confirming it with a code from it must ask for the factor (and change nothing), or
 * whoever holds the cookie gets their own authenticator, new recovery codes and 10 minutes of step-up.
 */
test('a pending authenticator is neither shown to nor confirmed by a session whose second factor is stale', async () => {
  const t = await createTestApp();
  try {
    const member = await signIn(t, { name: '김사장' });
    await insertPasskey(t.db, { id: 'pk_pending', member_id: member.memberId, store_id: member.storeId, credential_id: 'cred-pending', public_key: 'AA', sign_count: 0, transports: [], name: '휴대폰', device_type: 'singleDevice', backed_up: false, created_at: t.clock.now(), last_used_at: null });
    const recovery = await regenerateRecoveryCodes(t.deps, member.memberId);

    // The member starts the setup (confirming with a recovery code) and sees the key.
    const start = await postForm(t, member, '/dashboard/account/totp/start', { _stepup_code: recovery[0] });
    assert.equal(start.statusCode, 303);
    const shown = await t.app.inject({ url: '/dashboard/account/security', headers: member.headers });
    const secret = /data-testid="totp-secret">([^<]+)</.exec(shown.body)?.[1].replace(/\s/g, '');
    assert.ok(secret, 'the key is shown to the session that just confirmed');

    t.clock.advance(20 * 60_000);
    const session = () => t.db.selectFrom('dashboard_sessions').select('second_factor_at').where('member_id', '=', member.memberId).executeTakeFirstOrThrow();
    const factorBefore = await session();
    const codesBefore = await t.db.selectFrom('member_recovery_codes').select(['id', 'used_at']).where('member_id', '=', member.memberId).orderBy('id').execute();

    const page = await t.app.inject({ url: '/dashboard/account/security', headers: member.headers });
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /data-testid="totp-secret"|data-testid="totp-qr"/, 'no pending key for a stale session');
    assert.ok(!page.body.includes(secret) && !page.body.includes(secret.slice(0, 4) + ' ' + secret.slice(4, 8)), 'not in any form');
    assert.match(page.body, /data-testid="totp-pending-hidden"/);

    const confirm = await postForm(t, member, '/dashboard/account/totp/confirm', { code: totpCode(secret, t.clock.now().getTime()) });
    assert.equal(confirm.statusCode, 401, 'confirming asks for the existing factor');
    assert.match(confirm.body, /data-testid="step-up"/);
    const row = await t.db.selectFrom('member_totp').selectAll().where('member_id', '=', member.memberId).executeTakeFirstOrThrow();
    assert.equal(row.confirmed_at, null, 'the app is not turned on');
    assert.deepEqual(await session(), factorBefore, 'the session is not marked fresh');
    const codes = await postForm(t, member, '/dashboard/account/recovery-codes');
    assert.equal(codes.statusCode, 401, 'and no new recovery codes');
    assert.deepEqual(await t.db.selectFrom('member_recovery_codes').select(['id', 'used_at']).where('member_id', '=', member.memberId).orderBy('id').execute(), codesBefore);

    // The member, with a factor in hand, restarts the setup (a new key: the old one may have been seen) and confirms it.
    const restart = await postForm(t, member, '/dashboard/account/totp/start', { _stepup_code: recovery[1] });
    assert.equal(restart.statusCode, 303);
    const fresh = await t.app.inject({ url: '/dashboard/account/security', headers: member.headers });
    const newSecret = /data-testid="totp-secret">([^<]+)</.exec(fresh.body)?.[1].replace(/\s/g, '');
    assert.ok(newSecret && newSecret !== secret, 'a new key');
    const done = await postForm(t, member, '/dashboard/account/totp/confirm', { code: totpCode(newSecret, t.clock.now().getTime()) });
    assert.equal(done.statusCode, 200);
    assert.match(done.body, /인증 앱을 켰습니다/);
  } finally {
    await t.close();
  }
});

test('a stale confirmation of a pending app goes on once the member gives their factor on the step-up page (the code carried)', async () => {
  const t = await createTestApp();
  try {
    const member = await signIn(t);
    await insertPasskey(t.db, { id: 'pk_carry', member_id: member.memberId, store_id: member.storeId, credential_id: 'cred-carry', public_key: 'AA', sign_count: 0, transports: [], name: '휴대폰', device_type: 'singleDevice', backed_up: false, created_at: t.clock.now(), last_used_at: null });
    const recovery = await regenerateRecoveryCodes(t.deps, member.memberId);
    assert.equal((await postForm(t, member, '/dashboard/account/totp/start', { _stepup_code: recovery[0] })).statusCode, 303);
    const secret = /data-testid="totp-secret">([^<]+)</.exec((await t.app.inject({ url: '/dashboard/account/security', headers: member.headers })).body)![1].replace(/\s/g, '');
    // Eleven minutes to find the phone: the window has closed, so the confirmation asks, keeping the typed code.
    t.clock.advance(11 * 60_000);
    const code = totpCode(secret, t.clock.now().getTime());
    const asked = await postForm(t, member, '/dashboard/account/totp/confirm', { code });
    assert.equal(asked.statusCode, 401);
    assert.ok(asked.body.includes(`name="code" value="${code}"`), 'the typed code is carried');
    const done = await postForm(t, member, '/dashboard/account/totp/confirm', { code, _stepup_code: recovery[1] });
    assert.equal(done.statusCode, 200, done.body.slice(0, 300));
    assert.match(done.body, /인증 앱을 켰습니다/);
  } finally {
    await t.close();
  }
});
