import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app';
import { signIn, cookieHeader, csrfFrom, formRequest, type DashboardSession } from './helpers';
import { SIGN_IN_LIMITS } from '../../src/dashboard/sign-in/throttle';

// Sign-in failures count per member (e-mail, or the member holding the offered passkey) and per client address with a
// higher limit. Counted per address alone, five failed passkey sign-ins of one member locked passkey sign-in for every
// member behind the same address (an office, a NAT); a spray across members from one address is still stopped.

async function addPasskey(t: TestApp, m: DashboardSession, credentialId: string): Promise<void> {
  await t.db.insertInto('member_passkeys').values({ id: `pk_${credentialId}`, member_id: m.memberId, store_id: m.storeId, credential_id: credentialId, public_key: 'AAAA', transports: JSON.stringify(['internal']), name: '노트북', device_type: 'multiDevice', backed_up: true, created_at: t.deps.clock.now(), last_used_at: null } as any).execute();
}

/** A passwordless passkey sign-in whose assertion names `credentialId` but carries no valid signature (a failure). */
async function passkeyAttempt(t: TestApp, credentialId: string, ip: string) {
  const login = await t.app.inject({ url: '/dashboard/login', remoteAddress: ip });
  const headers = { cookie: cookieHeader(Object.fromEntries(login.cookies.map((c) => [c.name, c.value]))), 'x-csrf-token': csrfFrom(login.body), 'content-type': 'application/json' };
  const options = await t.app.inject({ method: 'POST', url: '/dashboard/login/passkey/options', remoteAddress: ip, headers, payload: {} });
  assert.equal(options.statusCode, 200, options.body.slice(0, 200));
  const challengeId = options.json().challengeId ?? '';
  const response = { id: credentialId, rawId: credentialId, type: 'public-key', response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA' }, clientExtensionResults: {} };
  return t.app.inject({ method: 'POST', url: '/dashboard/login/passkey', remoteAddress: ip, headers, payload: { challengeId, response } });
}

async function passwordAttempt(t: TestApp, email: string, password: string, ip: string) {
  const login = await t.app.inject({ url: '/dashboard/login', remoteAddress: ip });
  const cookie = cookieHeader(Object.fromEntries(login.cookies.map((c) => [c.name, c.value])));
  return t.app.inject({ ...formRequest('/dashboard/login', { cookie }, { _csrf: csrfFrom(login.body), email, password }), remoteAddress: ip });
}

test('one member\'s failed passkey sign-ins lock that member only, not the others behind the same address', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const a = await signIn(t, { name: '김대표' });
  const b = await signIn(t, { store: a.store, role: 'support', name: '이지원' });
  await addPasskey(t, a, 'cred-member-a');
  await addPasskey(t, b, 'cred-member-b');
  const office = '203.0.113.7';

  for (let i = 0; i < SIGN_IN_LIMITS.perEmail; i++) assert.equal((await passkeyAttempt(t, 'cred-member-a', office)).statusCode, 401, `failure ${i + 1}`);
  const locked = await passkeyAttempt(t, 'cred-member-a', office);
  assert.equal(locked.statusCode, 429, 'member A is locked after the per-member limit');
  assert.ok(Number(locked.headers['retry-after']) > 0);
  // The same count as A's wrong passwords: A's password sign-in is locked too, even with the right password.
  assert.equal((await passwordAttempt(t, a.email, a.password, office)).statusCode, 429);

  // B, behind the same address, is not locked: a failure is a failure (401), and B's password still signs in.
  assert.equal((await passkeyAttempt(t, 'cred-member-b', office)).statusCode, 401, 'member B is not locked by A\'s failures');
  const bPassword = await passwordAttempt(t, b.email, b.password, office);
  assert.equal(bPassword.statusCode, 303, bPassword.body.slice(0, 200));
});

test('a spray across members (and made-up credentials) from one address stops at the per-address limit, for every member there', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '김대표' });
  await addPasskey(t, owner, 'cred-owner');
  const attacker = '198.51.100.23';
  assert.ok(SIGN_IN_LIMITS.perIp > SIGN_IN_LIMITS.perEmail, 'the address limit is the higher one');
  for (let i = 0; i < SIGN_IN_LIMITS.perIp; i++) {
    // Never the same member twice in a row within its own limit: only the address count can lock.
    const res = i % 2 ? await passkeyAttempt(t, `made-up-credential-${i}`, attacker) : await passwordAttempt(t, `someone${i}@example.com`, 'wrong-password-x', attacker);
    assert.equal(res.statusCode, 401, `attempt ${i + 1}`);
  }
  assert.equal((await passkeyAttempt(t, 'made-up-credential-x', attacker)).statusCode, 429, 'passkey sign-in from the address is locked');
  assert.equal((await passwordAttempt(t, owner.email, owner.password, attacker)).statusCode, 429, 'password sign-in from the address is locked');
  // Another address is not.
  assert.equal((await passwordAttempt(t, owner.email, owner.password, '192.0.2.44')).statusCode, 303);
});
