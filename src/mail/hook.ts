import type { Db } from '../db';
import { jsonb } from '../db';
import type { Clock } from '../platform/clock';
import type { EventHookInput } from '../platform/events';
import { newId } from '../platform/ids';
import { mailKindOf, recipientOf } from './kinds';
import * as repo from './repo';

/**
 * The event hook (registered by the mail module): turns an event into at most one mail for the buyer, inserted in
 * the event's own transaction, so the mail exists exactly when the change does. The store's per-kind switch is read
 * in the same transaction. Nothing is rendered here: the mail is rendered when a worker takes it (dispatch.ts), from
 * the order's licences at that time, so keys a seller issues after the payment are in the confirmation.
 */
export async function mailOnEvent(trx: Db, clock: Clock, e: EventHookInput): Promise<void> {
  const kind = mailKindOf(e.type, e.data);
  if (!kind) return;
  let to = recipientOf(e.type, e.data);
  if (!to && typeof e.data.orderId === 'string') to = await repo.buyerEmailOfOrder(trx, e.data.orderId);
  if (!to) return;
  if ((await repo.disabledKinds(trx, e.storeId)).includes(kind)) return;
  const now = clock.now();
  await repo.insertMail(trx, {
    id: newId('mail', clock),
    store_id: e.storeId,
    mode: e.mode,
    kind,
    event_id: e.eventId,
    event_type: e.type,
    data: jsonb(e.data),
    recipient: to,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
  });
}
