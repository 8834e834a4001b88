import type { Selectable } from 'kysely';
import type { Db } from '../db';
import { jsonb } from '../db';
import type { Mode, StoreModeSettingsTable, StoresTable } from '../platform/tables';
import type { PaymentProviderName } from '../payments/provider';

// stores and store_mode_settings queries. Every function takes the executor, so a use case can compose them in one
// transaction. API keys: ./api-keys-repo.ts; business details: ./business-repo.ts.

export type StoreRow = Selectable<StoresTable>;
export type ModeSettingsRow = Selectable<StoreModeSettingsTable>;

export function findStore(db: Db, storeId: string): Promise<StoreRow> {
  return db.selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirstOrThrow();
}

/** The store's id when it exists (an existence check). */
export function findStoreId(db: Db, storeId: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('stores').select('id').where('id', '=', storeId).executeTakeFirst();
}

export function listModeSettings(db: Db, storeId: string): Promise<ModeSettingsRow[]> {
  return db.selectFrom('store_mode_settings').selectAll().where('store_id', '=', storeId).execute();
}

export function findModeSettings(db: Db, storeId: string, mode: Mode): Promise<ModeSettingsRow> {
  return db.selectFrom('store_mode_settings').selectAll().where('store_id', '=', storeId).where('mode', '=', mode).executeTakeFirstOrThrow();
}

export async function insertStore(
  db: Db,
  s: { id: string; name: string; ownerTokenHash: string; publicContactVerified: boolean; now: Date },
): Promise<void> {
  await db
    .insertInto('stores')
    .values({ id: s.id, name: s.name, owner_token_hash: s.ownerTokenHash, public_contact_verified: s.publicContactVerified, created_at: s.now, updated_at: s.now })
    .execute();
}

/** One statement for all the given rows (a new store's test and live settings). */
export async function insertModeSettings(db: Db, rows: Array<Omit<ModeSettingsRow, 'return_url_domains' | 'foreign_methods' | 'usd_krw_rate' | `portone_${string}`> & { return_url_domains: string[] }>): Promise<void> {
  await db
    .insertInto('store_mode_settings')
    .values(rows.map((r) => ({ ...r, return_url_domains: jsonb(r.return_url_domains) })))
    .execute();
}

export async function updateStoreRow(db: Db, storeId: string, patch: { updated_at: Date; name?: string }): Promise<void> {
  await db.updateTable('stores').set(patch).where('id', '=', storeId).execute();
}

/** Returns how many rows changed (0: no such store). */
export async function setStorePublicContactVerified(db: Db, storeId: string, verified: boolean, now: Date): Promise<number> {
  const res = await db.updateTable('stores').set({ public_contact_verified: verified, updated_at: now }).where('id', '=', storeId).executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/**
 * Replaces the owner token's hash; with `currentHash` only while that is still the stored one (so of two concurrent
 * rotations with one token a single one wins). Returns how many rows changed.
 */
export async function replaceOwnerTokenHash(db: Db, storeId: string, hash: string, now: Date, currentHash?: string): Promise<number> {
  let q = db.updateTable('stores').set({ owner_token_hash: hash, updated_at: now }).where('id', '=', storeId);
  if (currentHash !== undefined) q = q.where('owner_token_hash', '=', currentHash);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows);
}

export async function clearOwnerTokenHash(db: Db, storeId: string, now: Date): Promise<void> {
  await db.updateTable('stores').set({ owner_token_hash: null, updated_at: now }).where('id', '=', storeId).execute();
}

/** Sets the given columns of one mode's settings (key order kept: the SET list follows the patch). */
export async function updateModeSettingsRow(
  db: Db,
  storeId: string,
  mode: Mode,
  patch: {
    updated_at: Date;
    return_url_domains?: string[];
    payment_provider?: PaymentProviderName | null;
    toss_client_key?: string | null;
    toss_secret_key_sealed?: string | null;
    toss_billing_client_key?: string | null;
    toss_billing_secret_key_sealed?: string | null;
    foreign_methods?: Array<'foreign_card' | 'paypal'>;
    usd_krw_rate?: number | null;
    portone_store_id?: string | null;
    portone_api_secret_sealed?: string | null;
    portone_webhook_secret_sealed?: string | null;
    portone_channel_keys?: Record<string, string>;
  },
): Promise<void> {
  const { foreign_methods, portone_channel_keys, ...rest } = patch;
  const set = {
    ...(patch.return_url_domains !== undefined ? { ...rest, return_url_domains: jsonb(patch.return_url_domains) } : rest),
    ...(foreign_methods !== undefined ? { foreign_methods: jsonb(foreign_methods) } : {}),
    ...(portone_channel_keys !== undefined ? { portone_channel_keys: jsonb(portone_channel_keys) } : {}),
  };
  await db.updateTable('store_mode_settings').set(set).where('store_id', '=', storeId).where('mode', '=', mode).execute();
}

/**
 * Subscriptions of a store and mode, not ended, whose billing key the 자동결제 pair issued (migration 068): they can
 * only be charged, and their key deleted, with that pair.
 */
export async function countSubscriptionsOnBillingPair(db: Db, storeId: string, mode: Mode): Promise<number> {
  const r = await db
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('toss_key_pair', '=', 'billing')
    .where('status', '!=', 'ended')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Any store at all (the first start creates the demo store when there is none). */
export function anyStoreId(db: Db): Promise<{ id: string } | undefined> {
  return db.selectFrom('stores').select('id').limit(1).executeTakeFirst();
}

/** The oldest store with this name (the demo store's). */
export function findStoreIdByName(db: Db, name: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('stores').select('id').where('name', '=', name).orderBy('id').limit(1).executeTakeFirst();
}

/** Whether the store is a 현금영수증 의무발행업종 (stores.cash_receipt_mandatory; false for an unknown store). */
export async function cashReceiptMandatory(db: Db, storeId: string): Promise<boolean> {
  const row = await db.selectFrom('stores').select('cash_receipt_mandatory').where('id', '=', storeId).executeTakeFirst();
  return row?.cash_receipt_mandatory === true;
}

/** The store's allowRepeatTrials setting (false for an unknown store: trials stay once per buyer). */
export async function allowsRepeatTrials(db: Db, storeId: string): Promise<boolean> {
  const row = await db.selectFrom('stores').select('allow_repeat_trials').where('id', '=', storeId).executeTakeFirst();
  return row?.allow_repeat_trials === true;
}
