import type { Db } from './database';
import type { Mode } from '../platform/tables';

/**
 * The tables whose rows per store and mode are kept counted by migration 136's trigger (subscription charges: 139's,
 * with their subscription's store and mode).
 */
export type CountedTable = 'orders' | 'order_refunds' | 'subscriptions' | 'licenses' | 'events' | 'subscription_charges';

/**
 * Which rows: '' for all of them; for a table whose lists filter on one column, that column's value (events: `type`;
 * orders, order_refunds, subscriptions and subscription_charges: `status`), kept by the same trigger.
 */
export type KeptPart = string;

/**
 * The number of rows of `table` in one store (and one mode, or every mode when `mode` is undefined), from the counts
 * migration 136's trigger keeps in each writer's transaction: at most 8 rows a mode, where a count of the table reads
 * one index entry per row (two million for the events of a store with a million orders). Exact, and as of the
 * caller's snapshot like the count it replaces. For a list's total when the list is filtered by store and mode alone.
 */
export async function keptRowCount(db: Db, table: CountedTable, storeId: string, mode: Mode | undefined, part: KeptPart = ''): Promise<number> {
  let q = db
    .selectFrom('row_counts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.val(0)).as('n'))
    .where('table_name', '=', table)
    .where('store_id', '=', storeId)
    .where('part', '=', part);
  if (mode) q = q.where('mode', '=', mode);
  return Number((await q.executeTakeFirstOrThrow()).n);
}
