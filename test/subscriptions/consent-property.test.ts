import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, subscribe } from './factory';

// Issue 29's property (items 2 and 4): whatever the sequence of seller plan changes (console), buyer answers in the
// portal (accept, decline, own changes, trial confirmation), seller withdrawals and clock moves, with or without a
// free trial (up to 90 days), nothing dearer is charged without a recorded consent:
// - a seller's change call never creates an order;
// - every difference order has an accepted consent record for its plan, recorded before it (the subscription's clock);
// - every renewal charges at most the amount sold at checkout, or one the buyer accepted (a consent record with that amount);
// - a trial longer than 30 days converts to a charge only with a fresh consent given in the 30 days before its end.

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
type Plan = 'basic' | 'pro';
type Interval = 'monthly' | 'yearly';

type Op =
  | { kind: 'advance'; days: number }
  | { kind: 'seller'; planId: Plan; interval: Interval }
  | { kind: 'accept' }
  | { kind: 'decline' }
  | { kind: 'withdraw' }
  | { kind: 'buyer'; planId: Plan; interval: Interval }
  | { kind: 'trialConsent' };

const plan = fc.constantFrom<Plan>('basic', 'pro');
const interval = fc.constantFrom<Interval>('monthly', 'monthly', 'yearly');
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 40 }) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('seller' as const), planId: plan, interval }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('accept' as const) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('decline' as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('withdraw' as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('buyer' as const), planId: plan, interval }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('trialConsent' as const) }), weight: 1 },
);

const form = (url: string, fields: Record<string, string>) =>
  t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });

let runNo = 0;

test('property (HTTP, portal, test clocks): with random seller plan changes, buyer answers, withdrawals, trials and clock moves, nothing dearer is charged without a recorded consent', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        startPlan: plan,
        startInterval: interval,
        trialDays: fc.constantFrom(0, 0, 14, 30, 31, 45, 60, 90),
        ops: fc.array(op, { minLength: 1, maxLength: 10 }),
      }),
      async (c) => {
        t.clock.set('2027-01-01T01:00:00.000Z');
        const trial = c.trialDays ? { trialDays: c.trialDays } : {};
        const product = await createSubscriptionProduct(t, s, {
          plans: [
            { id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, ...trial },
            { id: 'pro', name: '프로', monthlyPrice: 19_900, yearlyPrice: 199_000, ...trial },
          ],
        });
        const sub = await subscribe(t, s, { productId: product.id, planId: c.startPlan, interval: c.startInterval, buyerEmail: `prop${++runNo}@example.com` });
        const id = sub.subscriptionId;
        const sold = (await t.app.inject({ url: `/v1/subscriptions/${id}`, headers: bearer(s.key) })).json().amount as number;
        const ps = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId: id } });
        const path = new URL(ps.json().url).pathname;
        const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec((await t.app.inject({ url: path })).body)![1];
        const orderCount = async () => Number((await t.db.selectFrom('orders').select((eb) => eb.fn.countAll().as('n')).where('subscription_id', '=', id).executeTakeFirstOrThrow()).n);

        for (const o of c.ops) {
          if (o.kind === 'advance') {
            const r = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${id}/test-clock/advance`, headers: owner(s), payload: { days: o.days } });
            assert.equal(r.statusCode, 200, r.body);
          } else if (o.kind === 'seller') {
            const before = await orderCount();
            const r = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${id}/change-plan`, headers: owner(s), payload: { planId: o.planId, interval: o.interval } });
            assert.ok(r.statusCode < 500, r.body);
            assert.equal(await orderCount(), before, 'a seller\'s change never charges');
          } else if (o.kind === 'withdraw') {
            const r = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${id}/plan-change-offer/withdraw`, headers: owner(s) });
            assert.ok(r.statusCode === 200 || r.statusCode === 404, r.body);
          } else {
            const offer = (await t.app.inject({ url: `/admin/v1/subscriptions/${id}/plan-change-offer`, headers: owner(s) })).json().offer;
            let url: string | null = null;
            const fields: Record<string, string> = { csrf };
            if (o.kind === 'accept' && offer) url = `${path}/subscriptions/${id}/plan-offers/${offer.id}/accept`;
            if (o.kind === 'decline' && offer) url = `${path}/subscriptions/${id}/plan-offers/${offer.id}/decline`;
            if (o.kind === 'trialConsent') url = `${path}/subscriptions/${id}/trial-consent`;
            if (o.kind === 'buyer') {
              url = `${path}/subscriptions/${id}/plan`;
              fields.plan = `${o.planId}:${o.interval}`;
            }
            if (url) {
              const r = await form(url, fields);
              assert.ok(r.statusCode === 303 || r.statusCode === 200, `${r.statusCode} ${r.body.slice(0, 200)}`);
            }
          }
        }

        // The checks, from what was recorded.
        const row = await t.db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        const consents = await t.db.selectFrom('subscription_plan_consents').selectAll().where('subscription_id', '=', id).where('status', '=', 'accepted').execute();
        for (const cr of consents) {
          const text = (cr.consent as { text?: string } | null)?.text ?? '';
          assert.ok(text.includes(`${Number(cr.amount).toLocaleString('ko-KR')}원`), `the consent names the amount agreed: ${text}`);
        }
        const orders = await t.db.selectFrom('orders').select(['id', 'amount', 'subscription_event', 'plan_id', 'paid_at']).where('subscription_id', '=', id).execute();
        for (const ord of orders) {
          const amount = Number(ord.amount);
          if (ord.subscription_event === 'difference') {
            assert.ok(
              consents.some((cr) => cr.plan_id === ord.plan_id && cr.resolved_at && ord.paid_at && cr.resolved_at <= ord.paid_at),
              `difference ${amount} on ${ord.plan_id} without a consent recorded before it`,
            );
          }
          if (ord.subscription_event === 'renewal' && amount > 0) {
            // Cheaper than sold needs no consent (a seller's downgrade applies as before).
            assert.ok(amount <= sold || consents.some((cr) => Number(cr.amount) === amount), `renewal of ${amount} (sold ${sold}) without a consent to it`);
          }
        }
        const charged = orders.some((ord) => ord.subscription_event === 'renewal' && Number(ord.amount) > 0);
        if (c.trialDays > 30 && charged) {
          const tc = row.trial_consent as { consentedAt: string } | null;
          assert.ok(tc, 'a long trial converted without a fresh consent');
          const at = new Date(tc.consentedAt).getTime();
          assert.ok(at >= row.trial_ends_at!.getTime() - 30 * DAY && at < row.trial_ends_at!.getTime(), 'the fresh consent lies in the 30 days before the first charge');
        }
        if (c.trialDays > 30 && !row.trial_consent && row.trial_ends_at && row.status === 'ended' && row.ended_at?.getTime() === row.trial_ends_at.getTime()) {
          assert.ok(['trial_not_confirmed', 'canceled'].includes(String(row.end_reason)));
        }
      },
    ),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 20) },
  );
});
