import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { bearer, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { findTossState } from '../../src/stores/toss-state-repo';
import { tossKeyKind, tossKeyProblems } from '../../src/stores/toss-keys';

// Saving Toss keys (PUT /admin/v1/store/settings/{mode}) checks them with Toss before storing them. The fake's
// merchant holds one live pair; Toss answers 401 UNAUTHORIZED_KEY for any other secret key.

let t: TestApp;
let live: FakeToss;
before(async () => {
  live = await startFakeToss({ kind: 'live' });
  t = await createTestApp({ config: { tossApiBaseUrl: live.baseUrl } });
});
after(async () => {
  await t.close();
  await live.close();
});

const save = (s: TestStore, mode: 'live' | 'test', payload: Record<string, unknown>) =>
  t.app.inject({ method: 'PUT', url: `/admin/v1/store/settings/${mode}`, headers: bearer(s.ownerToken), payload });
const settingsOf = async (s: TestStore, mode: 'live' | 'test') => (await t.app.inject({ url: '/admin/v1/store', headers: bearer(s.ownerToken) })).json().settings[mode];

test('a secret key Toss answers 401 for is refused when saved: 400 naming the problem, nothing stored, not marked verified', async () => {
  const s = await createTestStore(t);
  const before = live.calls.length;
  const res = await save(s, 'live', { paymentProvider: 'toss', tossClientKey: live.clientKey, tossSecretKey: 'live_sk_typo0000000000000000' });
  assert.equal(res.statusCode, 400);
  const body = res.json();
  assert.equal(body.code, 'VALIDATION_FAILED');
  assert.equal(body.details.fields[0].field, 'tossSecretKey');
  assert.match(body.message, /토스페이먼츠가 이 시크릿 키를 거부했습니다 \(UNAUTHORIZED_KEY\)/);
  assert.match(body.message, /저장되지 않았습니다/);
  // Toss was asked exactly once, with that key, and by a read.
  const asked = live.calls.slice(before);
  assert.equal(asked.length, 1);
  assert.equal(asked[0].method, 'GET');
  assert.match(asked[0].path, /^\/v1\/payments\/orders\/[A-Za-z0-9_-]{6,64}$/);
  assert.equal(asked[0].headers.authorization, `Basic ${Buffer.from('live_sk_typo0000000000000000:').toString('base64')}`);
  const after = await settingsOf(s, 'live');
  assert.equal(after.tossSecretKeySet, false);
  assert.equal(after.tossClientKey, null, 'nothing of the refused save was stored');
  assert.equal(after.paymentProvider, null);
  assert.equal((await findTossState(t.db, s.storeId, 'live')).keysVerifiedAt, null);
});

test('a client key and a secret key of different kinds (test_ beside live_) are refused without asking Toss', async () => {
  const s = await createTestStore(t);
  const before = live.calls.length;
  const res = await save(s, 'live', { paymentProvider: 'toss', tossClientKey: 'test_ck_D5GePWvyJnrK0W0k6q8gLzN97Eoq', tossSecretKey: live.secretKey });
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().code, 'VALIDATION_FAILED');
  assert.match(res.json().message, /클라이언트 키와 시크릿 키의 종류가 다릅니다/);
  assert.deepEqual(res.json().details.fields.map((f: { field: string }) => f.field), ['tossClientKey', 'tossSecretKey']);
  assert.equal(live.calls.length, before, 'Toss was not called');
  assert.equal((await settingsOf(s, 'live')).tossSecretKeySet, false);

  // The same when only the client key changes and the stored secret key is of the other kind.
  assert.equal((await save(s, 'live', { paymentProvider: 'toss', tossClientKey: live.clientKey, tossSecretKey: live.secretKey })).statusCode, 200);
  const mixed = await save(s, 'live', { tossClientKey: 'test_ck_D5GePWvyJnrK0W0k6q8gLzN97Eoq' });
  assert.equal(mixed.statusCode, 400);
  assert.deepEqual(mixed.json().details.fields.map((f: { field: string }) => f.field), ['tossClientKey']);
  assert.equal((await settingsOf(s, 'live')).tossClientKey, live.clientKey);
});

