import type { Selectable } from 'kysely';
import type { CouponsTable, PlanRecord, ProductsTable } from './tables';
import type { CouponView, ProductView } from './schemas';
import { MESSAGES } from '../platform/messages';

export type ProductRow = Selectable<ProductsTable>;
export type CouponRow = Selectable<CouponsTable>;
export type Interval = 'monthly' | 'yearly';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function productView(p: ProductRow): ProductView {
  return {
    id: p.id,
    mode: p.mode,
    name: p.name,
    description: p.description,
    type: p.type,
    status: p.status,
    pricing: {
      currency: 'KRW',
      price: p.type === 'one_time' ? p.price : null,
      plans: p.plans.map((pl) => ({ id: pl.id, name: pl.name, monthlyPrice: pl.monthlyPrice, yearlyPrice: pl.yearlyPrice, trialDays: pl.trialDays ?? null, currency: 'KRW' as const })),
    },
    refundPolicy: {
      refundDays: p.refund_days,
      trialOffered: p.trial_offered,
      usageRestrictionMarked: p.usage_restriction_marked,
      clawbackDisclosed: p.clawback_disclosed,
      penaltyRate: p.penalty_rate,
    },
    saleStartsAt: iso(p.sale_starts_at),
    saleEndsAt: iso(p.sale_ends_at),
    stock: p.stock,
    soldCount: p.sold_count,
    license: { mode: p.license_mode, maxActivations: p.license_max_activations, validityDays: p.license_validity_days },
    createdAt: p.created_at.toISOString(),
    updatedAt: p.updated_at.toISOString(),
  };
}

export function couponView(c: CouponRow): CouponView {
  return {
    id: c.id,
    mode: c.mode,
    code: c.code,
    name: c.name,
    discountType: c.discount_type,
    discountValue: c.discount_value,
    currency: 'KRW',
    validFrom: iso(c.valid_from),
    validUntil: iso(c.valid_until),
    maxRedemptions: c.max_redemptions,
    redeemedCount: c.redeemed_count,
    productIds: c.product_ids,
    status: c.status,
    createdAt: c.created_at.toISOString(),
    updatedAt: c.updated_at.toISOString(),
  };
}

// ---------- sale rules ----------

/** Where the product's sale window stands at `now`. Start is inclusive, end exclusive. */
export function saleWindowState(p: Pick<ProductRow, 'sale_starts_at' | 'sale_ends_at'>, now: Date): 'open' | 'not_started' | 'ended' {
  if (p.sale_starts_at && now < p.sale_starts_at) return 'not_started';
  if (p.sale_ends_at && now >= p.sale_ends_at) return 'ended';
  return 'open';
}

/** sold_count includes units held by payments in progress, so this is also what the reservation update enforces. */
export function isSoldOut(p: Pick<ProductRow, 'stock' | 'sold_count'>): boolean {
  return p.stock !== null && p.sold_count >= p.stock;
}

export type PriceChoice = { ok: true; amount: number; plan: PlanRecord | null } | { ok: false; field: 'planId' | 'interval'; message: string };

/**
 * The list price for a checkout: a one-time product's price, or the chosen plan's price for the interval.
 * Subscriptions need both `planId` and `interval`; one-time products take neither.
 */
export function priceFor(p: Pick<ProductRow, 'type' | 'price' | 'plans'>, planId: string | undefined, interval: Interval | undefined): PriceChoice {
  if (p.type === 'one_time') {
    if (planId !== undefined) return { ok: false, field: 'planId', message: MESSAGES.catalog.oneTimeNoPlanId };
    if (interval !== undefined) return { ok: false, field: 'interval', message: MESSAGES.catalog.oneTimeNoInterval };
    return { ok: true, amount: p.price ?? 0, plan: null };
  }
  if (planId === undefined) return { ok: false, field: 'planId', message: MESSAGES.catalog.subscriptionNeedsPlanAndInterval };
  if (interval === undefined) return { ok: false, field: 'interval', message: MESSAGES.catalog.subscriptionNeedsPlanAndInterval };
  const plan = p.plans.find((pl) => pl.id === planId);
  if (!plan) return { ok: false, field: 'planId', message: MESSAGES.catalog.unknownPlanId };
  const amount = interval === 'monthly' ? plan.monthlyPrice : plan.yearlyPrice;
  if (amount === null) return { ok: false, field: 'interval', message: MESSAGES.catalog.intervalNotOffered };
  return { ok: true, amount, plan };
}

// ---------- coupons ----------

/** Coupon codes are case-insensitive: stored and compared upper-case, surrounding spaces ignored. */
export function normalizeCouponCode(code: string): string {
  return code.trim().toUpperCase();
}

/**
 * The discount a coupon gives on `amount` (integer won).
 * - fixed: the coupon's value, but never more than the amount (the buyer never pays below 0);
 * - percent: floor(amount × percent / 100): rounded DOWN to the won, so rounding favours the seller by under 1 won
 *   and the buyer always pays an integer amount; 100% gives the whole amount.
 */
export function couponDiscount(c: Pick<CouponRow, 'discount_type' | 'discount_value'>, amount: number): number {
  if (amount <= 0) return 0;
  const raw = c.discount_type === 'fixed' ? c.discount_value : Math.floor((amount * Math.min(c.discount_value, 100)) / 100);
  return Math.max(0, Math.min(raw, amount));
}

/** Why a coupon cannot be used for this product now (Korean, for the buyer), or null when it can. */
export function couponRefusal(
  c: Pick<CouponRow, 'status' | 'valid_from' | 'valid_until' | 'max_redemptions' | 'redeemed_count' | 'product_ids'>,
  productId: string,
  now: Date,
): string | null {
  if (c.status !== 'active') return MESSAGES.coupons.inactive;
  if (c.valid_from && now < c.valid_from) return MESSAGES.coupons.notYetValid;
  if (c.valid_until && now >= c.valid_until) return MESSAGES.coupons.expired;
  if (c.product_ids && !c.product_ids.includes(productId)) return MESSAGES.coupons.notForProduct;
  if (c.max_redemptions !== null && c.redeemed_count >= c.max_redemptions) return MESSAGES.coupons.exhausted;
  return null;
}
