import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createTestApp, createTestStore, type TestApp } from '../helpers/app';
import { insertPaidOrder, product, refund } from '../refunds/factory';
import { recordCashReceipt } from '../../src/checkout/cash-receipt';
import type { PaymentMethod } from '../../src/payments/method';
import { ownerGet } from './helpers';

// For random orders and refunds around a quarter, the report equals the orders paid in it minus the refunds made in
// it, per category and overall, computed here independently of the service (its own category rule and its own
// rounding: 세액 = the nearest won to 합계/11). Orders are written by the refunds tests' factory (paid on the
// simulator), 현금영수증 by checkout's own recordCashReceipt, refunds through the refund API at their time.

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});

const Q3 = { start: Date.parse('2026-06-30T15:00:00Z'), end: Date.parse('2026-09-30T15:00:00Z') };
const SPAN_START = Date.parse('2026-06-15T00:00:00Z');
const SPAN_MS = 120 * 86_400_000;
const METHODS: PaymentMethod[] = ['card', 'kakao_pay', 'naver_pay', 'toss', 'transfer', 'virtual_account'];
const CATS = ['tax_invoice', 'card', 'cash_receipt', 'other', 'foreign'] as const;

const orderArb = fc.record({
  method: fc.constantFrom(...METHODS),
  // 0원 orders (a coupon paid it all) are no sale; the rest from 1원, to reach the small-amount rounding.
  amount: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 99 }), fc.integer({ min: 100, max: 3_000_000 })),
  paidOffset: fc.integer({ min: 0, max: SPAN_MS }),
  // 현금영수증: none, issued, or asked for and never issued (still `requested`: no evidence, so 기타).
  receipt: fc.constantFrom('none', 'issued', 'requested'),
  live: fc.boolean(),
  refunds: fc.array(fc.record({ after: fc.integer({ min: 1, max: 40 * 86_400_000 }), share: fc.double({ min: 0.01, max: 1, noNaN: true }) }), { maxLength: 2 }),
});

const BUYER_ATTEMPT = { buyerName: '김구매', buyerEmail: 'buyer@example.com', buyerPhone: '01012345678', couponCode: null };
const vatOf = (amount: number) => Math.round(amount / 11);
const category = (method: PaymentMethod, receipt: string) =>
  method === 'transfer' || method === 'virtual_account' ? (receipt === 'issued' ? 'cash_receipt' : 'other') : 'card';

test('property: the report is the period\'s orders minus its refunds, per category and overall; 공급가액 + 세액 = 합계 everywhere', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(orderArb, { minLength: 1, maxLength: 6 }), async (orders) => {
      const s = await createTestStore(t);
      t.clock.set(SPAN_START);
      const p = await product(t, s, { price: 10_000 });
      const expected = Object.fromEntries(CATS.map((c) => [c, { sales: 0, salesCount: 0, refunds: 0, refundsCount: 0, vat: 0 }]));
      type Action = { at: number; run: () => Promise<void> };
      const actions: Action[] = [];
      for (const o of orders) {
        const paidAt = SPAN_START + o.paidOffset;
        const cat = category(o.method, o.receipt);
        const inQ3 = (at: number) => !o.live && at >= Q3.start && at < Q3.end;
        let orderId = '';
        actions.push({
          at: paidAt,
          run: async () => {
            orderId = await insertPaidOrder(t, s.storeId, p.id, { amount: o.amount, method: o.method, mode: o.live ? 'live' : 'test', paidAt: new Date(paidAt) });
            if (o.receipt !== 'none' && (o.method === 'transfer' || o.method === 'virtual_account')) {
              const issued = o.receipt === 'issued' ? { type: '소득공제' as const, receiptKey: `rk_${orderId}`, issueNumber: 'T12345678', receiptUrl: null, amount: o.amount } : null;
              const asked = { ...BUYER_ATTEMPT, method: o.method, cashReceipt: { type: '소득공제' as const, identity: '01012345678', requestedBy: 'buyer' as const } };
              await t.db.transaction().execute((trx) => recordCashReceipt(trx, t.deps, { id: orderId, store_id: s.storeId, mode: o.live ? 'live' : 'test', amount: o.amount, status: 'paid' }, asked, issued, new Date(paidAt)));
            }
          },
        });
        if (inQ3(paidAt) && o.amount > 0) {
          expected[cat].sales += o.amount;
          expected[cat].salesCount += 1;
          expected[cat].vat += vatOf(o.amount);
        }
        // Refunds: not of 0원 orders, nor of 가상계좌 ones (those need the buyer's refund account), nor of live ones
        // (the live key path is another gateway); each takes a share of what is left, at its own later time.
        if (o.amount === 0 || o.method === 'virtual_account' || o.live) continue;
        let left = o.amount;
        let at = paidAt;
        for (const r of o.refunds) {
          const amount = Math.max(1, Math.min(left, Math.floor(left * r.share)));
          if (left <= 0) break;
          left -= amount;
          at += r.after;
          const when = at;
          actions.push({
            at: when,
            run: async () => {
              const res = await refund(t, s.key, orderId, { amount });
              assert.equal(res.statusCode, 200, res.body);
            },
          });
          if (inQ3(when)) {
            expected[cat].refunds -= amount;
            expected[cat].refundsCount += 1;
            expected[cat].vat -= vatOf(amount);
          }
        }
      }
      // In time order, as they would happen (a refund after its order; the order of an action's creation breaks ties).
      for (const a of actions.map((a, i) => ({ ...a, i })).sort((x, y) => x.at - y.at || x.i - y.i)) {
        t.clock.set(a.at);
        await a.run();
      }

      const r = (await ownerGet(t, s, '/admin/v1/tax/vat-report?mode=test&period=2026-Q3')).json();
      let total = 0;
      let vat = 0;
      for (const c of r.categories) {
        const e = expected[c.category];
        assert.deepEqual([c.sales.count, c.sales.total, c.refunds.count, c.refunds.total], [e.salesCount, e.sales, e.refundsCount, e.refunds], c.category);
        assert.equal(c.net.total, e.sales + e.refunds, c.category);
        assert.equal(c.net.vat, e.vat, c.category);
        for (const f of [c.sales, c.refunds, c.net]) assert.equal(f.supplyAmount + f.vat, f.total, c.category);
        total += e.sales + e.refunds;
        vat += e.vat;
      }
      assert.equal(r.overall.net.total, total);
      assert.equal(r.overall.net.vat, vat);
      assert.equal(r.overall.net.supplyAmount, total - vat);
      assert.equal(r.cardAndCashReceipt.net.total, expected.card.sales + expected.card.refunds + expected.cash_receipt.sales + expected.cash_receipt.refunds);
      assert.equal(r.months.reduce((a: number, m: any) => a + m.net.total, 0), total, 'the months add up to the period');
      // The drill-down's lines add up to the figures.
      const lines = (await ownerGet(t, s, '/admin/v1/tax/vat-report/lines?mode=test&period=2026-Q3&limit=100')).json();
      assert.equal(lines.total, r.overall.net.count);
      assert.equal(lines.data.reduce((a: number, l: any) => a + l.total, 0), total);
      assert.equal(lines.data.reduce((a: number, l: any) => a + l.vat, 0), vat);
    }),
    { numRuns: 12 },
  );
});
