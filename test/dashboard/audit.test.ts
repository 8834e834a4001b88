import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, bearer } from '../helpers/app';
import { signIn } from './helpers';

test('audit log: dashboard and console actions, the console endpoint and the page', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const s = await signIn(t, { name: '박운영' });

  await tc.test('a successful state-changing console call is recorded with actor owner_token; reads and failures are not', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/admin/v1/api-keys', headers: bearer(s.store.ownerToken), payload: { mode: 'test', name: 'ci', scopes: ['orders:read'] } });
    assert.equal(created.statusCode, 201, created.body);
    const keyId = created.json().apiKey?.id ?? created.json().id;
    await t.app.inject({ url: '/admin/v1/api-keys', headers: bearer(s.store.ownerToken) });
    await t.app.inject({ method: 'POST', url: '/admin/v1/api-keys/key_nope/revoke', headers: bearer(s.store.ownerToken) });
    const log = (await t.app.inject({ url: '/admin/v1/audit-log?actor=', headers: bearer(s.store.ownerToken) })).statusCode;
    assert.equal(log, 400, 'an empty actor filter is refused');
    const res = await t.app.inject({ url: '/admin/v1/audit-log', headers: bearer(s.store.ownerToken) });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    const consoleEntries = body.data.filter((e: any) => e.actor.kind === 'owner_token');
    assert.equal(consoleEntries.length, 1, JSON.stringify(consoleEntries));
    assert.equal(consoleEntries[0].action, 'console.POST /admin/v1/api-keys');
    assert.equal(consoleEntries[0].mode, 'test');
    assert.ok(keyId);
    assert.deepEqual(Object.keys(body).sort(), ['data', 'limit', 'page', 'total']);
  });

  await tc.test('sign-in and a mode switch by the member: sign-in is recorded with the member name and address', async () => {
    const res = await t.app.inject({ url: `/admin/v1/audit-log?action=session.signed_in`, headers: bearer(s.store.ownerToken) });
    const entries = res.json().data;
    assert.equal(entries.length, 1);
    assert.equal(entries[0].actor.kind, 'member');
    assert.equal(entries[0].actor.name, '박운영');
    assert.equal(entries[0].actor.id, s.memberId);
    assert.equal(entries[0].ip, '127.0.0.1');
  });

  await tc.test('filters: actor by name or id, time range; another store sees none of it', async () => {
    const byName = await t.app.inject({ url: `/admin/v1/audit-log?actor=${encodeURIComponent('박운영')}`, headers: bearer(s.store.ownerToken) });
    assert.ok(byName.json().total >= 1);
    assert.ok(byName.json().data.every((e: any) => e.actor.name === '박운영'));
    const future = new Date(t.clock.now().getTime() + 60_000).toISOString();
    const none = await t.app.inject({ url: `/admin/v1/audit-log?from=${encodeURIComponent(future)}`, headers: bearer(s.store.ownerToken) });
    assert.equal(none.json().total, 0);
    const other = await signIn(t);
    const theirs = await t.app.inject({ url: '/admin/v1/audit-log?action=session.signed_in', headers: bearer(other.store.ownerToken) });
    assert.equal(theirs.json().data.length, 1);
    assert.equal(theirs.json().data[0].actor.id, other.memberId);
  });

  await tc.test('the dashboard page lists the entries with the member name and the console actor', async () => {
    const page = await t.app.inject({ url: '/dashboard/audit', headers: s.headers });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /박운영/);
    assert.match(page.body, /session\.signed_in/);
    assert.match(page.body, /콘솔 API \(소유자 토큰\)/);
    const filtered = await t.app.inject({ url: '/dashboard/audit?action=console.POST%20%2Fadmin%2Fv1%2Fapi-keys', headers: s.headers });
    assert.doesNotMatch(filtered.body, /session\.signed_in/);
    assert.match(filtered.body, /console\.POST/);
  });

  await tc.test('the endpoint is in the admin OpenAPI document and needs the owner token', async () => {
    const doc = (await t.app.inject({ url: '/admin/v1/openapi.json' })).json();
    assert.ok(doc.paths['/admin/v1/audit-log']?.get);
    const refused = await t.app.inject({ url: '/admin/v1/audit-log' });
    assert.equal(refused.statusCode, 401);
  });
});
