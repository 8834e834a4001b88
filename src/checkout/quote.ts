import type { Db } from '../db';
import { couponDiscount, couponRefusal, normalizeCouponCode, type CouponRow } from '../catalog/model';
import { activeCoupons, findCouponByCode } from '../catalog/repo';
import type { OrderCoupon } from '../orders/tables';
import type { SessionRow } from './model';
import { MESSAGES } from '../platform/messages';

export type Quote =
  | { ok: true; originalAmount: number; discount: number; amount: number; coupon: OrderCoupon | null; couponRow: CouponRow | null }
  | { ok: false; message: string };

/**
 * What the buyer pays for a session with an optional coupon code: the session's list price less the coupon's
 * discount (see couponDiscount for the rounding); 0 for a free-trial session. Used to show the price on the page and again, under the
 * session's lock, when the payment starts, so the amount charged is the amount shown unless the coupon changed.
 */
export async function quote(db: Db, s: Pick<SessionRow, 'store_id' | 'mode' | 'product_id' | 'amount' | 'trial_days'>, couponCode: string | null, now: Date): Promise<Quote> {
  const code = couponCode ? normalizeCouponCode(couponCode) : '';
  // A free trial charges nothing now (the card is registered for the first charge at the trial's end): no coupon.
  if (s.trial_days) return code ? { ok: false, message: MESSAGES.checkout.trialNoCoupon } : { ok: true, originalAmount: s.amount, discount: 0, amount: 0, coupon: null, couponRow: null };
  if (!code) return { ok: true, originalAmount: s.amount, discount: 0, amount: s.amount, coupon: null, couponRow: null };
  const c = await findCouponByCode(db, s.store_id, s.mode, code);
  if (!c) return { ok: false, message: MESSAGES.coupons.unknownCode };
  const why = couponRefusal(c, s.product_id, now);
  if (why) return { ok: false, message: why };
  const discount = couponDiscount(c, s.amount);
  return {
    ok: true,
    originalAmount: s.amount,
    discount,
    amount: s.amount - discount,
    coupon: { code: c.code, name: c.name, discountAmount: discount, originalAmount: s.amount, currency: 'KRW' },
    couponRow: c,
  };
}

/**
 * Whether any coupon could apply to this session while it is open: the page offers no coupon field where none can (a
 * free trial charges nothing now; a store without a usable coupon for the product). The quote still refuses a code.
 */
export async function couponCanApply(db: Db, s: Pick<SessionRow, 'store_id' | 'mode' | 'product_id' | 'trial_days' | 'expires_at'>, now: Date): Promise<boolean> {
  if (s.trial_days) return false;
  const coupons = await activeCoupons(db, s.store_id, s.mode);
  return coupons.some((c) => {
    const why = couponRefusal(c, s.product_id, now);
    // One that starts before the page closes counts: the buyer may apply it then.
    return why === null || (why === MESSAGES.coupons.notYetValid && !!c.valid_from && c.valid_from < s.expires_at && couponRefusal(c, s.product_id, c.valid_from) === null);
  });
}
