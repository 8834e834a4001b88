import type { Db } from '../../src/db';
import { jsonb } from '../../src/db';
import { termsOfProduct } from '../../src/orders/terms';

/** The product's terms now as an order's `terms` value (jsonb): what checkout records when a buyer pays. */
export async function productTermsJson(db: Db, productId: string, planId: string | null = null) {
  const p = await db
    .selectFrom('products')
    .select(['refund_days', 'penalty_rate', 'clawback_disclosed', 'trial_offered', 'usage_restriction_marked', 'license_mode', 'plans'])
    .where('id', '=', productId)
    .executeTakeFirstOrThrow();
  return jsonb(termsOfProduct(p, planId));
}
