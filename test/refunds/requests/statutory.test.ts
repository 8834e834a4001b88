import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { act, buy, DAY, events, file, getOrder, getRequest, product, setup, type Ctx } from './helpers';

let c: Ctx;
let p7: any;
let p14: any;

before(async () => {
  c = await setup();
  p7 = await product(c, { name: '전자책', price: 10_000 });
  p14 = await product(c, { name: '강의', price: 20_000, refundPolicy: { refundDays: 14 } });
});
after(async () => {
  await c.t.close();
});

const HOUR = 60 * 60 * 1000;

test('a statutory request cannot be held or rejected, nor approved for less than asked: REFUND_STATUTORY_LOCKED', async () => {
  c.t.clock.set('2026-11-02T01:00:00.000Z'); // Monday 10:00 KST
  const order = await buy(c, p7.id);
  const rr = await file(c, order, { reason: '단순 변심' });
  assert.equal(rr.statutory, true);
  for (const action of ['hold', 'reject'] as const) {
    const res = await act(c, rr.id, action, { reason: '검토 중' });
    assert.equal(res.statusCode, 409, action);
    assert.equal(res.json().code, 'REFUND_STATUTORY_LOCKED');
    assert.match(res.json().message, /법정 청약철회/);
  }
  // the reason check comes first
  assert.equal((await act(c, rr.id, 'hold', {})).json().code, 'REFUND_REASON_REQUIRED');
  const less = await act(c, rr.id, 'approve', { amount: 5_000, confirmAmount: true });
  assert.equal(less.statusCode, 409);
  assert.equal(less.json().code, 'REFUND_STATUTORY_LOCKED');
  assert.equal((await getRequest(c, rr.id)).status, 'requested');
  // approving what was asked is the seller's to do at any time
  const ok = await act(c, rr.id, 'approve', {});
  assert.equal(ok.statusCode, 200, ok.body);
});

test('the window is max(7 days, refundDays): day 10 is statutory for a 14-day product, not for a 7-day one (which can then be held)', async () => {
  c.t.clock.set('2026-11-02T01:00:00.000Z');
  const a = await buy(c, p7.id);
  const b = await buy(c, p14.id);
  c.t.clock.advance(10 * DAY);
  const ra = await file(c, a);
  const rb = await file(c, b);
  assert.equal(ra.statutory, false);
  assert.equal(ra.autoApproveAt, null, 'only statutory requests are approved automatically');
  assert.equal(rb.statutory, true);
  assert.equal((await act(c, ra.id, 'hold', { reason: '사용 여부 확인 중' })).statusCode, 200);
  assert.equal((await act(c, rb.id, 'hold', { reason: '사용 여부 확인 중' })).json().code, 'REFUND_STATUTORY_LOCKED');
});

test('the last day of the window rolls over a weekend: paid Tuesday 11-03, day 7 is Tuesday 11-10 → statutory until 24:00 KST, not after', async () => {
  c.t.clock.set('2026-11-03T03:00:00.000Z');
  const a = await buy(c, p7.id);
  const b = await buy(c, p7.id);
  c.t.clock.set('2026-11-10T14:59:00.000Z'); // 23:59 KST on the last day
  assert.equal((await file(c, a)).statutory, true);
  c.t.clock.set('2026-11-10T15:00:00.000Z'); // 00:00 KST the day after
  assert.equal((await file(c, b)).statutory, false);
});

