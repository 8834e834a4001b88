// Kysely table types of the reconciliation module (composed into DB in src/db/types.ts). See migration 018_reconciliations.sql.
import type { Mode, Timestamp } from '../platform/tables';

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
}
