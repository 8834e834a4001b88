import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { ApiError, validationError } from '../platform/errors';
import { newId } from '../platform/ids';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { Page } from '../platform/http/schemas';
import type { Mode } from '../platform/tables';
import { couponView, normalizeCouponCode } from './model';
import * as repo from './repo';
import type { CouponView, CreateCouponInput, UpdateCouponInput } from './schemas';
import { MESSAGES } from '../platform/messages';

// Seller-console use cases for coupons. Buyers redeem them on the payment page (src/checkout/complete.ts).

type Deps = Pick<AppDeps, 'db' | 'clock'>;

const time = (v: string | null | undefined) => (v === undefined ? undefined : v === null ? null : new Date(v));

function checkWindow(from: Date | null, until: Date | null): void {
  if (from && until && from >= until) throw validationError([{ field: 'validUntil', message: MESSAGES.coupons.validUntilBeforeFrom }]);
}

function checkValue(type: 'fixed' | 'percent', value: number): void {
  if (type === 'percent' && value > 100) throw validationError([{ field: 'discountValue', message: MESSAGES.coupons.percentOutOfRange }]);
}

/** Products a coupon is restricted to must be the store's own, in the coupon's mode. */
async function checkProducts(db: Db, storeId: string, mode: Mode, ids: string[] | null | undefined): Promise<void> {
  if (!ids || ids.length === 0) return;
  const found = await repo.productIdsOf(db, storeId, mode, ids);
  const known = new Set(found.map((r) => r.id));
  const missing = ids.map((id, i) => ({ id, i })).filter(({ id }) => !known.has(id));
  if (missing.length) throw validationError(missing.map(({ i }) => ({ field: `productIds.${i}`, message: MESSAGES.coupons.productNotInStore })));
}

export async function createCoupon(deps: Deps, storeId: string, input: CreateCouponInput): Promise<CouponView> {
  const code = normalizeCouponCode(input.code);
  const from = time(input.validFrom) ?? null;
  const until = time(input.validUntil) ?? null;
  checkValue(input.discountType, input.discountValue);
  checkWindow(from, until);
  await checkProducts(deps.db, storeId, input.mode, input.productIds);
  const now = deps.clock.now();
  const row = await repo.insertCoupon(deps.db, {
    id: newId('cpn', deps.clock),
    store_id: storeId,
    mode: input.mode,
    code,
    name: input.name,
    discount_type: input.discountType,
    discount_value: input.discountValue,
    valid_from: from,
    valid_until: until,
    max_redemptions: input.maxRedemptions ?? null,
    product_ids: input.productIds && input.productIds.length ? [...new Set(input.productIds)] : null,
    status: 'active',
    created_at: now,
    updated_at: now,
  });
  if (!row) throw new ApiError('COUPON_CODE_TAKEN');
  return couponView(row);
}

export async function getCoupon(deps: Deps, storeId: string, id: string): Promise<CouponView> {
  const c = await repo.findCoupon(deps.db, storeId, id);
  if (!c) throw new ApiError('COUPON_NOT_FOUND');
  return couponView(c);
}

export async function updateCoupon(deps: Deps, storeId: string, id: string, input: UpdateCouponInput): Promise<CouponView> {
  return deps.db.transaction().execute(async (trx) => {
    const cur = await repo.lockCoupon(trx, storeId, id);
    if (!cur) throw new ApiError('COUPON_NOT_FOUND');
    const from = input.validFrom !== undefined ? time(input.validFrom)! : cur.valid_from;
    const until = input.validUntil !== undefined ? time(input.validUntil)! : cur.valid_until;
    checkWindow(from, until);
    await checkProducts(trx, storeId, cur.mode, input.productIds);
    const productIds = input.productIds !== undefined ? (input.productIds && input.productIds.length ? [...new Set(input.productIds)] : null) : cur.product_ids;
    const row = await repo.updateCouponRow(trx, id, {
      name: input.name ?? cur.name,
      valid_from: from,
      valid_until: until,
      max_redemptions: input.maxRedemptions !== undefined ? input.maxRedemptions : cur.max_redemptions,
      product_ids: productIds,
      status: input.status ?? cur.status,
      updated_at: deps.clock.now(),
    });
    return couponView(row);
  });
}

export async function archiveCoupon(deps: Deps, storeId: string, id: string): Promise<CouponView> {
  const row = await repo.archiveCouponRow(deps.db, storeId, id, deps.clock.now());
  if (!row) throw new ApiError('COUPON_NOT_FOUND');
  return couponView(row);
}

export async function listCoupons(deps: Deps, storeId: string, q: { mode?: Mode } & PageParams): Promise<Page<CouponView>> {
  return listPage(
    q,
    () => repo.countCoupons(deps.db, storeId, q.mode),
    (offset, limit) => repo.pageCoupons(deps.db, storeId, q.mode, offset, limit),
    couponView,
  );
}
