// Kysely table types of the refunds module (composed into DB in src/db/types.ts). See migration 006_refunds.sql.
// The refund record itself is `order_refunds` (OrderRefundsTable in src/orders/tables.ts, created in 002).
import type { Mode, Timestamp } from '../platform/tables';
import type { ColumnType } from 'kysely';

export type RefundRequestStatus = 'requested' | 'held' | 'approved' | 'rejected' | 'canceled';

export interface RefundRequestsTable {
  id: string;
  store_id: string;
  mode: Mode;
  order_id: string;
  subscription_id: string | null;
  status: RefundRequestStatus;
  amount: number;
  currency: 'KRW';
  reason: string | null;
  statutory: boolean;
  requested_at: Date;
  decided_at: Date | null;
  decision_reason: string | null;
  refund_id: string | null;
  auto_approve_at: Date | null;
  source: string;
  created_at: Timestamp;
  updated_at: Date;
  // added by 007_refund_requests.sql (the requests module)
  decided_by: 'api' | 'console' | 'auto' | 'buyer' | null;
  approved_amount: number | null;
  approving_since: Date | null;
  /** When the store's owners were reminded of the request's deadline (migration 081); null: not yet. */
  seller_reminded_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface SettlementRoundsTable {
  id: string;
  store_id: string;
  mode: Mode;
  cutoff: Date;
  order_count: number;
  gross: number;
  refunds: number;
  fees: number;
  net: number;
  fee_rate_bps: number;
  source: 'job' | 'console';
  period_key: string | null;
  created_by: string;
  created_at: Timestamp;
  /** Null while the round is filled batch by batch (migration 132); set by the batch that finds nothing more. */
  closed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface SettlementOrdersTable {
  round_id: string;
  order_id: string;
  gross: number;
  refunded: number;
  fee: number;
  net: number;
}

export interface RefundsTables {
  refund_requests: RefundRequestsTable;
  settlement_rounds: SettlementRoundsTable;
  settlement_orders: SettlementOrdersTable;
}
