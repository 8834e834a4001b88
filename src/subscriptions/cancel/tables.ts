// Kysely table types of the cancellation and portal tables (migration 009_subscription_cancel_portal.sql).
import type { Json, Mode, Timestamp } from '../../platform/tables';
import type { ImmediatePreview } from './model';

export interface PlannedRefund {
  orderId: string;
  amount: number;
}

export interface SubscriptionCancellationsTable {
  id: string;
  subscription_id: string;
  store_id: string;
  mode: Mode;
  actor: 'seller' | 'buyer';
  reason: string | null;
  status: 'refunding' | 'completed' | 'failed';
  preview: Json<ImmediatePreview>;
  plan: Json<PlannedRefund[]>;
  refund_amount: number;
  refunded_order_ids: Json<string[]>;
  refund_request_id: string | null;
  locked_until: Date | null;
  error_code: string | null;
  created_at: Timestamp;
  updated_at: Date;
}

export interface PortalSessionsTable {
  id: string;
  store_id: string;
  mode: Mode;
  buyer_email: string;
  subscription_id: string;
  product_ids: Json<string[] | null>;
  return_url: string | null;
  token_hash: string;
  csrf_secret: string;
  expires_at: Date;
  created_at: Timestamp;
}

/** A card registration opened from the portal (migration 010): the single-use state its return routes must carry. */
export interface PortalCardUpdatesTable {
  id: string;
  portal_session_id: string;
  subscription_id: string;
  state_hash: string;
  status: 'open' | 'used' | 'failed';
  expires_at: Date;
  used_at: Date | null;
  created_at: Timestamp;
}

export interface CancelPortalTables {
  subscription_cancellations: SubscriptionCancellationsTable;
  portal_sessions: PortalSessionsTable;
  portal_card_updates: PortalCardUpdatesTable;
}
