import type { AppDeps } from '../deps';
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
