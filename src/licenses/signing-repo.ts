import type { Selectable } from 'kysely';
import type { Db } from '../db';
import type { SigningKeysTable } from './tables';

export type SigningKeyRow = Selectable<SigningKeysTable>;

/** Every signing key, oldest generation first. */
export function listSigningKeys(db: Db): Promise<SigningKeyRow[]> {
  return db.selectFrom('signing_keys').selectAll().orderBy('generation').execute();
}

/** Inserts the first key; two processes starting together both try generation 1 and the unique index lets exactly one in. */
export async function insertFirstSigningKey(db: Db, row: SigningKeyRow): Promise<void> {
  await db.insertInto('signing_keys').values(row).onConflict((oc) => oc.doNothing()).execute();
}

export function findLastGeneration(db: Db): Promise<{ generation: number } | undefined> {
  return db.selectFrom('signing_keys').select(['generation']).orderBy('generation', 'desc').limit(1).executeTakeFirst();
}

/** Throws a unique violation (23505) when another rotation took this generation at the same moment. */
export async function insertSigningKey(db: Db, row: SigningKeyRow): Promise<void> {
  await db.insertInto('signing_keys').values(row).execute();
}
