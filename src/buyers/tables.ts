// Kysely table types of the buyer sign-in (migration 077_buyer_sign_in.sql).
import type { Mode, Timestamp } from '../platform/tables';

export interface BuyerSignInLinksTable {
  id: string;
  store_id: string;
  mode: Mode;
  /** Lower-cased: buyers are matched case-insensitively. */
  email: string;
  token_hash: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: Timestamp;
}

export interface BuyerSessionsTable {
  id: string;
  store_id: string;
  mode: Mode;
  email: string;
  token_hash: string;
  csrf_secret: string;
  expires_at: Date;
  ended_at: Date | null;
  created_at: Timestamp;
}

export interface BuyersTables {
  buyer_sign_in_links: BuyerSignInLinksTable;
  buyer_sessions: BuyerSessionsTable;
}
