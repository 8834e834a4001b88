import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { post } from '../../helpers/app';
import { simulatorFor } from '../../../src/payments';
import { act, buy, DAY, events, file, fileRaw, form, getRequest, product, receipt, setup, type Ctx } from './helpers';

let c: Ctx;
let p: any;

before(async () => {
  c = await setup();
  p = await product(c, { name: '전자책 <b>특별판</b>', price: 12_000 });
});
after(async () => {
  await c.t.close();
});

const page = (url: string) => c.t.app.inject({ url });

test('the receipt link opens a Korean page with the order; a wrong token or id answers the same 404 page', async () => {
  const order = await buy(c, p.id);
  const r = receipt(order);
  const res = await page(`${r.path}?t=${r.token}`);
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /text\/html/);
  assert.match(res.body, /<html lang="ko">/);
  assert.match(res.body, /주문 영수증/);
  assert.match(res.body, /12,000원/);
  assert.match(res.body, new RegExp(order.id));
  assert.match(res.body, /전자책 &lt;b&gt;특별판&lt;\/b&gt;/, 'seller text is escaped');
  assert.match(res.body, /name="viewport"/);
  assert.equal(res.headers['referrer-policy'], 'no-referrer', 'the token never leaves in a Referer');
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
  const wrongToken = await page(`${r.path}?t=${'0'.repeat(32)}`);
  const noToken = await page(r.path);
  const wrongId = await page(`/receipt/ord_00000000000000000000000000?t=${r.token}`);
  for (const x of [wrongToken, noToken, wrongId]) {
    assert.equal(x.statusCode, 404);
    assert.match(x.body, /영수증을 찾을 수 없습니다/);
    assert.doesNotMatch(x.body, /12,000원/);
  }
  assert.equal(wrongToken.body, wrongId.body, 'a wrong token and an unknown order look the same');
  // the token of one order does not open another
  const other = await buy(c, p.id);
  assert.equal((await page(`/receipt/${other.id}?t=${r.token}`)).statusCode, 404);
});

test('filing needs the token too: a form post without it changes nothing', async () => {
  const order = await buy(c, p.id);
  const r = receipt(order);
  const res = await form(c, `${r.path}/refund-request`, { amount: '1000' });
  assert.equal(res.statusCode, 404);
  const res2 = await form(c, `${r.path}/refund-request`, { t: 'f'.repeat(32), amount: '1000' });
  assert.equal(res2.statusCode, 404);
  assert.equal((await c.t.db.selectFrom('refund_requests').select('id').where('order_id', '=', order.id).execute()).length, 0);
});

