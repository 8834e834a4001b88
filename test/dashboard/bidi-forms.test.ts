import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { signIn, postForm } from './helpers';
import { insertPaidOrder, refundRows } from '../refunds/factory';
import { createProduct } from '../checkout/factory';

const idemOf = (body: string) => /name="idem" value="([^"]+)"/.exec(body)?.[1] ?? '';

test('dashboard refund form: a reason with a bidi control is refused on the page (field named, Korean), nothing refunded', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '김사장' });
  const p = await createProduct(t, owner.store, { name: '전자책', price: 15_000 });
  const order = await insertPaidOrder(t, owner.storeId, p.id, { amount: 15_000 });
  const page = await t.app.inject({ url: `/dashboard/orders/${order}`, headers: owner.headers });
  const res = await postForm(t, owner, `/dashboard/orders/${order}/refund`, { amount: '1000', reason: '단순 변심\u202Eexe.', idem: idemOf(page.body) });
  assert.equal(res.statusCode, 400, res.body.slice(0, 300));
  assert.match(res.body, /사유에는 글자 방향을 바꾸는 제어 문자/);
  assert.equal((await refundRows(t, order)).length, 0);
  const ok = await postForm(t, owner, `/dashboard/orders/${order}/refund`, { amount: '1000', reason: '단순 변심', idem: idemOf(page.body) });
  assert.equal(ok.statusCode, 303);
  assert.equal((await refundRows(t, order)).length, 1);
});

test('passkey names (registration and rename) follow the one-line name rule: bidi controls, NUL and other control characters refused, nothing stored or audited', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '김사장' });
  const now = t.deps.clock.now();
  await t.db.insertInto('member_passkeys').values({ id: 'pk_test1', member_id: owner.memberId, store_id: owner.storeId, credential_id: 'cred-1', public_key: 'AAAA', transports: JSON.stringify([]), name: '업무용 노트북', device_type: 'singleDevice', backed_up: false, created_at: now, last_used_at: null } as any).execute();
  // The passkey is a factor now: a second factor given just now, so adding another asks no step-up first.
  await t.db.updateTable('dashboard_sessions').set({ second_factor_at: now }).where('member_id', '=', owner.memberId).execute();
  const nameOf = async () => (await t.db.selectFrom('member_passkeys').select('name').where('id', '=', 'pk_test1').executeTakeFirstOrThrow()).name;
  const audits = async () => (await t.db.selectFrom('audit_log').select('action').where('store_id', '=', owner.storeId).where('action', 'in', ['member.passkey_renamed', 'member.passkey_added']).execute()).length;
  const bad = ['노트북\u202Eexe.', '\u2067노트북', '노트북\u200F', '노트\u0000북', '노트북\n관리자', '탭\t이름', '\u007F노트북', '노트북\r'];
  // NUL and the C0 controls other than tab and line breaks never reach the page: every dashboard form refuses them
  // first (400, platform/http/validation.ts). Tab, CR, LF and the bidi controls are the passkey rule's to refuse.
  for (const name of bad) {
    const renamed = await postForm(t, owner, '/dashboard/account/passkeys/pk_test1/rename', { name });
    assert.equal(renamed.statusCode, 400, `${JSON.stringify(name)}: ${renamed.statusCode}`);
    const ours = /[\t\n\r\u202E\u2067\u200F]/.test(name);
    if (ours) assert.match(renamed.body, /패스키 이름에는 줄바꿈·탭 같은 제어 문자나 글자 방향을 바꾸는 문자/, JSON.stringify(name));
    // Registration (the page's script posts JSON): refused for the name before any ceremony is spent.
    const added = await t.app.inject({ method: 'POST', url: '/dashboard/account/passkeys', headers: { ...owner.headers, 'x-csrf-token': owner.csrf, 'content-type': 'application/json' }, payload: { challengeId: 'ch_none', response: {}, name } });
    assert.ok(added.statusCode === 422 || added.statusCode === 400, `${JSON.stringify(name)}: ${added.body}`);
    if (ours) assert.match(added.json().error, /패스키 이름에는/, JSON.stringify(name));
  }
  assert.equal(await nameOf(), '업무용 노트북', 'nothing renamed');
  assert.equal(await audits(), 0, 'nothing audited');
  const ok = await postForm(t, owner, '/dashboard/account/passkeys/pk_test1/rename', { name: '  집 데스크톱 ' });
  assert.equal(ok.statusCode, 200, ok.body.slice(0, 300));
  assert.equal(await nameOf(), '집 데스크톱');
  assert.equal(await audits(), 1);
});
