import { sql, type Insertable } from 'kysely';
import type { Db } from '../db';
import { jsonb } from '../db';
import type { Mode } from '../platform/tables';
import type { CouponRow, ProductRow } from './model';
import type { CouponsTable, PlanRecord, ProductsTable } from './tables';

// Kysely only; every function takes the executor so a use case can compose them inside one transaction.

export function findProduct(db: Db, storeId: string, id: string, mode?: Mode): Promise<ProductRow | undefined> {
  let q = db.selectFrom('products').selectAll().where('id', '=', id).where('store_id', '=', storeId);
  if (mode) q = q.where('mode', '=', mode);
  return q.executeTakeFirst();
}

export function productsQuery(db: Db, storeId: string, f: { mode?: Mode; productIds?: string[] | null }) {
  let q = db.selectFrom('products').where('store_id', '=', storeId);
  if (f.mode) q = q.where('mode', '=', f.mode);
  if (f.productIds) q = q.where('id', 'in', f.productIds.length ? f.productIds : ['']);
  return q;
}

export async function countProducts(db: Db, storeId: string, f: { mode?: Mode; productIds?: string[] | null }): Promise<number> {
  const r = await productsQuery(db, storeId, f).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Newest first; the id breaks ties between rows created in the same millisecond. */
export function pageProducts(db: Db, storeId: string, f: { mode?: Mode; productIds?: string[] | null }, offset: number, limit: number): Promise<ProductRow[]> {
  return productsQuery(db, storeId, f).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}

export function insertProduct(db: Db, row: Omit<Insertable<ProductsTable>, 'plans'> & { plans: PlanRecord[] }): Promise<ProductRow> {
  return db
    .insertInto('products')
    .values({ ...row, plans: jsonb(row.plans) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The product's row, locked (FOR UPDATE) while an edit merges its input into it. */
export function lockProduct(trx: Db, storeId: string, id: string): Promise<ProductRow | undefined> {
  return trx.selectFrom('products').selectAll().where('id', '=', id).where('store_id', '=', storeId).forUpdate().executeTakeFirst();
}

/** Every editable column at once (the merged result of an edit). */
export function updateProductRow(trx: Db, id: string, patch: Omit<ProductRow, 'id' | 'store_id' | 'mode' | 'type' | 'created_at' | 'sold_count'>): Promise<ProductRow> {
  return trx
    .updateTable('products')
    .set({ ...patch, plans: jsonb(patch.plans) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function archiveProductRow(db: Db, storeId: string, id: string, now: Date): Promise<ProductRow | undefined> {
  return db
    .updateTable('products')
    .set({ status: 'archived', updated_at: now })
    .where('id', '=', id)
    .where('store_id', '=', storeId)
    .returningAll()
    .executeTakeFirst();
}

/** Which of `ids` are products of this store and mode. */
export function productIdsOf(db: Db, storeId: string, mode: Mode, ids: string[]): Promise<Array<{ id: string }>> {
  return db.selectFrom('products').select('id').where('store_id', '=', storeId).where('mode', '=', mode).where('id', 'in', ids).execute();
}

/**
 * Takes one unit of stock if any is left. The condition sits in the UPDATE itself, so two buyers of the last unit
 * cannot both get it: the second update waits on the row lock, re-reads sold_count and matches nothing.
 */
export async function reserveStock(trx: Db, productId: string): Promise<boolean> {
  const r = await trx
    .updateTable('products')
    .set({ sold_count: sql`sold_count + 1` })
    .where('id', '=', productId)
    .where((eb) => eb.or([eb('stock', 'is', null), eb('sold_count', '<', eb.ref('stock'))]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function releaseStock(trx: Db, productId: string): Promise<void> {
  await trx.updateTable('products').set({ sold_count: sql`greatest(sold_count - 1, 0)` }).where('id', '=', productId).execute();
}

// ---------- coupons ----------

export function findCoupon(db: Db, storeId: string, id: string): Promise<CouponRow | undefined> {
  return db.selectFrom('coupons').selectAll().where('id', '=', id).where('store_id', '=', storeId).executeTakeFirst();
}

/** `code` must already be normalized (upper-case). */
export function findCouponByCode(db: Db, storeId: string, mode: Mode, code: string): Promise<CouponRow | undefined> {
  return db.selectFrom('coupons').selectAll().where('store_id', '=', storeId).where('mode', '=', mode).where('code', '=', code).executeTakeFirst();
}

/** Same pattern as stock: the usage limit is enforced by the UPDATE's condition. */
export async function reserveCoupon(trx: Db, couponId: string): Promise<boolean> {
  const r = await trx
    .updateTable('coupons')
    .set({ redeemed_count: sql`redeemed_count + 1` })
    .where('id', '=', couponId)
    .where((eb) => eb.or([eb('max_redemptions', 'is', null), eb('redeemed_count', '<', eb.ref('max_redemptions'))]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function releaseCoupon(trx: Db, couponId: string): Promise<void> {
  await trx.updateTable('coupons').set({ redeemed_count: sql`greatest(redeemed_count - 1, 0)` }).where('id', '=', couponId).execute();
}

/** The store's active coupons of a mode (the payment page asks whether any could apply before it offers the field). */
export function activeCoupons(db: Db, storeId: string, mode: Mode): Promise<CouponRow[]> {
  return db.selectFrom('coupons').selectAll().where('store_id', '=', storeId).where('mode', '=', mode).where('status', '=', 'active').execute();
}

export function couponsQuery(db: Db, storeId: string, mode?: Mode) {
  let q = db.selectFrom('coupons').where('store_id', '=', storeId);
  if (mode) q = q.where('mode', '=', mode);
  return q;
}

export async function countCoupons(db: Db, storeId: string, mode?: Mode): Promise<number> {
  return Number((await couponsQuery(db, storeId, mode).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** Newest first; the id breaks ties between rows created in the same millisecond. */
export function pageCoupons(db: Db, storeId: string, mode: Mode | undefined, offset: number, limit: number): Promise<Array<CouponRow>> {
  return couponsQuery(db, storeId, mode).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}

/** A new coupon; undefined when the store already has this code in this mode (the unique key, no error raised). */
export function insertCoupon(db: Db, row: Omit<Insertable<CouponsTable>, 'product_ids'> & { product_ids: string[] | null }): Promise<CouponRow | undefined> {
  return db
    .insertInto('coupons')
    .values({ ...row, product_ids: jsonb(row.product_ids) })
    .onConflict((oc) => oc.columns(['store_id', 'mode', 'code']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** The coupon's row, locked (FOR UPDATE) while an edit merges its input into it. */
export function lockCoupon(trx: Db, storeId: string, id: string): Promise<CouponRow | undefined> {
  return trx.selectFrom('coupons').selectAll().where('id', '=', id).where('store_id', '=', storeId).forUpdate().executeTakeFirst();
}

export function updateCouponRow(
  trx: Db,
  id: string,
  set: Pick<CouponRow, 'name' | 'valid_from' | 'valid_until' | 'max_redemptions' | 'product_ids' | 'status' | 'updated_at'>,
): Promise<CouponRow> {
  return trx
    .updateTable('coupons')
    .set({ ...set, product_ids: jsonb(set.product_ids) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function archiveCouponRow(db: Db, storeId: string, id: string, now: Date): Promise<CouponRow | undefined> {
  return db
    .updateTable('coupons')
    .set({ status: 'archived', updated_at: now })
    .where('id', '=', id)
    .where('store_id', '=', storeId)
    .returningAll()
    .executeTakeFirst();
}
