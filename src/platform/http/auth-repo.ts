import type { Db } from '../../db';

/*
 * The platform's credential lookups. `api_keys` and `stores` are written by the stores module, but reading a
 * credential to authenticate a request is the platform's job (both tables' types live in platform/tables.ts), so
 * these queries stay here rather than in stores/ (the platform imports no domain module).
 */

/** The columns authentication reads, found by the key's hash. */
export function findApiKeyByHash(db: Db, hash: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'store_id', 'mode', 'key_hash', 'scopes', 'ip_allowlist', 'product_ids', 'expires_at', 'revoked_at', 'last_used_at'])
    .where('key_hash', '=', hash)
    .executeTakeFirst();
}

export type ApiKeyAuthRow = NonNullable<Awaited<ReturnType<typeof findApiKeyByHash>>>;

/** Not awaited by the caller: it runs off the request path. */
export async function touchApiKeyLastUsed(db: Db, id: string, now: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
}

export function findStoreByOwnerTokenHash(db: Db, hash: string): Promise<{ id: string; owner_token_hash: string | null } | undefined> {
  return db.selectFrom('stores').select(['id', 'owner_token_hash']).where('owner_token_hash', '=', hash).executeTakeFirst();
}
