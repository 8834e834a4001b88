import assert from 'node:assert/strict';
import type { TestApp, TestStore } from '../helpers/app';
import { TEST_CARDS } from '../../src/payments';
import { createProduct, createSession, formPost, payPath, submitPayForm } from '../checkout/factory';

/** Pays one order through the real checkout (payment page and simulator) at the clock's current time; returns its id. */
export async function payWith(
  t: TestApp,
  s: TestStore,
  price: number,
  method: 'card' | 'kakao_pay' | 'naver_pay' | 'toss' | 'transfer' | 'virtual_account',
  fields: Record<string, string> = {},
): Promise<string> {
  const product = await createProduct(t, s, { name: `부가세 테스트 ${price}`, price });
  const session = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/ok' });
  const submitted = await submitPayForm(t, session, { method, ...(method === 'card' ? { cardNumber: TEST_CARDS.success } : {}), ...fields });
  assert.equal(submitted.statusCode, 303, submitted.body);
  if (method === 'card') return new URL(String(submitted.headers.location)).searchParams.get('order_id')!;
  // Easy pays, 계좌이체 and 가상계좌 go through the simulator's approval page in test mode.
  // A 가상계좌 shows its issuance page (account, amount, deadline) instead of sending the buyer on at once.
  const approved = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
  assert.equal(approved.statusCode, method === 'virtual_account' ? 200 : 303, approved.body);
  const orderId = (await t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).order_id!;
  if (method === 'virtual_account') {
    // The buyer's deposit arrives (the console's test deposit): the order is paid now.
    const dep = await t.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderId}/test-deposit`, headers: { authorization: `Bearer ${s.ownerToken}` } });
    assert.ok(dep.statusCode < 300, dep.body);
  }
  // A 현금영수증 asked on the page is issued by its job right after the payment or the deposit (issue 40).
  if (fields.cashReceiptType && fields.cashReceiptType !== 'none') await t.deps.worker.runOnce();
  return orderId;
}

export const ownerGet = (t: TestApp, s: TestStore, url: string) => t.app.inject({ url, headers: { authorization: `Bearer ${s.ownerToken}` } });
