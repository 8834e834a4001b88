import { sql, type Insertable } from 'kysely';
import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import type { PaymentProviderName } from '../payments/provider';
import type { ReconciliationDifferencesTable, ReconciliationSettlementsTable, ReconciliationsTable, ReconciliationStatus } from './tables';

// reconciliations and reconciliation_differences, plus the reads of our own orders and refunds a run compares.
// Every function takes the executor, so a use case can compose them in one transaction.

export async function insertReconciliation(db: Db, row: Insertable<ReconciliationsTable>): Promise<void> {
  await db.insertInto('reconciliations').values(row).execute();
}

export function findReconciliation(db: Db, storeId: string, id: string) {
  return db.selectFrom('reconciliations').selectAll().where('id', '=', id).where('store_id', '=', storeId).executeTakeFirst();
}

export function findReconciliationById(db: Db, id: string) {
  return db.selectFrom('reconciliations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function runningFor(db: Db, storeId: string, mode: Mode, day: string): Promise<string | null> {
  const r = await db
    .selectFrom('reconciliations')
    .select('id')
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('day', '=', day)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return r?.id ?? null;
}

export async function jobRunExists(db: Db, storeId: string, mode: Mode, day: string): Promise<boolean> {
  const r = await db
    .selectFrom('reconciliations')
    .select('id')
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('day', '=', day)
    .where('source', '=', 'job')
    .executeTakeFirst();
  return !!r;
}

export async function finishReconciliation(
  db: Db,
  id: string,
  patch: { status: Exclude<ReconciliationStatus, 'running'>; gateway_transactions: number; difference_count: number; failure_code: string | null; failure_message: string | null; completed_at: Date },
): Promise<boolean> {
  const r = await db.updateTable('reconciliations').set(patch).where('id', '=', id).where('status', '=', 'running').executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function insertDifferences(db: Db, rows: Insertable<ReconciliationDifferencesTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) await db.insertInto('reconciliation_differences').values(rows.slice(i, i + 500)).execute();
}

/** Toss's settlement records read with a run (migration 069), and whether they could be read. */
export async function recordSettlements(
  db: Db,
  id: string,
  status: 'read' | 'unavailable',
  failure: string | null,
  rows: Insertable<ReconciliationSettlementsTable>[],
): Promise<void> {
  await db.updateTable('reconciliations').set({ settlements_status: status, settlements_failure: failure }).where('id', '=', id).execute();
  for (let i = 0; i < rows.length; i += 500) await db.insertInto('reconciliation_settlements').values(rows.slice(i, i + 500)).execute();
}

export function settlementsOf(db: Db, id: string) {
  return db.selectFrom('reconciliation_settlements').selectAll().where('reconciliation_id', '=', id).orderBy('seq').execute();
}

export function differencesOf(db: Db, id: string) {
  return db.selectFrom('reconciliation_differences').selectAll().where('reconciliation_id', '=', id).orderBy('seq').execute();
}

function listQuery(db: Db, storeId: string, mode: Mode | undefined) {
  let q = db.selectFrom('reconciliations').where('store_id', '=', storeId);
  if (mode) q = q.where('mode', '=', mode);
  return q;
}

export async function countReconciliations(db: Db, storeId: string, mode: Mode | undefined): Promise<number> {
  return Number((await listQuery(db, storeId, mode).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
}

export function pageReconciliations(db: Db, storeId: string, mode: Mode | undefined, offset: number, limit: number) {
  return listQuery(db, storeId, mode).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}

/**
 * Store modes whose payments go through one of `providers` with its (first) secret set: what the daily run
 * reconciles. Toss's secret key, or PortOne's API secret (issue 42); a mode holds only its own provider's.
 */
export function dailyReconciledStoreModes(db: Db, providers: readonly PaymentProviderName[]) {
  if (providers.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('store_mode_settings')
    .select(['store_id', 'mode'])
    .where('payment_provider', 'in', providers)
    .where((eb) => eb.or([eb('toss_secret_key_sealed', 'is not', null), eb('portone_api_secret_sealed', 'is not', null)]))
    .orderBy('store_id')
    .orderBy('mode')
    .execute();
}

export interface OurPayment {
  id: string;
  /**
   * What the gateway's ledger should show: the won amount, or for a PayPal order the US cents charged (Toss lists
   * PayPal's transactions in USD; the adapter reads them in cents).
   */
  amount: number;
  status: string;
  paid_at: Date | null;
  provider_payment_key: string | null;
}

/** Our orders paid through `provider` (the gateway whose ledger is compared) in [from, to] (a KST day). */
export function paidInRange(db: Db, storeId: string, mode: Mode, from: Date, to: Date, provider: PaymentProviderName): Promise<OurPayment[]> {
  return db
    .selectFrom('orders')
    .select((eb) => ['id', eb.fn.coalesce('presentment_amount', 'amount').as('amount'), 'status', 'paid_at', 'provider_payment_key'])
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('provider', '=', provider)
    .where('provider_payment_key', 'is not', null)
    .where('paid_at', '>=', from)
    .where('paid_at', '<=', to)
    .execute();
}

/**
 * The gateways that took our money or gave it back in [from, to]: each order names the rail it was paid on, which a
 * later switch of the mode's provider does not change, so a day is compared with each of their ledgers.
 */
export async function providersInRange(db: Db, storeId: string, mode: Mode, from: Date, to: Date): Promise<PaymentProviderName[]> {
  const paid = await db
    .selectFrom('orders')
    .select('provider')
    .distinct()
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('provider_payment_key', 'is not', null)
    .where('paid_at', '>=', from)
    .where('paid_at', '<=', to)
    .execute();
  const refunded = await db
    .selectFrom('order_refunds as r')
    .innerJoin('orders as o', 'o.id', 'r.order_id')
    .select('o.provider')
    .distinct()
    .where('r.store_id', '=', storeId)
    .where('r.mode', '=', mode)
    .where('r.status', '=', 'succeeded')
    .where('r.refunded_at', '>=', from)
    .where('r.refunded_at', '<=', to)
    .execute();
  return [...new Set([...paid, ...refunded].map((r) => r.provider))];
}

/** Our orders (any day) holding one of these payment keys or order ids: how a gateway transaction finds its order. */
export async function ordersByKeysOrIds(db: Db, storeId: string, mode: Mode, paymentKeys: string[], orderIds: string[]): Promise<OurPayment[]> {
  if (paymentKeys.length === 0 && orderIds.length === 0) return [];
  const out: OurPayment[] = [];
  for (let i = 0; i < Math.max(paymentKeys.length, orderIds.length); i += 500) {
    const keys = paymentKeys.slice(i, i + 500);
    const ids = orderIds.slice(i, i + 500);
    const rows = await db
      .selectFrom('orders')
      .select((eb) => ['id', eb.fn.coalesce('presentment_amount', 'amount').as('amount'), 'status', 'paid_at', 'provider_payment_key'])
      .where('store_id', '=', storeId)
      .where('mode', '=', mode)
      .where((eb) => eb.or([...(keys.length ? [eb('provider_payment_key', 'in', keys)] : []), ...(ids.length ? [eb('id', 'in', ids)] : [])]))
      .execute();
    out.push(...rows);
  }
  return out;
}

/** Our succeeded refunds of orders paid through `provider`, refunded in [from, to], with the payment key they canceled. */
export function refundsInRange(db: Db, storeId: string, mode: Mode, from: Date, to: Date, provider: PaymentProviderName) {
  return db
    .selectFrom('order_refunds as r')
    .innerJoin('orders as o', 'o.id', 'r.order_id')
    // PayPal refunds: the US cents canceled at the gateway (what its cancel transactions show).
    .select((eb) => ['r.order_id', eb.fn.coalesce('r.presentment_amount', 'r.amount').as('amount'), 'o.provider_payment_key'])
    .where('r.store_id', '=', storeId)
    .where('r.mode', '=', mode)
    .where('o.provider', '=', provider)
    .where('r.status', '=', 'succeeded')
    .where('r.refunded_at', '>=', from)
    .where('r.refunded_at', '<=', to)
    .execute();
}
