import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, bearer, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/app';
import { sha256Hex } from '../../src/platform/crypto';
import { seedEmbedded } from '../helpers/embedded-dir';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});

const operator = bearer(TEST_ADMIN_TOKEN);
async function newStore(): Promise<{ id: string; ownerToken: string }> {
  const res = await t.app.inject({ method: 'POST', url: '/admin/v1/stores', headers: operator, payload: { name: '토큰 상점' } });
  assert.equal(res.statusCode, 201);
  return { id: res.json().store.id, ownerToken: res.json().ownerToken };
}
const readStore = (token: string) => t.app.inject({ url: '/admin/v1/store', headers: bearer(token) });

describe('owner token rotation and revocation', () => {
  test('owner tokens are stored only as a SHA-256 hash', async () => {
    const s = await newStore();
    const row = await t.db.selectFrom('stores').selectAll().where('id', '=', s.id).executeTakeFirstOrThrow();
    assert.equal(row.owner_token_hash, sha256Hex(s.ownerToken));
    assert.ok(!JSON.stringify(row).includes(s.ownerToken.slice(4)));
  });

  test('the owner rotates their token from the console: the new one is shown once, the old one stops at once', async () => {
    const s = await newStore();
    const res = await t.app.inject({ method: 'POST', url: '/admin/v1/owner-token/rotate', headers: bearer(s.ownerToken) });
    assert.equal(res.statusCode, 200, res.body);
    const { storeId, ownerToken } = res.json();
    assert.equal(storeId, s.id);
    assert.match(ownerToken, /^own_[A-Za-z0-9]{40}$/);
    assert.notEqual(ownerToken, s.ownerToken);
    const old = await readStore(s.ownerToken);
    assert.equal(old.statusCode, 401);
    assert.equal(old.json().code, 'ADMIN_UNAUTHORIZED');
    assert.equal((await readStore(ownerToken)).json().id, s.id);
    // The old token cannot rotate again either, and the console never shows the token afterwards.
    assert.equal((await t.app.inject({ method: 'POST', url: '/admin/v1/owner-token/rotate', headers: bearer(s.ownerToken) })).statusCode, 401);
    assert.ok(!(await readStore(ownerToken)).body.includes(ownerToken));
  });

  test('the operator rotates and revokes a store owner token; only with ADMIN_TOKEN', async () => {
    const s = await newStore();
    for (const action of ['rotate', 'revoke']) {
      const url = `/admin/v1/stores/${s.id}/owner-token/${action}`;
      assert.equal((await t.app.inject({ method: 'POST', url })).statusCode, 401, `${action} without a token`);
      assert.equal((await t.app.inject({ method: 'POST', url, headers: bearer(s.ownerToken) })).statusCode, 401, `${action} with the owner token`);
    }
    const rotated = await t.app.inject({ method: 'POST', url: `/admin/v1/stores/${s.id}/owner-token/rotate`, headers: operator });
    assert.equal(rotated.statusCode, 200);
    const fresh = rotated.json().ownerToken;
    assert.equal((await readStore(s.ownerToken)).statusCode, 401, 'old token stops at once');
    assert.equal((await readStore(fresh)).statusCode, 200);

    const revoked = await t.app.inject({ method: 'POST', url: `/admin/v1/stores/${s.id}/owner-token/revoke`, headers: operator });
    assert.equal(revoked.statusCode, 200);
    assert.deepEqual(revoked.json(), { storeId: s.id, ownerTokenActive: false });
    assert.equal((await readStore(fresh)).statusCode, 401, 'revocation is immediate');
    const again = await t.app.inject({ method: 'POST', url: `/admin/v1/stores/${s.id}/owner-token/rotate`, headers: operator });
    assert.equal((await readStore(again.json().ownerToken)).statusCode, 200, 'the operator can issue a new one after a revocation');

    for (const action of ['rotate', 'revoke']) {
      const unknown = await t.app.inject({ method: 'POST', url: `/admin/v1/stores/st_nope/owner-token/${action}`, headers: operator });
      assert.equal(unknown.statusCode, 404, action);
    }
  });
});

