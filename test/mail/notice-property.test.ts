import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, subscribe } from '../subscriptions/factory';
import { runMailOnce } from '../../src/mail/dispatch';
import { kst, won } from '../../src/pages/html';
import { withdrawalWindowEnd } from '../../src/platform/calendar';
import { WINDOW_END_TEXT } from '../../src/pages/receipt/copy';

// The mails' property (issue 38 items 2-4 and 9, beside issue 29's consent property in
// test/subscriptions/consent-property.test.ts): whatever the price change scheduled before or after the buyer pays
// (increase or decrease, its date), the trial (none, 14 or 60 days), the interval, the buyer's answers in the portal
// (agree, decline) and the clock moves, every mail that states a charge states what is then charged:
// - the subscription-started mail's first recurring charge (date and amount) is the first renewal order, unless the
//   buyer answered a price change in the portal before it; a trial longer than 30 days states no unconditional charge;
// - its withdrawal deadline is the receipt's (23:59 KST of the window's last day, same function);
// - each yearly upcoming-renewal mail's amount (or, for an unagreed increase, "ends unpaid") is what that renewal did,
//   unless the buyer answered after the mail.

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
type Op = { kind: 'advance'; days: number } | { kind: 'accept' } | { kind: 'decline' };
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 120 }) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('accept' as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('decline' as const) }), weight: 1 },
);
const form = (url: string, fields: Record<string, string>) =>
  t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });

let runNo = 0;

