import type { Db } from '../db';
import { jsonb } from '../db';
import type { Clock } from './clock';
import { newId } from './ids';
import type { Mode } from './tables';
import { insertEvent } from './events-repo';

/** The event envelope sent to webhook endpoints: `{ id, type, mode, createdAt, data }`. */
export interface EventEnvelope<T = Record<string, unknown>> {
  id: string;
  type: string;
  mode: Mode;
  createdAt: string;
  data: T;
}

/**
 * Writes an event into the outbox. Call it with the transaction that makes the change the event reports:
 * if that transaction rolls back, the event never existed and is never sent.
 */
export async function writeEvent(trx: Db, clock: Clock, e: { storeId: string; mode: Mode; type: string; data: Record<string, unknown> }): Promise<EventEnvelope> {
  const id = newId('evt', clock);
  const now = clock.now();
  await insertEvent(trx, { id, store_id: e.storeId, mode: e.mode, type: e.type, data: jsonb(e.data), created_at: now, dispatched_at: null });
  return { id, type: e.type, mode: e.mode, createdAt: now.toISOString(), data: e.data };
}