describe('public-contact verification is the operator act', () => {
  test('the owner cannot mark their own contact verified (403 ADMIN_FORBIDDEN); the flag is unchanged', async () => {
    const s = await newStore();
    for (const value of [true, false]) {
      const res = await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: bearer(s.ownerToken), payload: { publicContactVerified: value } });
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().code, 'ADMIN_FORBIDDEN');
    }
    const res = await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: bearer(s.ownerToken), payload: { name: '새 이름', publicContactVerified: true } });
    assert.equal(res.statusCode, 403);
    const view = (await readStore(s.ownerToken)).json();
    assert.equal(view.publicContactVerified, false);
    assert.equal(view.name, '토큰 상점', 'a refused patch changes nothing');
  });

  test('the operator verifies and unverifies with ADMIN_TOKEN', async () => {
    const s = await newStore();
    const url = `/admin/v1/stores/${s.id}/verify`;
    assert.equal((await t.app.inject({ method: 'POST', url, headers: bearer(s.ownerToken), payload: {} })).statusCode, 401, 'not with the owner token');
    const on = await t.app.inject({ method: 'POST', url, headers: operator, payload: {} });
    assert.equal(on.statusCode, 200, on.body);
    assert.equal(on.json().publicContactVerified, true);
    assert.equal((await readStore(s.ownerToken)).json().publicContactVerified, true);
    const off = await t.app.inject({ method: 'POST', url, headers: operator, payload: { verified: false } });
    assert.equal(off.json().publicContactVerified, false);
    assert.equal((await readStore(s.ownerToken)).json().publicContactVerified, false);
    assert.equal((await t.app.inject({ method: 'POST', url: '/admin/v1/stores/st_nope/verify', headers: operator, payload: {} })).statusCode, 404);
  });
});

test('CLI: store token rotate / revoke and store verify', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-owner-cli-'));
  await seedEmbedded(dir);
  const saved = { ...process.env };
  Object.assign(process.env, { DATA_DIR: dir, MASTER_KEY: 'b'.repeat(64), LOG_LEVEL: 'warn' });
  delete process.env.DATABASE_URL;
  delete process.env.REDIS_URL;
  const { main } = await import('../../src/cli');
  const write = process.stdout.write.bind(process.stdout);
  const cli = async (...argv: string[]) => {
    let out = '';
    (process.stdout as any).write = (chunk: any) => ((out += String(chunk)), true);
    try {
      await main(argv);
    } finally {
      (process.stdout as any).write = write;
    }
    return out;
  };
  try {
    const created = await cli('store', 'create', '--name', 'CLI 상점');
    const storeId = /store id\s+: (\S+)/.exec(created)![1];
    const first = /owner token : (own_\S+)/.exec(created)![1];
    const { openDatabase } = await import('../../src/db');
    const hashOf = async () => {
      const d = await openDatabase({ databaseUrl: null, dataDir: dir, poolSize: 1 });
      try {
        return await d.db.selectFrom('stores').select(['owner_token_hash', 'public_contact_verified']).where('id', '=', storeId).executeTakeFirstOrThrow();
      } finally {
        await d.close();
      }
    };
    assert.equal((await hashOf()).owner_token_hash, sha256Hex(first));

    const rotated = await cli('store', 'token', 'rotate', '--store', storeId);
    const second = /owner token : (own_[A-Za-z0-9]{40})/.exec(rotated)?.[1];
    assert.ok(second && second !== first, rotated);
    assert.equal((await hashOf()).owner_token_hash, sha256Hex(second));

    await cli('store', 'token', 'revoke', '--store', storeId);
    assert.equal((await hashOf()).owner_token_hash, null);

    assert.match(await cli('store', 'verify', '--store', storeId), /public contact verified: true/);
    assert.equal((await hashOf()).public_contact_verified, true);
    await cli('store', 'verify', '--store', storeId, '--unverify');
    assert.equal((await hashOf()).public_contact_verified, false);
  } finally {
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
  }
});
