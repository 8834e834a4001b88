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

/** What a hook sees of an event, inside the event's transaction. */
export interface EventHookInput {
  storeId: string;
  mode: Mode;
  type: string;
  data: Record<string, unknown>;
  eventId: string;
}
export type EventHook = (trx: Db, clock: Clock, e: EventHookInput) => Promise<void>;

/**
 * Hooks run by writeEvent in the event's own transaction (the mail outbox writes its mails there). Keyed by name, so
 * registering again (several apps built in one process, as the tests do) replaces rather than doubles. The platform
 * knows no domain: modules register themselves.
 */
const hooks = new Map<string, EventHook>();
export function registerEventHook(name: string, fn: EventHook): void {
  hooks.set(name, fn);
}

/**
 * Writes an event into the outbox. Call it with the transaction that makes the change the event reports:
 * if that transaction rolls back, the event never existed and is never sent.
 */
export async function writeEvent(trx: Db, clock: Clock, e: { storeId: string; mode: Mode; type: string; data: Record<string, unknown> }): Promise<EventEnvelope> {
  const id = newId('evt', clock);
  const now = clock.now();
  await insertEvent(trx, { id, store_id: e.storeId, mode: e.mode, type: e.type, data: jsonb(e.data), created_at: now, dispatched_at: null });
  // A hook that throws rolls the change back with its event: what the hook writes exists exactly when the event does.
  for (const hook of hooks.values()) await hook(trx, clock, { ...e, eventId: id });
  return { id, type: e.type, mode: e.mode, createdAt: now.toISOString(), data: e.data };
}
