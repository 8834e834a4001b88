import type { Db } from '../db';

/** Records the address the running server serves at (one row, replaced at every start). */
export async function upsertPublicAddress(db: Db, o: { url: string; configured: boolean; now: Date }): Promise<void> {
  await db
    .insertInto('service_public_address')
    .values({ url: o.url, configured: o.configured, recorded_at: o.now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ url: o.url, configured: o.configured, recorded_at: o.now }))
    .execute();
}

export async function findPublicAddress(db: Db): Promise<{ url: string; configured: boolean; recorded_at: Date } | undefined> {
  return db.selectFrom('service_public_address').select(['url', 'configured', 'recorded_at']).executeTakeFirst();
}