test('property (HTTP, portal, test clocks): every mail\'s amounts and dates equal what is then charged', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        interval: fc.constantFrom<'monthly' | 'yearly'>('monthly', 'monthly', 'yearly'),
        trialDays: fc.constantFrom(0, 0, 14, 60),
        newMonthly: fc.constantFrom(12_900, 7_900),
        newYearly: fc.constantFrom(129_000, 79_000),
        scheduleBefore: fc.boolean(),
        // Often at the first charge (about 30 days on), where the started mail must already give the new price.
        effectiveInDays: fc.oneof(fc.integer({ min: 30, max: 31 }), fc.integer({ min: 30, max: 400 })),
        payAtMinute: fc.integer({ min: 0, max: 24 * 60 - 1 }),
        ops: fc.array(op, { minLength: 1, maxLength: 8 }),
      }),
      async (c) => {
        // March: a 31-day first period, so a change 30-31 days ahead falls on the first recurring charge.
        t.clock.set(new Date(Date.parse('2027-03-01T00:00:00.000Z') + c.payAtMinute * 60_000));
        const trial = c.trialDays ? { trialDays: c.trialDays } : {};
        const product = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, ...trial }] });
        const scheduleChange = async () => {
          const r = await t.app.inject({
            method: 'POST',
            url: `/admin/v1/products/${product.id}/plans/basic/price-changes`,
            headers: owner(s),
            payload: { monthlyPrice: c.newMonthly, yearlyPrice: c.newYearly, effectiveAt: new Date(t.clock.now().getTime() + c.effectiveInDays * DAY).toISOString() },
          });
          assert.equal(r.statusCode, 201, r.body);
        };
        if (c.scheduleBefore) await scheduleChange();
        const sub = await subscribe(t, s, { productId: product.id, interval: c.interval, buyerEmail: `notice-prop${++runNo}@example.com` });
        const id = sub.subscriptionId;
        if (!c.scheduleBefore) await scheduleChange();
        await runMailOnce(t.deps, t.clock.now());
        const ps = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId: id } });
        const path = new URL(ps.json().url).pathname;
        const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec((await t.app.inject({ url: path })).body)![1];
        const own = async () => {
          const row = await t.db.selectFrom('subscriptions').select('test_clock_offset_ms').where('id', '=', id).executeTakeFirstOrThrow();
          return new Date(t.clock.now().getTime() + Number(row.test_clock_offset_ms));
        };
        const answers: Date[] = [];
        for (const o of c.ops) {
          if (o.kind === 'advance') {
            const r = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${id}/test-clock/advance`, headers: owner(s), payload: { days: o.days } });
            assert.equal(r.statusCode, 200, r.body);
          } else {
            const d = await t.db.selectFrom('subscription_price_changes').select(['price_change_id', 'outcome']).where('subscription_id', '=', id).where('outcome', 'is', null).executeTakeFirst();
            if (!d) continue;
            const r = await form(`${path}/subscriptions/${id}/price-changes/${d.price_change_id}/${o.kind}`, { csrf });
            // A decrease has nothing to answer (404 page); an answer on an ended subscription is refused.
            assert.ok(r.statusCode < 500, r.body);
            if (r.statusCode === 303) answers.push(await own());
          }
          await runMailOnce(t.deps, t.clock.now());
        }

        const mails = await t.db.selectFrom('mail_outbox').select(['kind', 'data', 'text_body', 'created_at']).where('recipient', '=', `notice-prop${runNo}@example.com`).where('status', '=', 'captured').execute();
        const orders = await t.db.selectFrom('orders').select(['id', 'amount', 'subscription_event', 'period_start', 'paid_at', 'terms']).where('subscription_id', '=', id).orderBy('period_start').execute();
        const first = orders.find((o) => o.id === sub.orderId)!;
        const renewals = orders.filter((o) => o.subscription_event === 'renewal');
        const started = mails.find((m) => m.kind === 'subscription_started');
        assert.ok(started, 'the started mail');
        const text = started.text_body!;

        // The withdrawal deadline: the receipt's.
        const refundDays = (first.terms as { refundDays: number }).refundDays;
        assert.ok(text.includes(`${WINDOW_END_TEXT.ko(withdrawalWindowEnd(first.paid_at!, refundDays))} KST까지`), text);

        // The first recurring charge.
        const m = /첫 정기결제는 (.+?)에 ([\d,]+원)입니다/.exec(text);
        if (c.trialDays > 30) assert.equal(m, null, `a long trial promises no charge: ${text}`);
        const firstRenewal = renewals[0];
        const firstDue = (await t.db.selectFrom('orders').select('period_end').where('id', '=', sub.orderId).executeTakeFirstOrThrow()).period_end!;
        if (m && firstRenewal && firstRenewal.period_start!.getTime() === firstDue.getTime() && !answers.some((a) => a < firstDue)) {
          assert.equal(m[1], `${kst(firstDue)} KST`);
          assert.equal(m[2], won(Number(firstRenewal.amount)), `the started mail said ${m[2]}, the first renewal charged ${firstRenewal.amount}`);
        }

        // Each yearly reminder against the renewal it announced.
        for (const r of mails.filter((x) => x.kind === 'renewal_upcoming')) {
          const change = (r.data as { change: { renewsAt: string; amount: number; priceChange?: { consentRequired: boolean; accepted: boolean } } }).change;
          const at = new Date(change.renewsAt);
          const sent = await t.db.selectFrom('events').select('data').where('type', '=', 'subscription.updated').execute();
          void sent;
          if (answers.some((a) => a.getTime() >= at.getTime() - 31 * DAY && a < at)) continue;
          const charged = renewals.find((o) => o.period_start!.getTime() === at.getTime());
          const sub2 = await t.db.selectFrom('subscriptions').select(['status', 'ended_at', 'end_reason']).where('id', '=', id).executeTakeFirstOrThrow();
          if ((await own()) < at) continue;
          const pc = change.priceChange;
          if (pc && pc.consentRequired && !pc.accepted) {
            assert.equal(charged, undefined, 'an unagreed increase: nothing charged at that renewal');
            // A long trial's first charge also waits for the trial's own fresh consent: unconfirmed, it ends the
            // subscription for that reason first (either way nothing was charged, as the mails said).
            const reasons = ['price_change_declined', ...(c.trialDays > 30 ? ['trial_not_confirmed'] : [])];
            assert.ok(reasons.includes(sub2.end_reason ?? ''), `ended for ${sub2.end_reason}, expected one of ${reasons.join(', ')}`);
          } else if (charged) {
            assert.equal(Number(charged.amount), change.amount, 'the reminder\'s amount is what the renewal charged');
            assert.ok(r.text_body!.includes(won(change.amount)));
          }
        }
      },
    ),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 12), ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED), path: process.env.PROPERTY_PATH } : {}) },
  );
});
