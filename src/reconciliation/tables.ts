// Kysely table types of the reconciliation module (composed into DB in src/db/types.ts). See migration 018_reconciliations.sql.
import type { ColumnType } from 'kysely';
import type { Mode, Timestamp, TossKeyPair } from '../platform/tables';

export type ReconciliationStatus = 'running' | 'completed' | 'failed';
export type ReconciliationSource = 'job' | 'console' | 'cli';
export type DifferenceKind = 'unknown_here' | 'missing_at_toss' | 'amount_differs' | 'refunds_differ';

export interface ReconciliationsTable {
  id: string;
  store_id: string;
  mode: Mode;
  day: string;
  status: ReconciliationStatus;
  source: ReconciliationSource;
  gateway_transactions: number;
  difference_count: number;
  failure_code: string | null;
  failure_message: string | null;
  created_at: Timestamp;
  completed_at: Date | null;
  /** Whether Toss's settlements of the day were read with the run (migration 069): null before that step. */
  settlements_status: ColumnType<'read' | 'unavailable' | null, 'read' | 'unavailable' | null | undefined, 'read' | 'unavailable' | null>;
  settlements_failure: ColumnType<string | null, string | null | undefined, string | null>;
}

/** One Toss settlement record read with a run (migration 069). */
export interface ReconciliationSettlementsTable {
  reconciliation_id: string;
  seq: number;
  toss_key_pair: TossKeyPair;
  payment_key: string;
  transaction_key: string | null;
  order_id: string;
  method: string | null;
  amount: ColumnType<string, number, number>;
  fee: ColumnType<string, number, number>;
  fee_supply_amount: ColumnType<string, number, number>;
  fee_vat: ColumnType<string, number, number>;
  pay_out_amount: ColumnType<string, number, number>;
  sold_date: string;
  paid_out_date: string;
  canceled: boolean;
}

export interface ReconciliationDifferencesTable {
  reconciliation_id: string;
  seq: number;
  kind: DifferenceKind;
  order_id: string;
  payment_key: string | null;
  our_amount: number | null;
  gateway_amount: number | null;
}

export interface ReconciliationTables {
  reconciliations: ReconciliationsTable;
  reconciliation_differences: ReconciliationDifferencesTable;
  reconciliation_settlements: ReconciliationSettlementsTable;
}
