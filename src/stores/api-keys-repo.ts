import type { Selectable } from 'kysely';
import type { Db } from '../db';
import { jsonb } from '../db';
import type { ApiKeysTable, Mode } from '../platform/tables';

// api_keys queries of the seller console. Every function takes the executor, so a use case can compose them in one
// transaction. (The request-time lookup by hash and its cache live in platform/http/auth.)

export type ApiKeyRow = Selectable<ApiKeysTable>;

export function insertApiKey(
  db: Db,
  row: Omit<ApiKeyRow, 'scopes' | 'ip_allowlist' | 'product_ids'> & { scopes: string[]; ip_allowlist: string[] | null; product_ids: string[] | null },
): Promise<ApiKeyRow> {
  return db
    .insertInto('api_keys')
    .values({
      id: row.id,
      store_id: row.store_id,
      mode: row.mode,
      name: row.name,
      key_hash: row.key_hash,
      key_hint: row.key_hint,
      scopes: jsonb(row.scopes),
      ip_allowlist: jsonb(row.ip_allowlist),
      product_ids: jsonb(row.product_ids),
      created_at: row.created_at,
      last_used_at: row.last_used_at,
      expires_at: row.expires_at,
      rotated_to: row.rotated_to,
      revoked_at: row.revoked_at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

function apiKeysQuery(db: Db, storeId: string, mode?: Mode) {
  let b = db.selectFrom('api_keys').where('store_id', '=', storeId);
  if (mode) b = b.where('mode', '=', mode);
  return b;
}

export async function countApiKeys(db: Db, storeId: string, mode?: Mode): Promise<number> {
  return Number((await apiKeysQuery(db, storeId, mode).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** Newest first; the id breaks ties between keys created in the same millisecond. */
export function pageApiKeys(db: Db, storeId: string, mode: Mode | undefined, offset: number, limit: number): Promise<Array<ApiKeyRow>> {
  return apiKeysQuery(db, storeId, mode).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}

export function findApiKey(db: Db, storeId: string, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).where('store_id', '=', storeId).executeTakeFirst();
}

/** The key's row, locked (FOR UPDATE) so two rotations of one key cannot both pass the "still active" check. */
export function lockApiKey(trx: Db, storeId: string, id: string): Promise<ApiKeyRow | undefined> {
  return trx.selectFrom('api_keys').selectAll().where('id', '=', id).where('store_id', '=', storeId).forUpdate().executeTakeFirst();
}

/** The rotated-out key: it keeps working until `expiresAt` and points at its successor. */
export function markApiKeyRotated(trx: Db, id: string, expiresAt: Date, rotatedTo: string): Promise<ApiKeyRow> {
  return trx.updateTable('api_keys').set({ expires_at: expiresAt, rotated_to: rotatedTo }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Revokes the key unless it already is; undefined when nothing changed (no such key, or revoked before). */
export function revokeApiKeyRow(trx: Db, storeId: string, id: string, now: Date): Promise<ApiKeyRow | undefined> {
  return trx
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('store_id', '=', storeId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
