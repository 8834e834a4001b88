import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db';
import type { StoreBusinessDetailsTable } from './tables';

export type BusinessDetailsRow = Selectable<StoreBusinessDetailsTable>;

export function findBusinessDetails(db: Db, storeId: string): Promise<BusinessDetailsRow | undefined> {
  return db.selectFrom('store_business_details').selectAll().where('store_id', '=', storeId).executeTakeFirst();
}

/** Insert or replace the store's one row (the console sends the whole set every time). */
export async function upsertBusinessDetails(db: Db, row: Insertable<StoreBusinessDetailsTable>): Promise<BusinessDetailsRow> {
  const { store_id: _id, ...rest } = row;
  return db
    .insertInto('store_business_details')
    .values(row)
    .onConflict((oc) => oc.column('store_id').doUpdateSet(rest))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The business details of the store an order belongs to (the receipt page knows the order, not the store). */
export function findBusinessDetailsByOrder(db: Db, orderId: string): Promise<BusinessDetailsRow | undefined> {
  return db
    .selectFrom('store_business_details as b')
    .innerJoin('orders as o', 'o.store_id', 'b.store_id')
    .selectAll('b')
    .where('o.id', '=', orderId)
    .executeTakeFirst();
}