test('test keys are refused in live mode and live keys in test mode; a secret key in the client key place is refused', async () => {
  const s = await createTestStore(t);
  const testPair = await startFakeToss({ kind: 'test' });
  try {
    const inLive = await save(s, 'live', { paymentProvider: 'toss', tossClientKey: testPair.clientKey, tossSecretKey: testPair.secretKey });
    assert.equal(inLive.statusCode, 400);
    assert.match(inLive.json().message, /라이브 모드에는 라이브 키/);
    const inTest = await save(s, 'test', { paymentProvider: 'toss', tossClientKey: live.clientKey, tossSecretKey: live.secretKey });
    assert.equal(inTest.statusCode, 400);
    assert.match(inTest.json().message, /테스트 모드에는 테스트 키/);
    const swapped = await save(s, 'live', { paymentProvider: 'toss', tossClientKey: live.secretKey, tossSecretKey: live.clientKey });
    assert.equal(swapped.statusCode, 400);
    assert.match(swapped.json().message, /클라이언트 키가 아닙니다/);
    assert.ok(!swapped.body.includes(live.secretKey), 'the refused key is not echoed back');
    const store = (await t.app.inject({ url: '/admin/v1/store', headers: bearer(s.ownerToken) })).json();
    assert.equal(store.settings.live.tossSecretKeySet, false);
    assert.equal(store.settings.test.tossSecretKeySet, false);
  } finally {
    await testPair.close();
  }
});

test('a valid pair is stored and marks the keys verified at the time Toss accepted them', async () => {
  const s = await createTestStore(t);
  const res = await save(s, 'live', { paymentProvider: 'toss', tossClientKey: ` ${live.clientKey}`, tossSecretKey: `${live.secretKey}\n` });
  assert.equal(res.statusCode, 200, res.body);
  const settings = res.json().settings.live;
  assert.equal(settings.tossSecretKeySet, true);
  assert.equal(settings.tossClientKey, live.clientKey, 'stray whitespace of a paste is dropped');
  assert.equal(settings.checkoutConfigured, true);
  assert.deepEqual((await findTossState(t.db, s.storeId, 'live')).keysVerifiedAt, t.clock.now());

  // A save that brings no secret key asks Toss nothing and keeps the mark.
  const before = live.calls.length;
  t.clock.advance(60_000);
  assert.equal((await save(s, 'live', { returnUrlDomains: ['shop.example.com'] })).statusCode, 200);
  assert.equal(live.calls.length, before);
  assert.deepEqual((await findTossState(t.db, s.storeId, 'live')).keysVerifiedAt, new Date(t.clock.now().getTime() - 60_000));
});

test('when Toss cannot be reached the key is refused with a message saying so, and nothing is stored', async () => {
  const s = await createTestStore(t);
  const port = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as { port: number }).port;
      srv.close(() => resolve(p));
    });
  });
  const saved = t.deps.config.tossApiBaseUrl;
  t.deps.config.tossApiBaseUrl = `http://127.0.0.1:${port}`;
  try {
    const res = await save(s, 'live', { paymentProvider: 'toss', tossClientKey: live.clientKey, tossSecretKey: live.secretKey });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, /토스페이먼츠에 연결하지 못해/);
    assert.equal((await settingsOf(s, 'live')).tossSecretKeySet, false);
    assert.equal((await findTossState(t.db, s.storeId, 'live')).keysVerifiedAt, null);
  } finally {
    t.deps.config.tossApiBaseUrl = saved;
  }
});

test('key kinds: the place and the kind come from the documented prefixes', () => {
  assert.equal(tossKeyKind('live_ck_abc', 'client'), 'live');
  assert.equal(tossKeyKind('test_sk_abc', 'secret'), 'test');
  assert.equal(tossKeyKind('test_gsk_abc', 'secret'), 'test');
  assert.equal(tossKeyKind('live_sk_abc', 'client'), null);
  assert.equal(tossKeyKind('sk_live_abc', 'secret'), null);
  assert.equal(tossKeyKind('live_sk_', 'secret'), null);
  const pair = (clientKey: string | null, secretKey: string | null, changed = { clientKey: true, secretKey: true }) => ({ clientKey, secretKey, changed });
  assert.deepEqual(tossKeyProblems('live', pair('live_ck_a', 'live_sk_b')), []);
  assert.deepEqual(tossKeyProblems('test', pair('test_ck_a', 'test_sk_b')), []);
  assert.deepEqual(tossKeyProblems('live', pair('live_ck_a', 'test_sk_b')).map((p) => p.field), ['tossClientKey', 'tossSecretKey']);
  assert.deepEqual(tossKeyProblems('live', pair('test_ck_a', 'test_sk_b')).length, 2);
  // Clearing the secret key (null) is never a problem; an unchanged stored key is compared, not judged.
  assert.deepEqual(tossKeyProblems('live', pair('live_ck_a', null)), []);
  assert.deepEqual(tossKeyProblems('live', pair('live_ck_a', 'junk', { clientKey: true, secretKey: false })), []);
});
