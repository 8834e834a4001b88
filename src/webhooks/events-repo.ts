import { sql } from 'kysely';
import { keptRowCount } from '../db/row-counts';
import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import type { AttemptRow } from './repo';

/** Event-log queries of the seller console and the retention sweep. Every function takes the executor. */

export async function countEvents(db: Db, storeId: string, f: { mode?: Mode; type?: string }): Promise<number> {
  // Every filter of this list (mode, type) is kept counted: never a count of the store's events.
  return keptRowCount(db, 'events', storeId, f.mode, f.type ?? '');
}

export async function listEvents(db: Db, storeId: string, f: { mode?: Mode; type?: string }, offset: number, limit: number) {
  let q = db.selectFrom('events').selectAll().where('store_id', '=', storeId);
  if (f.mode) q = q.where('mode', '=', f.mode);
  if (f.type) q = q.where('type', '=', f.type);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}

export async function findEvent(db: Db, storeId: string, id: string) {
  return db.selectFrom('events').selectAll().where('store_id', '=', storeId).where('id', '=', id).executeTakeFirst();
}

/**
 * Events about one order, oldest first: `order.paid` (data is the Order), `order.refunded` (data.order) and the
 * refund-request events (data.orderId). The store's events are read by JSON path; a detail page asks for one order at
 * a time, so no index on the payload is needed for it.
 */
export async function eventsOfOrder(db: Db, storeId: string, mode: Mode, orderId: string, limit = 100) {
  return db
    .selectFrom('events')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where((eb) =>
      eb.or([
        eb(sql`data->>'id'`, '=', orderId),
        eb(sql`data->'order'->>'id'`, '=', orderId),
        eb(sql`data->>'orderId'`, '=', orderId),
      ]),
    )
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function deliveriesOfEvent(db: Db, eventId: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .selectAll('d')
    .select('e.url as endpoint_url')
    .where('d.event_id', '=', eventId)
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
}

export async function deliveryWithEndpoint(db: Db, id: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .selectAll('d')
    .select('e.url as endpoint_url')
    .where('d.id', '=', id)
    .executeTakeFirstOrThrow();
}

export async function attemptsOfDeliveries(db: Db, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('started_at').orderBy('attempt').execute();
}

/** Retention: events past it go, with their deliveries and attempts (cascade). Bounded batches keep locks short. */
export async function deleteEventsBefore(db: Db, before: Date, batch = 500): Promise<number> {
  const r = await db
    .deleteFrom('events')
    .where('id', 'in', (eb) => eb.selectFrom('events').select('id').where('created_at', '<', before).where('dispatched_at', 'is not', null).limit(batch))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
