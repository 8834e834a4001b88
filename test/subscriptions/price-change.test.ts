import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { owner, createProduct } from '../checkout/factory';
import { createSubscriptionProduct, eventsOf, getSubscription, subscribe } from './factory';

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
const inDays = (days: number) => new Date(t.clock.now().getTime() + days * DAY).toISOString();
const schedule = (productId: string, planId: string, body: Record<string, unknown>, store: TestStore = s) =>
  t.app.inject({ method: 'POST', url: `/admin/v1/products/${productId}/plans/${planId}/price-changes`, headers: owner(store), payload: body });
const advance = (id: string, days: number) => t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${id}/test-clock/advance`, headers: owner(s), payload: { days } });
const changesOf = async (subscriptionId: string, kind: string) => (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === subscriptionId && e.change.kind === kind);

async function portal(subscriptionId: string): Promise<{ path: string; page: string; csrf: string }> {
  const res = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId } });
  assert.equal(res.statusCode, 200, res.body);
  const path = new URL(res.json().url).pathname;
  const page = (await t.app.inject({ url: path })).body;
  return { path, page, csrf: /name="csrf" value="([A-Za-z0-9]+)"/.exec(page)![1] };
}
const form = (url: string, fields: Record<string, string>) =>
  t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });

test('a price increase: refused under 30 days; scheduled 30 days ahead both subscribers are told in the same transaction; the one who agrees in the portal renews at the new price, the other ends at its period end without a charge', async () => {
  t.clock.set(new Date('2026-11-01T00:00:00Z'));
  const p = await createSubscriptionProduct(t, s);
  const agrees = await subscribe(t, s, { productId: p.id, buyerEmail: 'agrees@example.com' });
  const silent = await subscribe(t, s, { productId: p.id, buyerEmail: 'silent@example.com' });

  // 29 days is not enough notice (전자상거래법 시행령: 30 days); nothing is written.
  const short = await schedule(p.id, 'basic', { monthlyPrice: 12_900, effectiveAt: inDays(29) });
  assert.equal(short.statusCode, 400, short.body);
  assert.equal(short.json().code, 'VALIDATION_FAILED');
  assert.equal(short.json().details.fields[0].field, 'effectiveAt');
  assert.match(short.json().details.fields[0].message, /30일/);
  assert.equal((await changesOf(agrees.subscriptionId, 'price_change_scheduled')).length, 0);

  const effectiveAt = inDays(30);
  const res = await schedule(p.id, 'basic', { monthlyPrice: 12_900, effectiveAt });
  assert.equal(res.statusCode, 201, res.body);
  const change = res.json();
  assert.equal(change.status, 'scheduled');
  assert.deepEqual(change.subscribers, { notified: 2, consentRequired: 2, accepted: 0, applied: 0, ended: 0 });
  for (const id of [agrees.subscriptionId, silent.subscriptionId]) {
    const told = await changesOf(id, 'price_change_scheduled');
    assert.equal(told.length, 1);
    assert.deepEqual(
      { ...told[0].change },
      { kind: 'price_change_scheduled', priceChangeId: change.id, planId: 'basic', billingInterval: 'monthly', currentAmount: 9_900, newAmount: 12_900, effectiveAt, decideBy: '2026-12-01T00:00:00.000Z', consentRequired: true },
    );
  }
  // Written with the change itself (the outbox): the events carry the scheduling's time.
  const rows = await t.db.selectFrom('events').select(['created_at', 'data']).where('type', '=', 'subscription.updated').execute();
  const told = rows.filter((r) => (r.data as any).change?.priceChangeId === change.id);
  assert.equal(told.length, 2);
  assert.ok(told.every((r) => r.created_at.getTime() === t.clock.now().getTime()));

  // A second pending change of the same plan is refused.
  const again = await schedule(p.id, 'basic', { monthlyPrice: 13_900, effectiveAt: inDays(40) });
  assert.equal(again.statusCode, 409, again.body);
  assert.equal(again.json().code, 'PRICE_CHANGE_PENDING');

  // The portal shows the change and what happens without consent; one buyer agrees.
  const pa = await portal(agrees.subscriptionId);
  assert.match(pa.page, /data-consent="required"/);
  assert.match(pa.page, /월 9,900원 → 월 12,900원/);
  assert.match(pa.page, /동의하지 않으시면 구독은 2026년 12월 1일에 종료되고 새 가격은 결제되지 않습니다/);
  const action = `${pa.path}/subscriptions/${agrees.subscriptionId}/price-changes/${change.id}/accept`;
  assert.equal((await form(action, {})).statusCode, 403, 'no CSRF secret, no consent');
  assert.equal((await changesOf(agrees.subscriptionId, 'price_change_accepted')).length, 0);
  const ok = await form(action, { csrf: pa.csrf });
  assert.equal(ok.statusCode, 303, ok.body);
  assert.match(new URL(String(ok.headers.location), "http://x").searchParams.get("notice")!, /새 가격에 동의했습니다/);
  const accepted = await changesOf(agrees.subscriptionId, 'price_change_accepted');
  assert.equal(accepted.length, 1);
  assert.equal(accepted[0].change.newAmount, 12_900);
  assert.equal(accepted[0].change.acceptedAt, '2026-11-01T00:00:00.000Z');
  assert.equal((await form(action, { csrf: pa.csrf })).statusCode, 303);
  assert.equal((await changesOf(agrees.subscriptionId, 'price_change_accepted')).length, 1, 'agreeing twice records one consent');
  assert.match((await t.app.inject({ url: pa.path })).body, /data-consent="accepted"/);

  // The renewal on the effective date, by each subscription's test clock.
  const r1 = (await advance(agrees.subscriptionId, 31)).json();
  assert.equal(r1.subscription.status, 'active');
  assert.equal(r1.subscription.amount, 12_900);
  const renewal = await t.db.selectFrom('orders').selectAll().where('subscription_id', '=', agrees.subscriptionId).where('subscription_event', '=', 'renewal').execute();
  assert.equal(renewal.length, 1);
  assert.equal(Number(renewal[0].amount), 12_900);
  assert.equal((renewal[0].terms as any).plan.monthlyPrice, 12_900, 'the order keeps the price it was sold at');
  const sub = await t.db.selectFrom('subscriptions').select('terms').where('id', '=', agrees.subscriptionId).executeTakeFirstOrThrow();
  assert.equal((sub.terms as any).plan.monthlyPrice, 12_900);
  const renewed = await changesOf(agrees.subscriptionId, 'period_renewed');
  assert.equal(renewed.length, 1);
  assert.equal(renewed[0].amount, 12_900);

  const r2 = (await advance(silent.subscriptionId, 31)).json();
  assert.equal(r2.subscription.status, 'ended');
  assert.equal(r2.subscription.endReason, 'price_change_declined');
  assert.equal(r2.subscription.endedAt, '2026-12-01T00:00:00.000Z');
  assert.equal((await t.db.selectFrom('orders').select('id').where('subscription_id', '=', silent.subscriptionId).where('subscription_event', '=', 'renewal').execute()).length, 0, 'no order');
  assert.equal((await t.db.selectFrom('subscription_charges').select('id').where('subscription_id', '=', silent.subscriptionId).execute()).length, 0, 'the gateway was never asked');
  const ended = (await eventsOf(t, 'subscription.ended')).filter((e) => e.id === silent.subscriptionId);
  assert.equal(ended.length, 1);
  assert.equal(ended[0].endReason, 'price_change_declined');
  // Advancing further charges nothing either.
  assert.equal((await advance(silent.subscriptionId, 60)).json().processed, 0);

  const listed = (await t.app.inject({ url: `/admin/v1/price-changes?productId=${p.id}`, headers: owner(s) })).json();
  assert.equal(listed.total, 1);
  assert.equal(listed.data[0].status, 'scheduled', 'status follows store time; only the test clocks moved');
  assert.deepEqual(listed.data[0].subscribers, { notified: 2, consentRequired: 2, accepted: 1, applied: 1, ended: 1 });
});

test('a decrease needs no consent: it applies at the first renewal on or after the date; a subscriber on the other interval is not told', async () => {
  t.clock.set(new Date('2026-11-01T00:00:00Z'));
  const p = await createSubscriptionProduct(t, s);
  const monthly = await subscribe(t, s, { productId: p.id });
  const yearly = await subscribe(t, s, { productId: p.id, interval: 'yearly' });
  const res = await schedule(p.id, 'basic', { monthlyPrice: 7_900, effectiveAt: inDays(45) });
  assert.equal(res.statusCode, 201, res.body);
  const told = await changesOf(monthly.subscriptionId, 'price_change_scheduled');
  assert.equal(told.length, 1);
  assert.equal(told[0].change.consentRequired, false);
  assert.equal(told[0].change.decideBy, '2027-01-01T00:00:00.000Z', 'the first renewal on or after the date');
  assert.equal((await changesOf(yearly.subscriptionId, 'price_change_scheduled')).length, 0);
  assert.match((await portal(monthly.subscriptionId)).page, /data-consent="none"/);
  // December still at the old price, January at the new one.
  assert.equal((await advance(monthly.subscriptionId, 31)).json().subscription.amount, 9_900);
  const jan = (await advance(monthly.subscriptionId, 31)).json();
  assert.equal(jan.subscription.status, 'active');
  assert.equal(jan.subscription.amount, 7_900);
  const amounts = (await t.db.selectFrom('orders').select('amount').where('subscription_id', '=', monthly.subscriptionId).where('subscription_event', '=', 'renewal').orderBy('paid_at').execute()).map((o) => Number(o.amount));
  assert.deepEqual(amounts, [9_900, 7_900]);
});

test('a subscriber who starts after the change was scheduled is told at once and gets 30 days; one cancelled at period end is left alone', async () => {
  t.clock.set(new Date('2026-11-01T00:00:00Z'));
  const p = await createSubscriptionProduct(t, s);
  const leaving = await subscribe(t, s, { productId: p.id });
  const cancel = await t.app.inject({ method: 'POST', url: `/v1/subscriptions/${leaving.subscriptionId}/cancel`, headers: post(s.key), payload: { timing: 'period_end' } });
  assert.equal(cancel.statusCode, 200, cancel.body);
  const res = await schedule(p.id, 'basic', { monthlyPrice: 12_900, effectiveAt: inDays(30) });
  assert.equal(res.json().subscribers.notified, 0);
  assert.equal((await changesOf(leaving.subscriptionId, 'price_change_scheduled')).length, 0);

  t.clock.set(new Date('2026-11-20T00:00:00Z'));
  const late = await subscribe(t, s, { productId: p.id });
  const told = await changesOf(late.subscriptionId, 'price_change_scheduled');
  assert.equal(told.length, 1);
  assert.equal(told[0].change.effectiveAt, '2026-12-20T00:00:00.000Z', 'told + 30 days, later than the plan\'s date');
  assert.equal(told[0].change.decideBy, '2026-12-20T00:00:00.000Z');
  // Its payment page stated the new price from that renewal and the buyer agreed to it there (issue 29 item 5; it used
  // to consent to 9,900 only and then be ended as "declined"): it renews at the new price.
  assert.ok(told[0].change.acceptedAt, 'agreed at checkout');
  const r = (await advance(late.subscriptionId, 31)).json();
  assert.equal(r.subscription.status, 'active');
  assert.equal(r.subscription.amount, 12_900);
});

test('a change withdrawn before its date: subscribers are told (canceled: true) and renew at the old price', async () => {
  t.clock.set(new Date('2026-11-01T00:00:00Z'));
  const p = await createSubscriptionProduct(t, s);
  const sub = await subscribe(t, s, { productId: p.id });
  const change = (await schedule(p.id, 'basic', { monthlyPrice: 12_900, effectiveAt: inDays(30) })).json();
  const c = await t.app.inject({ method: 'POST', url: `/admin/v1/price-changes/${change.id}/cancel`, headers: owner(s) });
  assert.equal(c.statusCode, 200, c.body);
  assert.equal(c.json().status, 'canceled');
  const told = await changesOf(sub.subscriptionId, 'price_change_scheduled');
  assert.equal(told.length, 2);
  assert.deepEqual(told.map((e) => e.change.canceled ?? false).sort(), [false, true]);
  const twice = await t.app.inject({ method: 'POST', url: `/admin/v1/price-changes/${change.id}/cancel`, headers: owner(s) });
  assert.equal(twice.json().code, 'PRICE_CHANGE_NOT_CANCELABLE');
  const r = (await advance(sub.subscriptionId, 31)).json();
  assert.equal(r.subscription.status, 'active');
  assert.equal(r.subscription.amount, 9_900);
  // A new change may be scheduled once the old one is withdrawn.
  assert.equal((await schedule(p.id, 'basic', { monthlyPrice: 11_900, effectiveAt: inDays(31) })).statusCode, 201);
  assert.equal((await getSubscription(t, s.key, sub.subscriptionId)).status, 'active');
});

test('console refusals: no price, unknown plan, an interval the plan does not offer, a one-time product, another store\'s product, no owner token', async () => {
  t.clock.set(new Date('2026-11-01T00:00:00Z'));
  const p = await createSubscriptionProduct(t, s, { plans: [{ id: 'm', name: '월간만', monthlyPrice: 5_000, yearlyPrice: null }] });
  const field = async (r: Awaited<ReturnType<typeof schedule>>) => {
    assert.equal(r.statusCode, 400, r.body);
    return r.json().details.fields.map((f: any) => f.field);
  };
  assert.deepEqual(await field(await schedule(p.id, 'm', { effectiveAt: inDays(31) })), ['monthlyPrice']);
  assert.deepEqual(await field(await schedule(p.id, 'nope', { monthlyPrice: 1, effectiveAt: inDays(31) })), ['planId']);
  assert.deepEqual(await field(await schedule(p.id, 'm', { yearlyPrice: 50_000, effectiveAt: inDays(31) })), ['yearlyPrice']);
  assert.deepEqual(await field(await schedule(p.id, 'm', { monthlyPrice: 6_000, effectiveAt: 'not-a-date' })), ['effectiveAt']);
  const oneTime = await createProduct(t, s);
  assert.deepEqual(await field(await schedule(oneTime.id, 'm', { monthlyPrice: 6_000, effectiveAt: inDays(31) })), ['planId']);
  const other = await createTestStore(t);
  const foreign = await schedule(p.id, 'm', { monthlyPrice: 6_000, effectiveAt: inDays(31) }, other);
  assert.equal(foreign.statusCode, 404);
  assert.equal(foreign.json().code, 'PRODUCT_NOT_FOUND');
  const anon = await t.app.inject({ method: 'POST', url: `/admin/v1/products/${p.id}/plans/m/price-changes`, payload: { monthlyPrice: 6_000, effectiveAt: inDays(31) } });
  assert.equal(anon.statusCode, 401);
  assert.equal((await t.app.inject({ url: '/admin/v1/price-changes/ppc_nope', headers: owner(s) })).json().code, 'PRICE_CHANGE_NOT_FOUND');
  assert.equal((await t.app.inject({ url: '/admin/v1/price-changes', headers: owner(other) })).json().total, 0, 'another store sees none');
});

test('every price-change event written above matches its documented webhook schema, and the docs name the kinds and the end reason', async () => {
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const rows = await t.db.selectFrom('events').selectAll().where('type', 'in', ['subscription.updated', 'subscription.ended']).execute();
  const ours = rows.filter((e) => String((e.data as any).change?.kind ?? '').startsWith('price_change') || (e.data as any).endReason === 'price_change_declined');
  const kinds = new Set(ours.map((e) => (e.data as any).change?.kind ?? (e.data as any).endReason));
  assert.deepEqual([...kinds].sort(), ['price_change_accepted', 'price_change_declined', 'price_change_scheduled']);
  for (const e of ours) {
    const hook = doc.webhooks[e.type].post;
    const validate = ajv.compile(hook.requestBody.content['application/json'].schema);
    const envelope = { id: e.id, type: e.type, mode: e.mode, createdAt: e.created_at.toISOString(), data: e.data };
    assert.ok(validate(envelope), `${e.type}: ${ajv.errorsText(validate.errors)}`);
  }
  const text = JSON.stringify(doc.webhooks);
  for (const word of ['price_change_scheduled', 'price_change_accepted', 'price_change_declined', 'decideBy', 'consentRequired']) assert.ok(text.includes(word), word);
});