test('the form defaults to everything refundable; after filing the page shows the request, its statutory deadline and a cancel button', async () => {
  const order = await buy(c, p.id);
  const r = receipt(order);
  const before = await page(`${r.path}?t=${r.token}`);
  assert.match(before.body, /id="amount" name="amount"[^>]*value="12,000"/, 'the refundable amount is shown with separators');
  assert.match(before.body, /청약철회 기간: \d{4}년 \d{1,2}월 \d{1,2}일 오후 11:59까지/);
  const res = await fileRaw(c, order, { amount: '12,000', reason: '<script>alert(1)</script>' });
  assert.equal(res.statusCode, 303);
  const to = String(res.headers.location);
  assert.equal(to, `${r.path}?t=${r.token}&done=filed`);
  const after = await page(to);
  assert.match(after.body, /환불 요청이 접수되었습니다/);
  assert.match(after.body, /id="request-status"[^>]*>접수됨/);
  assert.match(after.body, /자동으로 승인되어 환불됩니다/);
  assert.match(after.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.doesNotMatch(after.body, /<script>alert/);
  assert.match(after.body, /환불 요청 취소/);
  assert.doesNotMatch(after.body, /id="refund-form"/, 'no second request while one is open');
});

test('a held request shows the seller\'s reason; a rejected one moves to the history with its reason and a new request can be filed', async () => {
  const order = await buy(c, p.id);
  c.t.clock.advance(30 * DAY);
  const rr = await file(c, order, { amount: '5000' });
  const r = receipt(order);
  await act(c, rr.id, 'hold', { reason: '사용 기록을 확인하고 있습니다' });
  assert.match((await page(`${r.path}?t=${r.token}`)).body, /판매자가 요청을 보류했습니다: 사용 기록을 확인하고 있습니다/);
  await act(c, rr.id, 'reject', { reason: '다운로드 이력이 있습니다' });
  const body = (await page(`${r.path}?t=${r.token}`)).body;
  assert.match(body, /거절 사유: 다운로드 이력이 있습니다/);
  assert.match(body, /id="refund-form"/);
  assert.doesNotMatch(body, /청약철회 기간:/, 'the window has closed');
});

test('the buyer cancels an open request: canceled, refund_request.updated sent; cancelling again says there is nothing to cancel', async () => {
  const order = await buy(c, p.id);
  const rr = await file(c, order);
  const r = receipt(order);
  const res = await form(c, `${r.path}/refund-request/cancel`, { t: r.token });
  assert.equal(res.statusCode, 303);
  assert.match((await page(String(res.headers.location))).body, /환불 요청을 취소했습니다/);
  const canceled = await getRequest(c, rr.id);
  assert.equal(canceled.status, 'canceled');
  assert.ok(canceled.decidedAt);
  const ev = (await events(c, 'refund_request.updated')).filter((e) => e.id === rr.id);
  assert.deepEqual(ev.map((e) => [e.previousStatus, e.status]), [['requested', 'canceled']]);
  const again = await form(c, `${r.path}/refund-request/cancel`, { t: r.token });
  assert.equal(again.statusCode, 409);
  assert.match(again.body, /취소할 환불 요청이 없습니다/);
  // the seller can no longer act on it
  assert.equal((await act(c, rr.id, 'approve', {})).json().code, 'REFUND_REQUEST_NOT_ACTIONABLE');
});

test('after an approval the page shows the refund and a fully refunded order offers no new request', async () => {
  const order = await buy(c, p.id);
  const rr = await file(c, order);
  const ok = await act(c, rr.id, 'approve', { reason: '환불해 드렸습니다' });
  assert.equal(ok.statusCode, 200, ok.body);
  const r = receipt(order);
  const body = (await page(`${r.path}?t=${r.token}`)).body;
  assert.match(body, /id="order-status">전액 환불/);
  assert.match(body, /id="refunds"/);
  assert.match(body, /환불해 드렸습니다/);
  assert.match(body, /승인됨 · 환불 완료/);
  assert.match(body, /id="blocked">전액 환불된 주문입니다/);
  const refused = await fileRaw(c, order, {});
  assert.equal(refused.statusCode, 409);
});

test('a partially refunded order offers what is left; a direct refund in flight blocks filing', async () => {
  const order = await buy(c, p.id);
  const direct = await c.t.app.inject({ method: 'POST', url: `/v1/orders/${order.id}/refund`, headers: post(c.s.key), payload: { amount: 2_000 } });
  assert.equal(direct.statusCode, 200, direct.body);
  const r = receipt(order);
  const body = (await page(`${r.path}?t=${r.token}`)).body;
  assert.match(body, /id="order-status">부분 환불/);
  assert.match(body, /id="refundable">10,000원/);
  const rr = await file(c, order);
  assert.equal(rr.amount, 10_000);

  const second = await buy(c, p.id);
  simulatorFor(c.t.clock).injectFailure('refund', 'unknown');
  const lost = await c.t.app.inject({ method: 'POST', url: `/v1/orders/${second.id}/refund`, headers: post(c.s.key), payload: { amount: 1_000 } });
  assert.equal(lost.json().code, 'PG_REFUND_AMBIGUOUS');
  const blocked = await fileRaw(c, second, {});
  assert.equal(blocked.statusCode, 409);
  assert.match(blocked.body, /환불이 처리 중입니다/);
});
