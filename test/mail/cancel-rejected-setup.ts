import assert from 'node:assert/strict';
import { post, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, subscribe } from '../subscriptions/factory';

export const kst = (v: string) => new Date(`${v}+09:00`);

/** A monthly 9,900 buyer cancels in the portal on day 10 (past the 7-day window: the prorated refund awaits the seller). */
export async function cancelledAwaitingSeller(tt: TestApp, ss: TestStore, email: string, lang?: 'en') {
  tt.clock.set(kst('2027-03-02T10:00:00'));
  const p = await createSubscriptionProduct(tt, ss, { name: '클라우드 백업' });
  const sub = await subscribe(tt, ss, { productId: p.id, buyerEmail: email });
  if (lang) await tt.db.updateTable('subscriptions').set({ locale: lang }).where('id', '=', sub.subscriptionId).execute();
  const adv = await tt.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${sub.subscriptionId}/test-clock/advance`, headers: owner(ss), payload: { days: 10 } });
  assert.equal(adv.statusCode, 200, adv.body);
  const portal = await tt.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(ss.key), payload: { subscriptionId: sub.subscriptionId } });
  const path = new URL(portal.json().url).pathname;
  const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec((await tt.app.inject({ url: path })).body)![1];
  const res = await tt.app.inject({
    method: 'POST',
    url: `${path}/subscriptions/${sub.subscriptionId}/cancel`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ timing: 'immediate', csrf }).toString(),
  });
  assert.ok(res.statusCode < 400, res.body);
  const requests = await tt.db.selectFrom('refund_requests').select(['id', 'statutory', 'amount']).where('subscription_id', '=', sub.subscriptionId).execute();
  assert.equal(requests.length, 1);
  assert.equal(requests[0].statutory, false, 'outside the window: the seller decides');
  return { ...sub, requestId: requests[0].id, amount: Number(requests[0].amount) };
}