test('an undecided statutory request is approved inside the 3rd Korean business day (12:00 KST), skipping a weekend', async () => {
  c.t.clock.set('2026-11-06T01:00:00.000Z'); // Friday 10:00 KST
  const order = await buy(c, p7.id);
  const rr = await file(c, order, { reason: '단순 변심' });
  // business days: Mon 11-09, Tue 11-10, Wed 11-11 → approved at 12:00 KST on Wednesday (03:00Z), so the refund is made
  // within the third business day (제18조), not after it
  assert.equal(rr.autoApproveAt, '2026-11-11T03:00:00.000Z');
  c.t.clock.set('2026-11-11T02:59:00.000Z');
  await c.t.deps.worker.runOnce();
  assert.equal((await getRequest(c, rr.id)).status, 'requested', 'not before noon of the third business day');
  c.t.clock.set('2026-11-11T03:00:00.000Z');
  await c.t.deps.worker.runOnce();
  const done = await getRequest(c, rr.id);
  assert.equal(done.status, 'approved');
  assert.equal(done.decidedBy, 'auto');
  assert.match(done.decisionReason, /자동으로 승인/);
  assert.equal(done.approvedAmount, 10_000);
  assert.ok(Date.parse(done.decidedAt) < Date.parse('2026-11-11T15:00:00.000Z'), 'decided before 24:00 KST of the third business day');
  assert.equal((await getOrder(c, order.id)).status, 'refunded');
  const updated = (await events(c, 'refund_request.updated')).filter((e) => e.id === rr.id);
  assert.deepEqual(updated.map((e) => e.status), ['approved']);
  // running again changes nothing
  await c.t.deps.worker.runOnce();
  assert.equal((await c.t.db.selectFrom('order_refunds').select('id').where('order_id', '=', order.id).execute()).length, 1);
});

test('auto-approval skips 추석 (2026-09-24..26) and the weekend: filed Wednesday 09-23, approved at 12:00 KST on Wednesday 09-30', async () => {
  c.t.clock.set('2026-09-22T01:00:00.000Z'); // paid Tuesday
  const order = await buy(c, p7.id, undefined);
  c.t.clock.set('2026-09-23T01:00:00.000Z'); // filed Wednesday 10:00 KST
  const rr = await file(c, order, { amount: '7000' });
  assert.equal(rr.statutory, true);
  // Thu 09-24, Fri 09-25, Sat 09-26 추석 연휴, Sun 09-27 → business days Mon 09-28, Tue 09-29, Wed 09-30
  assert.equal(rr.autoApproveAt, '2026-09-30T03:00:00.000Z');
  for (const at of ['2026-09-26T15:00:00.000Z', '2026-09-28T15:00:00.000Z', '2026-09-30T02:00:00.000Z']) {
    c.t.clock.set(at);
    await c.t.deps.worker.runOnce();
    assert.equal((await getRequest(c, rr.id)).status, 'requested', at);
  }
  c.t.clock.set(new Date(Date.parse('2026-09-30T03:00:00.000Z') + HOUR));
  await c.t.deps.worker.runOnce();
  const done = await getRequest(c, rr.id);
  assert.equal(done.status, 'approved');
  assert.equal(done.approvedAmount, 7_000);
  assert.equal((await getOrder(c, order.id)).refundedAmount, 7_000);
});

test('a request the seller decides in time is not auto-approved; a canceled one neither', async () => {
  c.t.clock.set('2026-11-02T01:00:00.000Z');
  const a = await buy(c, p7.id);
  const ra = await file(c, a);
  const approved = await act(c, ra.id, 'approve', {});
  assert.equal(approved.statusCode, 200);
  const b = await buy(c, p7.id);
  const rb = await file(c, b);
  const u = new URL(b.receiptUrl);
  const cancel = await c.t.app.inject({
    method: 'POST',
    url: `${u.pathname}/refund-request/cancel`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `t=${u.searchParams.get('t')}`,
  });
  assert.equal(cancel.statusCode, 303);
  c.t.clock.advance(30 * DAY);
  await c.t.deps.worker.runOnce();
  assert.equal((await getRequest(c, rb.id)).status, 'canceled');
  assert.equal((await getOrder(c, b.id)).refundedAmount, null);
  assert.equal((await c.t.db.selectFrom('order_refunds').select('id').where('order_id', '=', a.id).execute()).length, 1);
});
