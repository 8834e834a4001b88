import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { ApiError } from '../platform/errors';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { Page } from '../platform/http/schemas';
import { orderView } from './model';
import * as repo from './repo';
import type { OrderView } from './schemas';
import { ORDER_CSV_HEADER, orderCsvRow, csvLine, CSV_BOM } from './csv';

export type { OrderSearch } from './repo';

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

export async function listOrders(deps: Deps, f: repo.OrderFilter, page: PageParams, search: repo.OrderSearch = {}): Promise<Page<OrderView>> {
  return listPage(
    page,
    () => repo.countOrders(deps.db, f, search),
    async (offset, limit) => {
      const rows = await repo.pageOrders(deps.db, f, offset, limit, search);
      // One query for the refunds of the whole page rather than one per order.
      const refunds = await repo.refundsOf(deps.db, rows.map((r) => r.id));
      return rows.map((row) => ({ row, refunds: refunds.get(row.id) ?? [], total_count: row.total_count }));
    },
    ({ row, refunds }) => orderView(row, refunds, deps.config.publicBaseUrl),
  );
}

/**
 * The orders matching a search as CSV for Excel (UTF-8 with a BOM, CRLF lines, every cell quoted when it must be and
 * defused when it could be read as a formula), produced in batches so a large store never sits in memory at once.
 */
export async function* exportOrdersCsv(deps: Deps, f: repo.OrderFilter, search: repo.OrderSearch): AsyncGenerator<string> {
  yield CSV_BOM + csvLine(ORDER_CSV_HEADER);
  for await (const rows of repo.scanOrders(deps.db, f, search)) {
    yield rows.map((r) => csvLine(orderCsvRow(r))).join('');
  }
}

/** What the seller needs beyond the contract's Order to trace a payment: the gateway, its payment key, the subscription and settlement round. */
export interface OrderPayment {
  provider: 'simulator' | 'toss';
  providerPaymentKey: string | null;
  subscriptionId: string | null;
  subscriptionEvent: 'initial' | 'renewal' | 'difference' | null;
  settlementId: string | null;
}

export async function getOrderPayment(deps: Deps, f: repo.OrderFilter, id: string): Promise<OrderPayment> {
  const row = await repo.findOrder(deps.db, f, id);
  if (!row) throw new ApiError('ORDER_NOT_FOUND');
  return {
    provider: row.provider,
    providerPaymentKey: row.provider_payment_key,
    subscriptionId: row.subscription_id,
    subscriptionEvent: row.subscription_event,
    settlementId: row.settlement_id,
  };
}
