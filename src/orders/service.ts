import type { AppDeps } from '../deps';
import type { PaymentProviderName } from '../payments/provider';
import type { Db } from '../db';
import { ApiError } from '../platform/errors';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { Page } from '../platform/http/schemas';
import { orderLicenseView, orderView, type OrderRefundRow, type OrderRow } from './model';
import * as repo from './repo';
import type { OrderView } from './schemas';
import { ORDER_CSV_HEADER, orderCsvRow, csvLine, CSV_BOM } from './csv';

export type { OrderSearch } from './repo';

type Deps = Pick<AppDeps, 'db' | 'config' | 'clock'>;
/** What turning order rows into Orders needs: the receipt link's base and the key to reveal license keys. */
export type OrderViewDeps = { config: Pick<AppDeps['config'], 'publicBaseUrl' | 'masterKey'>; clock: AppDeps['clock'] };

/** Orders with their licenses (one query for all of them). */
async function withLicenses(db: Db, deps: OrderViewDeps, items: Array<{ row: OrderRow; refunds: OrderRefundRow[] }>): Promise<OrderView[]> {
  const licenses = await repo.licensesOf(db, items.map((i) => i.row));
  const accounts = await repo.virtualAccountsOf(db, items.filter((i) => i.row.method === 'virtual_account').map((i) => i.row.id));
  const cash = await repo.cashReceiptsOf(db, items.filter((i) => i.row.method === 'transfer' || i.row.method === 'virtual_account').map((i) => i.row.id));
  const now = deps.clock.now();
  return items.map(({ row, refunds }) =>
    orderView(row, refunds, deps.config.publicBaseUrl, (licenses.get(row.id) ?? []).map((l) => orderLicenseView(l, deps.config.masterKey, now)), accounts.get(row.id), cash.get(row.id)),
  );
}

/** One order row as the contract shows it, licenses included (for use cases that already hold the row, e.g. in a transaction). */
export async function orderViewOf(db: Db, deps: OrderViewDeps, row: OrderRow, refunds: OrderRefundRow[] = []): Promise<OrderView> {
  return (await withLicenses(db, deps, [{ row, refunds }]))[0];
}

/**
 * One order as the contract shows it, with its refunds and licenses (two queries after the order's own); other
 * stores, modes and products out of range: ORDER_NOT_FOUND.
 */
export async function getOrder(deps: Deps, f: repo.OrderFilter, id: string): Promise<OrderView> {
  const row = await repo.findOrder(deps.db, f, id);
  if (!row) throw new ApiError('ORDER_NOT_FOUND');
  const refunds = await repo.refundsOf(deps.db, [row.id]);
  return orderViewOf(deps.db, deps, row, refunds.get(row.id) ?? []);
}

/** Reads an order by id inside a transaction (for other modules' use cases), or null. No range check. */
export async function loadOrderView(db: Db, orderId: string, deps: OrderViewDeps): Promise<OrderView | null> {
  const row = await repo.findOrderById(db, orderId);
  if (!row) return null;
  const refunds = await repo.refundsOf(db, [row.id]);
  return orderViewOf(db, deps, row, refunds.get(row.id) ?? []);
}

export async function listOrders(deps: Deps, f: repo.OrderFilter, page: PageParams, search: repo.OrderSearch = {}): Promise<Page<OrderView>> {
  return listPage(page, () => repo.countOrders(deps.db, f, search), pageOfOrders(deps, f, search), (view) => view);
}

/**
 * The dashboard's list: the same page, with a total counted only up to `countUpTo` (then `totalAtLeast`: "10,000건
 * 이상"). An exact count reads every matching order: its cost grows with the store (a soak's orders page went from 12
 * to 41 ms at p99 in 25 minutes), while a seller paging through orders needs to know there are many, not how many.
 * The API's `total` stays exact (the contract's envelope); this is for the pages people read.
 */
export async function listOrdersBounded(
  deps: Deps,
  f: repo.OrderFilter,
  page: PageParams,
  search: repo.OrderSearch,
  countUpTo: number,
): Promise<Page<OrderView> & { totalAtLeast: boolean }> {
  const list = await listPage(page, () => repo.countOrdersUpTo(deps.db, f, search, countUpTo + 1), pageOfOrders(deps, f, search), (view) => view);
  return list.total > countUpTo ? { ...list, total: countUpTo, totalAtLeast: true } : { ...list, totalAtLeast: false };
}

function pageOfOrders(deps: Deps, f: repo.OrderFilter, search: repo.OrderSearch) {
  return async (offset: number, limit: number) => {
    const rows = await repo.pageOrders(deps.db, f, offset, limit, search);
    // One query each for the refunds and the licenses of the whole page rather than one per order.
    const refunds = await repo.refundsOf(deps.db, rows.map((r) => r.id));
    return withLicenses(deps.db, deps, rows.map((row) => ({ row, refunds: refunds.get(row.id) ?? [] })));
  };
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
  provider: PaymentProviderName;
  providerPaymentKey: string | null;
  subscriptionId: string | null;
  subscriptionEvent: 'initial' | 'renewal' | 'difference' | null;
  settlementId: string | null;
  /** 할부 months of a card payment (0 = 일시불); null where the gateway did not say. */
  installmentMonths: number | null;
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
    installmentMonths: row.installment_months,
  };
}
