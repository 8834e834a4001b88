import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { ApiError } from '../platform/errors';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { Page } from '../platform/http/schemas';
import { orderView } from './model';
import * as repo from './repo';
import type { OrderView } from './schemas';

type Deps = Pick<AppDeps, 'db' | 'config'>;

/** One order as the contract shows it, with its refunds; other stores, modes and products out of range: ORDER_NOT_FOUND. */
export async function getOrder(deps: Deps, f: repo.OrderFilter, id: string): Promise<OrderView> {
  const row = await repo.findOrder(deps.db, f, id);
  if (!row) throw new ApiError('ORDER_NOT_FOUND');
  const refunds = await repo.refundsOf(deps.db, [row.id]);
  return orderView(row, refunds.get(row.id) ?? [], deps.config.publicBaseUrl);
}

/** Reads an order by id inside a transaction (for other modules' use cases), or null. No range check. */
export async function loadOrderView(db: Db, orderId: string, publicBaseUrl: string): Promise<OrderView | null> {
  const row = await db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
  if (!row) return null;
  const refunds = await repo.refundsOf(db, [row.id]);
  return orderView(row, refunds.get(row.id) ?? [], publicBaseUrl);
}

export async function listOrders(deps: Deps, f: repo.OrderFilter, page: PageParams): Promise<Page<OrderView>> {
  return listPage(
    page,
    () => repo.countOrders(deps.db, f),
    async (offset, limit) => {
      const rows = await repo.pageOrders(deps.db, f, offset, limit);
      // One query for the refunds of the whole page rather than one per order.
      const refunds = await repo.refundsOf(deps.db, rows.map((r) => r.id));
      return rows.map((row) => ({ row, refunds: refunds.get(row.id) ?? [] }));
    },
    ({ row, refunds }) => orderView(row, refunds, deps.config.publicBaseUrl),
  );
}
