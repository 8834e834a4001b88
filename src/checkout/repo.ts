import type { Db } from '../db';
import type { Mode } from '../platform/tables';

/**
 * The store's checkout setup for one mode in one round trip: allow-list, provider settings, contact verification,
 * and whether business details are set (`business_details_set`, required for live mode).
 */
export function findCheckoutSetup(db: Db, storeId: string, mode: Mode) {
  return db
    .selectFrom('store_mode_settings as m')
    .innerJoin('stores as s', 's.id', 'm.store_id')
    .leftJoin('store_business_details as b', 'b.store_id', 'm.store_id')
    .select(['m.mode', 'm.return_url_domains', 'm.payment_provider', 'm.toss_client_key', 'm.toss_secret_key_sealed', 's.public_contact_verified'])
    .select((eb) => eb('b.store_id', 'is not', null).as('business_details_set'))
    .where('m.store_id', '=', storeId)
    .where('m.mode', '=', mode)
    .executeTakeFirstOrThrow();
}
