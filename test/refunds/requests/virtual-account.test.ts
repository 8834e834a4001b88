import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { bearer } from '../../helpers/app';
import { createSession, formPost, payPath, submitPayForm } from '../../checkout/factory';
import { act, DAY, events, getOrder, getRequest, product, receipt, setup, type Ctx } from './helpers';

/**
 * A refund request on a deposited 가상계좌 (test mode, simulator). A refund of one can only be paid to an account the
 * buyer names (Toss's refundReceiveAccount), so the receipt's request form asks for it when the request is filed.
 * Before: a statutory request was accepted without one, the receipt promised "자동으로 승인되어 환불됩니다", and then the
 * seller's approval (and the auto-approval) answered 409 REFUND_ACCOUNT_REQUIRED: a promise that could not be kept.
 */

let c: Ctx;
before(async () => {
  c = await setup();
});
after(async () => {
  await c.t.close();
});

/** A 30,000원 가상계좌 order through the pay page, issued and then deposited with the receipt's test button. */
async function depositedOrder(): Promise<any> {
  const p = await product(c, { price: 30_000 });
  const session = await createSession(c.t, c.s.key, { productId: p.id });
  assert.equal((await submitPayForm(c.t, session, { method: 'virtual_account' })).statusCode, 303);
  const issued = await formPost(c.t, `${payPath(session)}/approve`, { decision: 'approve' });
  assert.equal(issued.statusCode, 200, issued.body);
  const orderId = (await c.t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).order_id!;
  const order = await getOrder(c, orderId);
  const r = receipt(order);
  c.t.clock.advance(60_000);
  assert.equal((await formPost(c.t, `${r.path}/test-deposit`, { t: r.token })).statusCode, 303);
  const paid = await getOrder(c, orderId);
  assert.equal(paid.status, 'paid');
  return paid;
}

const fileWith = (order: any, fields: Record<string, string>) => {
  const r = receipt(order);
  return formPost(c.t, `${r.path}/refund-request`, { t: r.token, amount: '', reason: '단순 변심', ...fields });
};

const requestsOf = async (orderId: string) => (await c.t.app.inject({ url: `/v1/refund-requests?orderId=${orderId}`, headers: bearer(c.s.key) })).json().data;

test('a request on a deposited 가상계좌 is refused without a refund account (nothing filed, nothing promised); the form asks for bank, number and holder', async () => {
  const order = await depositedOrder();
  const r = receipt(order);
  const page = await c.t.app.inject({ url: `${r.path}?t=${r.token}` });
  const form = page.body.slice(page.body.indexOf('id="refund-form"'));
  assert.match(form, /name="bankCode"/, 'the request form has the bank');
  assert.match(form, /name="accountNumber"/);
  assert.match(form, /name="holderName"/);
  assert.match(form, /환불받을 본인 계좌/);

  // The old failure: accepted (303) with an auto-approval promised, then approval answered 409 REFUND_ACCOUNT_REQUIRED.
  const none = await fileWith(order, {});
  assert.equal(none.statusCode, 422, 'refused where it is filed');
  assert.match(none.body, /환불받을 은행을 선택해 주세요/);
  assert.doesNotMatch(none.body, /id="auto-approval"/, "no auto-approval promised");
  assert.deepEqual(await requestsOf(order.id), [], 'nothing filed');
  assert.equal((await events(c, 'refund_request.created')).filter((e) => e.orderId === order.id).length, 0);

  const bad = await fileWith(order, { bankCode: '99', accountNumber: '12-34', holderName: ' ', reason: '중복 결제' });
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /환불받을 은행을 선택해 주세요/);
  assert.match(bad.body, /숫자 8~20자리/);
  assert.match(bad.body, /예금주를/);
  assert.match(bad.body, /중복 결제/, 'what the buyer typed is kept');
  assert.deepEqual(await requestsOf(order.id), []);
});

test('filed with a valid account: stored sealed, the request is statutory with its auto-approval, and the seller\'s approval pays to that account', async () => {
  const order = await depositedOrder();
  const res = await fileWith(order, { bankCode: '88', accountNumber: '110-123-456789', holderName: '김구매' });
  assert.equal(res.statusCode, 303, res.body);
  const [rr] = await requestsOf(order.id);
  assert.equal(rr.status, 'requested');
  assert.equal(rr.statutory, true);
  assert.ok(rr.autoApproveAt, 'an auto-approval it can keep');
  const va = await c.t.db.selectFrom('order_virtual_accounts').selectAll().where('order_id', '=', order.id).executeTakeFirstOrThrow();
  assert.equal(va.refund_bank_code, '88');
  assert.equal(va.refund_holder_name, '김구매');
  assert.ok(va.refund_account_sealed && !va.refund_account_sealed.includes('110123456789'), 'sealed');
  const r = receipt(order);
  const page = await c.t.app.inject({ url: `${r.path}?t=${r.token}` });
  assert.match(page.body, /신한 \*\*\*\*6789 \(김구매\)/);
  assert.ok(!page.body.includes('110123456789'), 'never shown back in full');

  const approved = await act(c, rr.id, 'approve', {});
  assert.equal(approved.statusCode, 200, approved.body);
  assert.equal((await getRequest(c, rr.id)).status, 'approved');
  const paid = await getOrder(c, order.id);
  assert.equal(paid.status, 'refunded');
  assert.equal(paid.refunds[0].amount, 30_000);
});

test('an account already on file is enough (the form says so), and the statutory auto-approval then refunds it', async () => {
  const order = await depositedOrder();
  const r = receipt(order);
  assert.equal((await formPost(c.t, `${r.path}/refund-account`, { t: r.token, bankCode: '06', accountNumber: '12345678901', holderName: '김구매' })).statusCode, 303);
  const page = await c.t.app.inject({ url: `${r.path}?t=${r.token}` });
  const form = page.body.slice(page.body.indexOf('id="refund-form"'));
  assert.match(form, /KB국민 \*\*\*\*8901 \(김구매\)/, 'the form names the account the refund goes to');
  const res = await fileWith(order, {});
  assert.equal(res.statusCode, 303, res.body);
  const [rr] = await requestsOf(order.id);
  assert.ok(rr.autoApproveAt);
  c.t.clock.set(new Date(new Date(rr.autoApproveAt).getTime() + DAY));
  await c.t.deps.worker.runOnce();
  await c.t.deps.worker.runOnce();
  const done = await getRequest(c, rr.id);
  assert.equal(done.status, 'approved', JSON.stringify(done));
  assert.equal(done.decidedBy, 'auto');
  assert.equal((await getOrder(c, order.id)).status, 'refunded');
});
