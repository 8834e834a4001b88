import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { signIn, postForm } from './helpers';
import { createProduct, createSession, formPost, payPath, submitPayForm } from '../checkout/factory';

/**
 * A test-mode 가상계좌 order waiting for its deposit has a button on its dashboard page that makes the deposit arrive
 * (the same service as the console's test-deposit): CSRF-protected, once however often pressed, never in live mode.
 */
test('the order page\'s test-deposit button pays a waiting 가상계좌 order in test mode, and only there', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '김사장' });
  const product = await createProduct(t, owner.store, { name: '전자책', price: 12_000 });
  const session = await createSession(t, owner.store.key, { productId: product.id });
  await submitPayForm(t, session, { method: 'virtual_account' });
  await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id!;
  const status = async () => (await t.db.selectFrom('orders').select('status').where('id', '=', orderId).executeTakeFirstOrThrow()).status;
  assert.equal(await status(), 'awaiting_deposit');
  const path = `/dashboard/orders/${orderId}`;

  const page = await t.app.inject({ url: path, headers: owner.headers });
  assert.match(page.body, new RegExp(`<form method="post" action="${path}/test-deposit" data-testid="test-deposit"`));
  assert.match(page.body, /테스트 입금하기/);

  // Without the CSRF token: refused, nothing paid.
  const forged = await postForm(t, owner, `${path}/test-deposit`, {}, { csrf: false });
  assert.equal(forged.statusCode, 403);
  assert.equal(await status(), 'awaiting_deposit');

  // A live session: no such order in live mode, nothing paid.
  assert.equal((await postForm(t, owner, '/dashboard/mode', { mode: 'live' })).statusCode, 303);
  const live = await postForm(t, owner, `${path}/test-deposit`);
  assert.equal(live.statusCode, 404);
  assert.equal(await status(), 'awaiting_deposit');
  assert.equal((await postForm(t, owner, '/dashboard/mode', { mode: 'test' })).statusCode, 303);

  const deposit = await postForm(t, owner, `${path}/test-deposit`);
  assert.equal(deposit.statusCode, 303);
  assert.match(String(deposit.headers.location), /done=deposited/);
  assert.equal(await status(), 'paid');
  const after = await t.app.inject({ url: String(deposit.headers.location), headers: owner.headers });
  assert.match(after.body, /테스트 입금이 확인되어 결제가 완료되었습니다/);
  assert.doesNotMatch(after.body, /data-testid="test-deposit"/, 'no button once paid');

  // Pressed again (a second tab): nothing more happens.
  const again = await postForm(t, owner, `${path}/test-deposit`);
  assert.match(String(again.headers.location), /done=notWaiting/);
  const paid = await t.db.selectFrom('events').select('type').where('store_id', '=', owner.storeId).where('type', '=', 'order.paid').execute();
  assert.equal(paid.length, 1, 'one order.paid');
  const audit = await t.db.selectFrom('audit_log').select('action').where('store_id', '=', owner.storeId).where('action', '=', 'order.test_deposit').execute();
  assert.equal(audit.length, 1);
});
