import { sql } from 'kysely';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import type { EventHookInput } from '../../platform/events';
import { newId } from '../../platform/ids';
import { amendAfterRefund, issueOnPayment } from './service';

/**
 * What the order's life does to its 세금계산서, in the order event's own transaction (so the request, the amendment
 * and their jobs exist exactly when the payment or the refund does):
 *   order.awaiting_deposit / order.paid  a 세금계산서 the buyer asked for on the payment page (the checkout attempt's
 *                                        `taxInvoice`) becomes the order's request; on `order.paid` a store that
 *                                        issues automatically starts issuing it.
 *   order.refunded                       an issued original gets its 수정세금계산서 (service.ts amendAfterRefund).
 * Nothing here calls the provider: the jobs do, after the commit.
 */
export async function onOrderEvent(trx: Db, deps: Pick<AppDeps, 'clock'>, e: EventHookInput): Promise<void> {
  if (e.type === 'order.paid' || e.type === 'order.awaiting_deposit') {
    const orderId = typeof e.data.id === 'string' ? e.data.id : null;
    if (!orderId) return;
    await recordPagedRequest(trx, deps, orderId);
    if (e.type === 'order.paid') await issueOnPayment(trx, deps, orderId);
    return;
  }
  if (e.type === 'order.refunded') {
    const refund = e.data.refund as { id?: string } | undefined;
    const order = e.data.order as { id?: string } | undefined;
    if (refund?.id && order?.id) await amendAfterRefund(trx, deps, order.id, refund.id, deps.clock.now());
  }
}

/** The payment page's request (checked there by the same rules) as the order's `requested` 세금계산서, once. */
async function recordPagedRequest(trx: Db, deps: Pick<AppDeps, 'clock'>, orderId: string): Promise<void> {
  const row = await trx
    .selectFrom('orders as o')
    .innerJoin('checkout_sessions as s', 's.id', 'o.checkout_session_id')
    .select(['o.id', 'o.store_id', 'o.mode', 's.attempt'])
    .where('o.id', '=', orderId)
    .executeTakeFirst();
  const asked = (row?.attempt as { taxInvoice?: { brn: string; name: string; representative: string; email: string } } | null)?.taxInvoice;
  if (!row || !asked) return;
  const now = deps.clock.now();
  await trx
    .insertInto('tax_invoices')
    .values({
      id: newId('ti', deps.clock),
      order_id: row.id,
      store_id: row.store_id,
      mode: row.mode,
      kind: 'original',
      status: 'requested',
      requested_by: 'buyer',
      recipient_brn: asked.brn,
      recipient_name: asked.name,
      recipient_representative: asked.representative,
      recipient_email: asked.email,
      attempt: 0,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('order_id').where('kind', '=', sql.lit('original')).doNothing())
    .execute();
}
