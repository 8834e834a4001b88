import type { Selectable } from 'kysely';
import type { Db } from '../../db';
import { compiledQuery } from '../../db/compiled';
import type { IdempotencyKeysTable } from '../tables';

export type IdempotencyKeyRow = Selectable<IdempotencyKeysTable>;

/** One stored Idempotency-Key: the store and mode it belongs to, and the key itself. */
export interface IdempotencyScope {
  storeId: string;
  mode: string;
  key: string;
}

/** The claim: one INSERT … ON CONFLICT DO NOTHING, compiled once (it runs on every idempotent POST). */
export const claimIdempotencyKey = compiledQuery((db: Db, storeId: string, mode: string, key: string, fp: string, now: Date, lockedUntil: Date, expiresAt: Date) =>
  db
    .insertInto('idempotency_keys')
    .values({ store_id: storeId, mode: mode as 'test' | 'live', key, fingerprint: fp, state: 'processing', created_at: now, locked_until: lockedUntil, expires_at: expiresAt })
    .onConflict((oc) => oc.columns(['store_id', 'mode', 'key']).doNothing())
    .returning('key'),
);

export function findIdempotencyKey(db: Db, s: IdempotencyScope): Promise<IdempotencyKeyRow | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('store_id', '=', s.storeId).where('mode', '=', s.mode).where('key', '=', s.key).executeTakeFirst();
}

/** Deletes the key only if it is still expired at `now` (a fresh claim made meanwhile stays). */
export async function deleteExpiredIdempotencyKey(db: Db, s: IdempotencyScope, now: Date): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('store_id', '=', s.storeId).where('mode', '=', s.mode).where('key', '=', s.key).where('expires_at', '<=', now).execute();
}

/** Takes over a 'processing' claim whose lock ran out (its request died); undefined when another request took it first. */
export function takeOverStaleIdempotencyKey(db: Db, s: IdempotencyScope, now: Date, lockedUntil: Date): Promise<{ key: string } | undefined> {
  return db
    .updateTable('idempotency_keys')
    .set({ locked_until: lockedUntil })
    .where('store_id', '=', s.storeId)
    .where('mode', '=', s.mode)
    .where('key', '=', s.key)
    .where('state', '=', 'processing')
    .where('locked_until', '<=', now)
    .returning('key')
    .executeTakeFirst();
}

/** Forgets the key (an answer that must not be replayed). */
export async function deleteIdempotencyKey(db: Db, s: IdempotencyScope): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('store_id', '=', s.storeId).where('mode', '=', s.mode).where('key', '=', s.key).execute();
}

/** Stores the answer of a claimed key. */
export async function saveIdempotentAnswer(db: Db, s: IdempotencyScope, answer: { status: number; body: string; contentType: string }): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', response_status: answer.status, response_body: answer.body, response_content_type: answer.contentType })
    .where('store_id', '=', s.storeId)
    .where('mode', '=', s.mode)
    .where('key', '=', s.key)
    .execute();
}

export async function purgeIdempotencyKeys(db: Db, now: Date): Promise<number> {
  const res = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}

