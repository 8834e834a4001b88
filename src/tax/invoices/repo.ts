import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db';
import type { Mode } from '../../platform/tables';
import type { OrderRow } from '../../orders/model';
import type { TaxInvoicesTable } from './tables';

// The queries of 세금계산서 (src/tax/invoices/service.ts); writes run on the caller's transaction.

export type TaxInvoiceRow = Selectable<TaxInvoicesTable>;

export function lockOrder(trx: Db, orderId: string): Promise<OrderRow | undefined> {
  return trx.selectFrom('orders').selectAll().where('id', '=', orderId).forUpdate().executeTakeFirst();
}

export function findOrder(db: Db, orderId: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
}

/** Whether the order has a 현금영수증 (asked, issued, or a seller's), in any state. */
export async function hasCashReceipt(db: Db, orderId: string): Promise<boolean> {
  return !!(await db.selectFrom('order_cash_receipts').select('order_id').where('order_id', '=', orderId).executeTakeFirst());
}

export function findOriginal(db: Db, orderId: string): Promise<TaxInvoiceRow | undefined> {
  return db.selectFrom('tax_invoices').selectAll().where('order_id', '=', orderId).where('kind', '=', 'original').executeTakeFirst();
}

export function lockInvoice(trx: Db, id: string): Promise<TaxInvoiceRow | undefined> {
  return trx.selectFrom('tax_invoices').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function findInvoice(db: Db, id: string): Promise<TaxInvoiceRow | undefined> {
  return db.selectFrom('tax_invoices').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listForOrder(db: Db, orderId: string): Promise<TaxInvoiceRow[]> {
  return db.selectFrom('tax_invoices').selectAll().where('order_id', '=', orderId).orderBy('created_at').orderBy('id').execute();
}

export function insertInvoice(trx: Db, row: Insertable<TaxInvoicesTable>): Promise<TaxInvoiceRow> {
  return trx.insertInto('tax_invoices').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateInvoice(trx: Db, id: string, patch: Updateable<TaxInvoicesTable>): Promise<TaxInvoiceRow> {
  return trx.updateTable('tax_invoices').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** What the original's amendments already took off (their totals are negative), counting those not refused. */
export async function amendedTotal(db: Db, originalId: string): Promise<number> {
  const r = await db
    .selectFrom('tax_invoices')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('total_amount'), eb.val(0)).as('sum'))
    .where('original_id', '=', originalId)
    .where('status', 'in', ['issuing', 'issued'])
    .executeTakeFirstOrThrow();
  return Number(r.sum);
}

/** A store's invoices of one mode, newest first, optionally of one status. */
export function listInvoices(db: Db, storeId: string, mode: Mode, status: string | undefined, offset: number, limit: number) {
  let q = db.selectFrom('tax_invoices').selectAll().where('store_id', '=', storeId).where('mode', '=', mode);
  if (status) q = q.where('status', '=', status as TaxInvoiceRow['status']);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}

export async function countInvoices(db: Db, storeId: string, mode: Mode, status: string | undefined): Promise<number> {
  let q = db.selectFrom('tax_invoices').select((eb) => eb.fn.countAll<string>().as('n')).where('store_id', '=', storeId).where('mode', '=', mode);
  if (status) q = q.where('status', '=', status as TaxInvoiceRow['status']);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/** The supplier: the store's business details (상호, 대표자, 사업자등록번호, 주소, e-mail). */
export function findSupplier(db: Db, storeId: string) {
  return db.selectFrom('store_business_details').select(['company_name', 'representative', 'business_number', 'address', 'support_email']).where('store_id', '=', storeId).executeTakeFirst();
}

export async function issueSetting(db: Db, storeId: string): Promise<'manual' | 'auto'> {
  const r = await db.selectFrom('stores').select('tax_invoice_issue').where('id', '=', storeId).executeTakeFirst();
  return r?.tax_invoice_issue ?? 'manual';
}

export async function setIssueSetting(db: Db, storeId: string, value: 'manual' | 'auto', now: Date): Promise<void> {
  await db.updateTable('stores').set({ tax_invoice_issue: value, updated_at: now }).where('id', '=', storeId).execute();
}
