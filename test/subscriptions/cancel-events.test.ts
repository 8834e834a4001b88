import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { createSubscriptionProduct, subscribe } from './factory';

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const kst = (v: string) => new Date(`${v}+09:00`);
const cancel = (id: string, timing: string) => t.app.inject({ method: 'POST', url: `/v1/subscriptions/${id}/cancel`, headers: post(s.key), payload: { timing } });

test('events of every cancel path (scheduled, immediate by the seller, immediate by the buyer with a refund request) match the documented webhook schemas', async () => {
  t.clock.set(kst('2026-12-01T10:00:00'));
  const product = await createSubscriptionProduct(t, s);
  const a = await subscribe(t, s, { productId: product.id });
  const b = await subscribe(t, s, { productId: product.id, buyerEmail: 'buyer-b@example.com' });
  assert.equal((await cancel(a.subscriptionId, 'period_end')).statusCode, 200);
  t.clock.advance(1_000);
  assert.equal((await cancel(a.subscriptionId, 'immediate')).statusCode, 200);

  // The buyer's immediate cancel from the portal on day 12 (prorated, needs approval).
  t.clock.set(kst('2026-12-12T11:00:00'));
  const session = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId: b.subscriptionId } });
  const path = new URL(session.json().url).pathname;
  const page = (await t.app.inject({ url: path })).body;
  const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec(page)![1];
  const res = await t.app.inject({
    method: 'POST',
    url: `${path}/subscriptions/${b.subscriptionId}/cancel`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ timing: 'immediate', csrf }).toString(),
  });
  assert.equal(res.statusCode, 200);

  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const rows = await t.db.selectFrom('events').selectAll().where('type', 'in', ['subscription.updated', 'subscription.ended']).execute();
  const ended: any[] = [];
  for (const e of rows) {
    const validate = ajv.compile(doc.webhooks[e.type].post.requestBody.content['application/json'].schema);
    assert.ok(validate({ id: e.id, type: e.type, mode: e.mode, createdAt: e.created_at.toISOString(), data: e.data }), `${e.type}: ${ajv.errorsText(validate.errors)}`);
    if (e.type === 'subscription.ended') ended.push(e.data);
  }
  // Issue 29: the buyer's cancel whose refund awaits the seller does not end the service before the decision.
  assert.equal(ended.length, 1);
  const bySeller = ended.find((d) => d.id === a.subscriptionId);
  assert.deepEqual({ actor: bySeller.cancellation.actor, refundAmount: bySeller.cancellation.refundAmount, refundedOrderIds: bySeller.cancellation.refundedOrderIds }, { actor: 'seller', refundAmount: 9_900, refundedOrderIds: [a.orderId] });
  const pending = rows.filter((e) => e.type === 'subscription.updated' && (e.data as any).id === b.subscriptionId).map((e) => e.data as any);
  const byBuyer = pending.find((d) => d.change.kind === 'cancel_refund_pending');
  assert.equal(byBuyer.status, 'active');
  assert.equal(byBuyer.cancelAtPeriodEnd, true);
  assert.equal(byBuyer.change.refundRequestIds.length, 1);
  assert.equal(byBuyer.change.preview.refundAmount, 5_462);

  // The seller approves it: the subscription ends then, and that event too matches the documented schema.
  const [rr] = await t.db.selectFrom('refund_requests').select('id').where('subscription_id', '=', b.subscriptionId).execute();
  const approved = await t.app.inject({ method: 'POST', url: `/v1/refund-requests/${rr.id}/approve`, headers: post(s.key), payload: {} });
  assert.equal(approved.statusCode, 200, approved.body);
  const last = await t.db.selectFrom('events').selectAll().where('type', '=', 'subscription.ended').execute();
  const end = last.find((e) => (e.data as any).id === b.subscriptionId)!;
  const validate = ajv.compile(doc.webhooks['subscription.ended'].post.requestBody.content['application/json'].schema);
  assert.ok(validate({ id: end.id, type: end.type, mode: end.mode, createdAt: end.created_at.toISOString(), data: end.data }), ajv.errorsText(validate.errors));
  assert.equal((end.data as any).endReason, 'canceled');
  assert.equal((end.data as any).refund.kind, 'cancel_approved');
});
