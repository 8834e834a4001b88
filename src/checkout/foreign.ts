/**
 * Buyers abroad at checkout (issue 41): which of the methods for buyers abroad a session may use, and the USD amount a
 * PayPal payment is asked for. The money rules themselves are in src/payments/foreign.ts.
 */
import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import { FOREIGN_METHODS, isForeignMethod, usdCentsOf, type ForeignMethod, type Presentment } from '../payments/foreign';
import type { PaymentMethod } from '../payments/method';

export interface ForeignSettings {
  methods: ForeignMethod[];
  /** Won per US$1 for PayPal; null: none set (PayPal is then not offered). */
  usdKrwRate: number | null;
}

/** SQL: the mode's choice of methods for buyers abroad (store_mode_settings, migration 112). */
export async function findForeignSettings(db: Db, storeId: string, mode: Mode, trx?: Db): Promise<ForeignSettings> {
  const row = await (trx ?? db)
    .selectFrom('store_mode_settings')
    .select(['foreign_methods', 'usd_krw_rate'])
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .executeTakeFirst();
  const methods = (row?.foreign_methods ?? []).filter((m): m is ForeignMethod => isForeignMethod(m));
  return { methods: FOREIGN_METHODS.filter((m) => methods.includes(m) && (m !== 'paypal' || row?.usd_krw_rate != null)), usdKrwRate: row?.usd_krw_rate ?? null };
}

/**
 * Whether a session may pay with `method`: every method not for buyers abroad as before; `foreign_card` and `paypal`
 * only where the store enabled them, and only for one-time products (Toss documents no 자동결제 for either).
 */
export function foreignMethodAllowed(method: PaymentMethod, settings: ForeignSettings, recurring: boolean): boolean {
  if (!isForeignMethod(method)) return true;
  return !recurring && settings.methods.includes(method);
}

/** The USD amount a PayPal payment of `krw` won is asked for (null for every other method, and for 0 won). */
export function presentmentFor(method: PaymentMethod, krw: number, settings: ForeignSettings): Presentment | null {
  if (method !== 'paypal' || krw === 0 || settings.usdKrwRate == null) return null;
  return { amount: usdCentsOf(krw, settings.usdKrwRate), currency: 'USD' };
}
