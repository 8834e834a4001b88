import type { Insertable, Selectable, SelectQueryBuilder } from 'kysely';
import { keptRowCount } from '../db/row-counts';
import type { Db, DB } from '../db';
import { compiledQuery } from '../db/compiled';
import type { Mode } from '../platform/tables';
import type { LicenseActivationsTable, LicenseIssueAttemptsTable, LicensesTable } from './tables';

// Kysely queries of the licenses module. Every function takes the executor, so a use case can compose them in one
// transaction (pass `trx`) or run them alone (pass `db`).

export type LicenseRow = Selectable<LicensesTable>;
export type LicenseWithProduct = LicenseRow & { product_name: string };
export type ActivationRow = Selectable<LicenseActivationsTable>;
export type IssueAttemptRow = Selectable<LicenseIssueAttemptsTable>;

export interface LicenseFilter {
  storeId: string;
  mode?: Mode;
  /** A product-restricted API key: only these products (null = all). */
  productIds?: string[] | null;
  productId?: string;
  orderId?: string;
  /** The dashboard's search by key: the key's keyed hash (`hashLicenseKey`), never the key itself. */
  keyHash?: string;
  /** Exact, case-insensitive. */
  buyerEmail?: string;
}

function filtered<O>(q: SelectQueryBuilder<DB, 'licenses' | 'products', O>, f: LicenseFilter) {
  let out = q.where('licenses.store_id', '=', f.storeId);
  if (f.mode) out = out.where('licenses.mode', '=', f.mode);
  if (f.productIds) out = f.productIds.length ? out.where('licenses.product_id', 'in', f.productIds) : out.where((eb) => eb.val(false));
  if (f.productId) out = out.where('licenses.product_id', '=', f.productId);
  if (f.orderId) out = out.where('licenses.order_id', '=', f.orderId);
  if (f.keyHash) out = out.where('licenses.key_hash', '=', f.keyHash);
  if (f.buyerEmail) out = out.where((eb) => eb(eb.fn('lower', ['licenses.buyer_email']), '=', f.buyerEmail!.toLowerCase()));
  return out;
}

const withProduct = (db: Db) => db.selectFrom('licenses').innerJoin('products', 'products.id', 'licenses.product_id');

