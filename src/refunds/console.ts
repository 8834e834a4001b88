import type { AppDeps } from '../deps';
import { ApiError } from '../platform/errors';
import { settleRefund } from './service';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { Page } from '../platform/http/schemas';
import type { Mode } from '../platform/tables';
import { refundView, type RefundStatus, type RefundView } from './model';
import * as repo from './repo';

/** The seller console's list of refunds (every state), newest first. */
export async function listRefunds(deps: Pick<AppDeps, 'db'>, storeId: string, q: PageParams & { mode?: Mode; orderId?: string; status?: RefundStatus }): Promise<Page<RefundView>> {
  const f = { storeId, mode: q.mode, orderId: q.orderId, status: q.status };
  return listPage(
    q,
    () => repo.countRefunds(deps.db, f),
    (offset, limit) => repo.pageRefunds(deps.db, f, offset, limit),
    refundView,
  );
}

/**
 * The seller settles an `unknown` refund by hand after checking the gateway's dashboard (for the cases reconciliation
 * cannot decide, flagged RECONCILE_MISMATCH): `succeeded` records it like a gateway success (order updated, licenses
 * on a full refund, `order.refunded`), `failed` releases the order for another refund. Only `unknown` refunds.
 */
export async function resolveRefund(
  deps: Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>,
  storeId: string,
  id: string,
  input: { status: 'succeeded' | 'failed'; note: string },
): Promise<RefundView> {
  const row = await repo.findRefund(deps.db, id);
  if (!row || row.store_id !== storeId) throw new ApiError('REFUND_NOT_FOUND');
  if (row.status !== 'unknown') throw new ApiError('REFUND_NOT_UNKNOWN', { details: { status: row.status } });
  const settled = await settleRefund(
    deps,
    id,
    input.status === 'succeeded'
      ? { status: 'succeeded', value: { refundedAt: deps.clock.now(), balanceAmount: null } }
      : { status: 'failed', code: 'RESOLVED_BY_SELLER', message: input.note },
  );
  return refundView(settled);
}

/**
 * The refund an earlier request with this idempotency key made, or null. The dashboard puts one key in each refund
 * form it renders; a form sent twice (a double click, a reload) finds its first refund here instead of refunding again.
 */
export async function findRefundByRequestKey(deps: Pick<AppDeps, 'db'>, storeId: string, mode: Mode, requestKey: string): Promise<RefundView | null> {
  const row = await repo.findByRequestKey(deps.db, storeId, mode, requestKey);
  return row ? refundView(row) : null;
}
