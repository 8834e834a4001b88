import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post, bearer, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, subscribe } from './factory';

// Issue 29 item 5: "After a buyer agrees, the receipt and the API's `amount` still say 9,900 while 12,900 is charged."
// A monthly 9,900 buyer, a price increase to 12,900 scheduled 30 days ahead, the buyer agrees in the portal: until the
// renewal the API and the receipt state the agreed 12,900 as the next charge (the current period stays 9,900); the
// renewal charges 12,900 and the API, the renewal order and its receipt say 12,900.

let t: TestApp;
let s: TestStore;
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const DAY = 86_400_000;
const getSub = async (id: string) => (await t.app.inject({ url: `/v1/subscriptions/${id}`, headers: bearer(s.key) })).json();
const listed = async (id: string) => (await t.app.inject({ url: `/v1/subscriptions?limit=100`, headers: bearer(s.key) })).json().data.find((x: any) => x.id === id);
async function receipt(orderId: string): Promise<{ order: any; page: string }> {
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  const u = new URL(order.receiptUrl);
  return { order, page: (await t.app.inject({ url: u.pathname + u.search })).body };
}
const nextAmount = (page: string) => /id="next-charge-amount">([^<]*)</.exec(page)?.[1];

async function acceptInPortal(subscriptionId: string, changeId: string) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId } });
  const path = new URL(res.json().url).pathname;
  const page = (await t.app.inject({ url: path })).body;
  const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec(page)![1];
  const ok = await t.app.inject({
    method: 'POST',
    url: `${path}/subscriptions/${subscriptionId}/price-changes/${changeId}/accept`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf }).toString(),
  });
  assert.equal(ok.statusCode, 303, ok.body);
}

test('an agreed price increase: the API and the receipt show 12,900 as the next charge before the renewal, and 12,900 after it on the subscription, the renewal order and its receipt', async () => {
  t.clock.set(new Date('2026-11-01T00:00:00Z'));
  const p = await createSubscriptionProduct(t, s);
  const sub = await subscribe(t, s, { productId: p.id });
  const silent = await subscribe(t, s, { productId: p.id, buyerEmail: 'silent@example.com' });
  const change = (
    await t.app.inject({
      method: 'POST',
      url: `/admin/v1/products/${p.id}/plans/basic/price-changes`,
      headers: owner(s),
      payload: { monthlyPrice: 12_900, effectiveAt: new Date(t.clock.now().getTime() + 30 * DAY).toISOString() },
    })
  ).json();

  // Told, not agreed: the current amount stands, the change is shown as needing consent, and the receipt says the
  // subscription ends at that renewal unless the buyer agrees.
  const told = await getSub(sub.subscriptionId);
  assert.equal(told.amount, 9_900);
  assert.deepEqual(told.pendingPriceChange, {
    priceChangeId: change.id,
    currentAmount: 9_900,
    amount: 12_900,
    currency: 'KRW',
    effectiveAt: '2026-12-01T00:00:00.000Z',
    consentRequired: true,
    acceptedAt: null,
  });
  const before1 = await receipt(sub.orderId);
  assert.equal(nextAmount(before1.page), '9,900원');
  assert.match(before1.page, /id="price-change-ends">[^<]*동의하지 않으면 이날 구독이 끝나고/);

  await acceptInPortal(sub.subscriptionId, change.id);
  const agreed = await getSub(sub.subscriptionId);
  assert.equal(agreed.amount, 9_900, 'the current period was sold at 9,900');
  assert.equal(agreed.pendingPriceChange.amount, 12_900);
  assert.equal(agreed.pendingPriceChange.acceptedAt, '2026-11-01T00:00:00.000Z');
  assert.deepEqual((await listed(sub.subscriptionId)).pendingPriceChange, agreed.pendingPriceChange, 'the list says the same');
  const before2 = await receipt(sub.orderId);
  assert.equal(before2.order.amount, 9_900, 'the first order was paid 9,900');
  assert.equal(nextAmount(before2.page), '12,900원 (동의한 새 가격)', 'the receipt names the agreed next charge (it said 9,900)');
  assert.doesNotMatch(before2.page, /id="price-change-ends"/);
  // The buyer who did not agree still reads 9,900 and the ending.
  assert.match((await receipt(silent.orderId)).page, /id="price-change-ends"/);

  const adv = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${sub.subscriptionId}/test-clock/advance`, headers: owner(s), payload: { days: 31 } });
  assert.equal(adv.statusCode, 200, adv.body);
  const after1 = await getSub(sub.subscriptionId);
  assert.equal(after1.amount, 12_900);
  assert.equal(after1.pendingPriceChange, null, 'charged: nothing ahead any more');
  assert.equal((await listed(sub.subscriptionId)).amount, 12_900);
  const charged = await t.db.selectFrom('orders').select(['id', 'amount']).where('subscription_id', '=', sub.subscriptionId).where('subscription_event', '=', 'renewal').execute();
  assert.equal(charged.length, 1);
  assert.equal(Number(charged[0].amount), 12_900);
  const renewal = await receipt(charged[0].id);
  assert.equal(renewal.order.amount, 12_900);
  assert.match(renewal.page, /<dd class="total">12,900원<\/dd>/);
  assert.equal(nextAmount(renewal.page), '12,900원');
  assert.equal(nextAmount((await receipt(sub.orderId)).page), '12,900원', 'the first receipt follows the subscription');
});

test('a decrease is shown ahead as the next charge without consent; a withdrawn change disappears from the API', async () => {
  t.clock.set(new Date('2026-11-01T00:00:00Z'));
  const p = await createSubscriptionProduct(t, s);
  const sub = await subscribe(t, s, { productId: p.id });
  const change = (
    await t.app.inject({
      method: 'POST',
      url: `/admin/v1/products/${p.id}/plans/basic/price-changes`,
      headers: owner(s),
      payload: { monthlyPrice: 7_900, effectiveAt: new Date(t.clock.now().getTime() + 30 * DAY).toISOString() },
    })
  ).json();
  const v = await getSub(sub.subscriptionId);
  assert.equal(v.pendingPriceChange.amount, 7_900);
  assert.equal(v.pendingPriceChange.consentRequired, false);
  assert.equal(nextAmount((await receipt(sub.orderId)).page), '7,900원 (인하된 가격)');
  const c = await t.app.inject({ method: 'POST', url: `/admin/v1/price-changes/${change.id}/cancel`, headers: owner(s) });
  assert.equal(c.statusCode, 200, c.body);
  assert.equal((await getSub(sub.subscriptionId)).pendingPriceChange, null);
  assert.equal(nextAmount((await receipt(sub.orderId)).page), '9,900원');
});
