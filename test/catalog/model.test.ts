import { test } from 'node:test';
import assert from 'node:assert/strict';
import { couponDiscount, couponRefusal, isSoldOut, normalizeCouponCode, priceFor, saleWindowState } from '../../src/catalog/model';

const T = (s: string) => new Date(s);

test('fixed coupons take their value off, never more than the amount', () => {
  assert.equal(couponDiscount({ discount_type: 'fixed', discount_value: 1_000 }, 15_000), 1_000);
  assert.equal(couponDiscount({ discount_type: 'fixed', discount_value: 20_000 }, 15_000), 15_000);
  assert.equal(couponDiscount({ discount_type: 'fixed', discount_value: 1_000 }, 0), 0);
});

test('percent coupons round the discount down to the won and never exceed the amount', () => {
  assert.equal(couponDiscount({ discount_type: 'percent', discount_value: 10 }, 15_000), 1_500);
  assert.equal(couponDiscount({ discount_type: 'percent', discount_value: 15 }, 9_999), 1_499); // 1,499.85
  assert.equal(couponDiscount({ discount_type: 'percent', discount_value: 33 }, 100), 33);
  assert.equal(couponDiscount({ discount_type: 'percent', discount_value: 50 }, 1), 0); // 0.5 → 0
  assert.equal(couponDiscount({ discount_type: 'percent', discount_value: 100 }, 9_900), 9_900);
  for (let amount = 0; amount < 3000; amount += 7) {
    for (const pct of [1, 7, 33, 99, 100]) {
      const d = couponDiscount({ discount_type: 'percent', discount_value: pct }, amount);
      assert.ok(Number.isInteger(d) && d >= 0 && d <= amount && amount - d >= 0);
      assert.ok(d <= (amount * pct) / 100 && d > (amount * pct) / 100 - 1);
    }
  }
});

test('coupon usability: status, window (start inclusive, end exclusive), product restriction, usage limit', () => {
  const base = { status: 'active' as const, valid_from: T('2026-11-01T00:00:00Z'), valid_until: T('2026-12-01T00:00:00Z'), max_redemptions: 2, redeemed_count: 1, product_ids: ['p1'] };
  const now = T('2026-11-15T00:00:00Z');
  assert.equal(couponRefusal(base, 'p1', now), null);
  assert.match(couponRefusal({ ...base, status: 'archived' }, 'p1', now)!, /사용할 수 없는/);
  assert.equal(couponRefusal(base, 'p1', T('2026-11-01T00:00:00Z')), null);
  assert.match(couponRefusal(base, 'p1', T('2026-10-31T23:59:59Z'))!, /시작되지 않은/);
  assert.match(couponRefusal(base, 'p1', T('2026-12-01T00:00:00Z'))!, /지난/);
  assert.match(couponRefusal(base, 'p2', now)!, /이 상품에는/);
  assert.equal(couponRefusal({ ...base, product_ids: null }, 'p2', now), null);
  assert.match(couponRefusal({ ...base, redeemed_count: 2 }, 'p1', now)!, /소진/);
  assert.equal(couponRefusal({ ...base, max_redemptions: null, redeemed_count: 1e6 }, 'p1', now), null);
  assert.equal(normalizeCouponCode('  welcome10 '), 'WELCOME10');
});

test('price: one-time price, or the plan price for the interval; planId and interval together for subscriptions only', () => {
  const one = { type: 'one_time' as const, price: 15_000, plans: [] };
  const sub = { type: 'subscription' as const, price: null, plans: [{ id: 'pro', name: 'Pro', monthlyPrice: 9_900, yearlyPrice: null }] };
  assert.deepEqual(priceFor(one, undefined, undefined), { ok: true, amount: 15_000, plan: null });
  assert.equal((priceFor(one, 'pro', undefined) as any).field, 'planId');
  assert.equal((priceFor(one, undefined, 'monthly') as any).field, 'interval');
  assert.equal((priceFor(sub, 'pro', 'monthly') as any).amount, 9_900);
  assert.equal((priceFor(sub, undefined, 'monthly') as any).field, 'planId');
  assert.equal((priceFor(sub, 'pro', undefined) as any).field, 'interval');
  assert.equal((priceFor(sub, 'nope', 'monthly') as any).field, 'planId');
  assert.equal((priceFor(sub, 'pro', 'yearly') as any).field, 'interval');
});

test('sale window and stock', () => {
  const w = { sale_starts_at: T('2026-11-01T00:00:00Z'), sale_ends_at: T('2026-11-02T00:00:00Z') };
  assert.equal(saleWindowState(w, T('2026-10-31T23:59:59.999Z')), 'not_started');
  assert.equal(saleWindowState(w, T('2026-11-01T00:00:00Z')), 'open');
  assert.equal(saleWindowState(w, T('2026-11-02T00:00:00Z')), 'ended');
  assert.equal(saleWindowState({ sale_starts_at: null, sale_ends_at: null }, T('2030-01-01T00:00:00Z')), 'open');
  assert.equal(isSoldOut({ stock: null, sold_count: 1e6 }), false);
  assert.equal(isSoldOut({ stock: 2, sold_count: 1 }), false);
  assert.equal(isSoldOut({ stock: 2, sold_count: 2 }), true);
});
