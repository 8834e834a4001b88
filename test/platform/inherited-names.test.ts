import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, post } from '../helpers/app';
import { createProduct, createSession, formPost, payPath, submitPayForm } from '../checkout/factory';
import { signIn, postForm } from '../dashboard/helpers';
import { insertPaidOrder } from '../refunds/factory';
import { bankName, isTossBankCode } from '../../src/payments/banks';
import { cardSummary, mapTossMethod } from '../../src/payments/toss-model';
import { validateRefundAccount } from '../../src/checkout/virtual-account';
import { flash } from '../../src/dashboard/pages/kit';

// Tables keyed by outside input answer only their own keys. A plain object literal inherits these names from
// Object.prototype; each used to pass as a bank code (`toString` reached the receipt as the function's source and
// Toss's cancel as `"bank":"toString"`).
const INHERITED = ['toString', 'valueOf', '__proto__', 'constructor', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__'];

test('the lookup tables (bank codes, card companies, wallets, flash messages) know only their own keys', () => {
  for (const name of INHERITED) {
    assert.equal(isTossBankCode(name), false, name);
    assert.equal(bankName(name), name, `${name} is shown as typed, never as a function`);
    const v = validateRefundAccount({ bankCode: name, accountNumber: '110123456789', holderName: '김구매' });
    assert.equal(v.ok, false, name);
    assert.deepEqual(!v.ok && v.errors.map((e) => e.field), ['bankCode']);
    assert.equal(mapTossMethod({ method: '카드', easyPay: { provider: name } }), 'card', `wallet ${name}`);
    assert.equal(cardSummary({ card: { issuerCode: name, number: '43301234****123*' } } as any), '43301234****123*', `card company ${name}`);
    assert.equal(flash(name, { refunded: '환불했습니다.' }), '', `?done=${name}`);
  }
  // the real entries still work
  assert.equal(bankName('88'), '신한');
  assert.equal(mapTossMethod({ method: '카드', easyPay: { provider: '카카오페이' } }), 'kakao_pay');
  assert.equal(cardSummary({ card: { issuerCode: '41', number: '4330****' } } as any), '신한 4330****');
});

test('receipt refund-account form: an inherited name as bank code is refused (422 with the field message), nothing is stored and no refund reaches the gateway', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const s = await createTestStore(t);
  const product = await createProduct(t, s, { price: 12_000 });
  const session = await createSession(t, s.key, { productId: product.id });
  await submitPayForm(t, session, { method: 'virtual_account' });
  await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).order_id!;
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  const receipt = new URL(order.receiptUrl);
  const token = receipt.searchParams.get('t')!;
  const deposit = await t.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderId}/test-deposit`, headers: { authorization: `Bearer ${s.ownerToken}` } });
  assert.equal(deposit.json().status, 'paid', deposit.body);

  for (const name of INHERITED) {
    const res = await formPost(t, `${receipt.pathname}/refund-account`, { t: token, bankCode: name, accountNumber: '110-123-456789', holderName: '김구매' });
    assert.equal(res.statusCode, 422, `${name}: ${res.statusCode}`);
    assert.match(res.body, /환불받을 은행을 선택해 주세요/);
    assert.ok(!res.body.includes('[native code]'), name);
  }
  const row = await t.db.selectFrom('order_virtual_accounts').select(['refund_bank_code', 'refund_account_sealed']).where('order_id', '=', orderId).executeTakeFirstOrThrow();
  assert.deepEqual(row, { refund_bank_code: null, refund_account_sealed: null }, 'nothing stored');
  const page = await t.app.inject({ url: `${receipt.pathname}${receipt.search}` });
  assert.ok(!page.body.includes('[native code]'));
  const refund = await t.app.inject({ method: 'POST', url: `/v1/orders/${orderId}/refund`, headers: post(s.key), payload: {} });
  assert.equal(refund.statusCode, 409, refund.body);
  assert.equal(refund.json().code, 'REFUND_ACCOUNT_REQUIRED', 'no account: nothing is sent to the gateway');
  assert.equal((await t.db.selectFrom('order_refunds').select('id').where('order_id', '=', orderId).execute()).length, 0);
});

test('API, payment page and dashboard forms: inherited names in keyed fields get a clear 4xx and change nothing', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '김사장' });
  const s = owner.store;
  const product = await createProduct(t, s, { price: 9_000 });
  const order = await insertPaidOrder(t, owner.storeId, product.id, { amount: 9_000 });

  for (const name of INHERITED) {
    // API: checkout methods, mail kinds.
    const session = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(s.key), payload: { productId: product.id, methods: [name] } });
    assert.equal(session.statusCode, 400, `${name}: ${session.body}`);
    assert.equal(session.json().code, 'VALIDATION_FAILED');
    const mails = await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: { authorization: `Bearer ${s.ownerToken}`, 'content-type': 'application/json' }, payload: `{"buyerMails":{"${name}":false}}` });
    assert.ok(mails.statusCode >= 400 && mails.statusCode < 500, `${name}: mail kinds ${mails.statusCode} ${mails.body}`);

    // Payment page: the method radio.
    const pay = await createSession(t, s.key, { productId: product.id });
    const paid = await submitPayForm(t, pay, { method: name });
    assert.equal(paid.statusCode, 422, `${name}: pay form ${paid.statusCode}`);
    assert.ok(!paid.body.includes('[native code]'));

    // Dashboard: a member's role, and the flash key of a page.
    const before = await t.db.selectFrom('store_members').select('id').where('store_id', '=', owner.storeId).execute();
    const added = await postForm(t, owner, '/dashboard/settings/members', { email: `x-${name.replace(/_/g, '')}@example.com`, name: '새 멤버', role: name });
    assert.ok(added.statusCode >= 400 && added.statusCode < 500, `${name}: member form ${added.statusCode}`);
    assert.match(added.body, /owner, admin, support, developer 중 하나/);
    assert.equal((await t.db.selectFrom('store_members').select('id').where('store_id', '=', owner.storeId).execute()).length, before.length);
    const page = await t.app.inject({ url: `/dashboard/orders/${order}?done=${encodeURIComponent(name)}`, headers: owner.headers });
    assert.equal(page.statusCode, 200);
    assert.ok(!page.body.includes('[native code]'), `?done=${name}`);
    assert.doesNotMatch(page.body, /data-testid="flash"/);
  }
});
