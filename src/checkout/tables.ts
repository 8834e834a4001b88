import type { Json, Mode, Timestamp } from '../platform/tables';

export interface CheckoutSessionsTable {
  id: string;
  store_id: string;
  mode: Mode;
  product_id: string;
  plan_id: string | null;
  billing_interval: 'monthly' | 'yearly' | null;
  amount: number;
  customer_name: string | null;
  customer_email: string | null;
  customer_phone: string | null;
  metadata: Json<Record<string, string> | null>;
  success_url: string | null;
  cancel_url: string | null;
  status: 'open' | 'completed';
  order_id: string | null;
  pending_order_id: string;
  attempt_locked_until: Date | null;
  expires_at: Date;
  completed_at: Date | null;
  created_at: Timestamp;
}

export interface CheckoutTables {
  checkout_sessions: CheckoutSessionsTable;
}