export async function countLicenses(db: Db, f: LicenseFilter): Promise<number> {
  // Every license names a product (a foreign key), so the join drops none: the kept count is the same number.
  if (!f.productIds && !f.productId && !f.orderId && !f.keyHash && !f.buyerEmail) return keptRowCount(db, 'licenses', f.storeId, f.mode);
  const r = await filtered(withProduct(db).select((eb) => eb.fn.countAll<number>().as('n')), f).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Newest first (issue time, then id), the contract's list order. */
export async function listLicenses(db: Db, f: LicenseFilter, offset: number, limit: number): Promise<LicenseWithProduct[]> {
  return filtered(withProduct(db).selectAll('licenses').select('products.name as product_name'), f)
    .orderBy('licenses.issued_at', 'desc')
    .orderBy('licenses.id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
}

export async function findLicense(db: Db, f: LicenseFilter, id: string): Promise<LicenseWithProduct | undefined> {
  return filtered(withProduct(db).selectAll('licenses').select('products.name as product_name'), f).where('licenses.id', '=', id).executeTakeFirst();
}

export async function lockLicense(trx: Db, storeId: string, id: string): Promise<LicenseRow | undefined> {
  return trx.selectFrom('licenses').selectAll().where('id', '=', id).where('store_id', '=', storeId).forUpdate().executeTakeFirst();
}

/** Revokes the license (final: it answers `revoked` from now on). */
export async function markLicenseRevoked(trx: Db, id: string, reason: string | null, now: Date): Promise<void> {
  await trx.updateTable('licenses').set({ status: 'revoked', revoked_at: now, revoke_reason: reason, updated_at: now }).where('id', '=', id).execute();
}

/**
 * The app API's lookup: one probe of the unique (key_hash, product_id) index. Only service-issued licenses: the
 * contract says keys issued by a seller-side integration have no record here and cannot be verified here, so a
 * seller-issued license (kept for server reads and the console) is not found by the app API.
 */
export async function findByKey(db: Db, keyHash: string, productId: string, opts: { forUpdate?: boolean } = {}): Promise<LicenseRow | undefined> {
  let q = db.selectFrom('licenses').selectAll().where('key_hash', '=', keyHash).where('product_id', '=', productId).where('issuer', '=', 'service');
  if (opts.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/**
 * The lookup and the live activation count in one round trip, for reads that lock nothing (verify). Under a lock
 * (activate, deactivate) count separately after the lock is held, so the count sees every committed activation.
 */
const byKeyWithCount = compiledQuery((db: Db, keyHash: string, productId: string) =>
  db
    .selectFrom('licenses')
    .selectAll('licenses')
    .select((eb) =>
      eb
        .selectFrom('license_activations')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('license_activations.license_id', '=', 'licenses.id')
        .where('license_activations.deactivated_at', 'is', null)
        .as('active_count'),
    )
    .where('key_hash', '=', keyHash)
    .where('product_id', '=', productId)
    .where('issuer', '=', 'service'), // as findByKey: seller-issued keys are not verified here
);

export async function findByKeyWithCount(db: Db, keyHash: string, productId: string): Promise<(LicenseRow & { active_count: number }) | undefined> {
  const [row] = await byKeyWithCount(db, keyHash, productId);
  return row ? { ...row, active_count: Number(row.active_count ?? 0) } : undefined;
}

export async function productMode(db: Db, productId: string): Promise<Mode | null> {
  const r = await db.selectFrom('products').select('mode').where('id', '=', productId).executeTakeFirst();
  return r?.mode ?? null;
}

export async function keyTaken(db: Db, keyHash: string, productId: string): Promise<boolean> {
  const r = await db.selectFrom('licenses').select('id').where('key_hash', '=', keyHash).where('product_id', '=', productId).executeTakeFirst();
  return !!r;
}

export async function insertLicense(db: Db, row: Insertable<LicensesTable>): Promise<void> {
  await db.insertInto('licenses').values(row).execute();
}

// ---------- activations ----------

export async function countActiveActivations(db: Db, licenseId: string): Promise<number> {
  const r = await db
    .selectFrom('license_activations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('license_id', '=', licenseId)
    .where('deactivated_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function insertActivation(db: Db, row: Insertable<LicenseActivationsTable>): Promise<ActivationRow> {
  return db.insertInto('license_activations').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findActivation(db: Db, licenseId: string, activationId: string): Promise<ActivationRow | undefined> {
  return db.selectFrom('license_activations').selectAll().where('id', '=', activationId).where('license_id', '=', licenseId).executeTakeFirst();
}

/** Records a verify on a live activation; a deactivated one is left as it is (undefined). */
export async function touchActivation(db: Db, licenseId: string, activationId: string, now: Date): Promise<ActivationRow | undefined> {
  return db
    .updateTable('license_activations')
    .set({ last_verified_at: now })
    .where('id', '=', activationId)
    .where('license_id', '=', licenseId)
    .where('deactivated_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function deactivateActivation(db: Db, licenseId: string, activationId: string, now: Date): Promise<ActivationRow | undefined> {
  return db
    .updateTable('license_activations')
    .set({ deactivated_at: now })
    .where('id', '=', activationId)
    .where('license_id', '=', licenseId)
    .where('deactivated_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function activationsFor(db: Db, licenseIds: string[]): Promise<ActivationRow[]> {
  if (licenseIds.length === 0) return [];
  return db.selectFrom('license_activations').selectAll().where('license_id', 'in', licenseIds).orderBy('activated_at').orderBy('id').execute();
}

// ---------- seller-side issuance ----------

export async function insertIssueAttempt(db: Db, row: Insertable<LicenseIssueAttemptsTable>): Promise<void> {
  await db.insertInto('license_issue_attempts').values(row).execute();
}

/** The latest `perLicense` attempts of each license, newest first. */
export async function issueAttemptsFor(db: Db, licenseIds: string[], perLicense = 20): Promise<IssueAttemptRow[]> {
  if (licenseIds.length === 0) return [];
  const rows = await db.selectFrom('license_issue_attempts').selectAll().where('license_id', 'in', licenseIds).orderBy('attempted_at', 'desc').orderBy('id', 'desc').execute();
  const seen = new Map<string, number>();
  return rows.filter((r) => {
    const n = (seen.get(r.license_id) ?? 0) + 1;
    seen.set(r.license_id, n);
    return n <= perLicense;
  });
}
