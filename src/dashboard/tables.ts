// Kysely table types of the dashboard (migration 012_dashboard.sql; second factors: 050). The audit log's table is audit's own (../audit/tables.ts).
import type { ColumnType } from 'kysely';
import type { Json, Mode, Timestamp } from '../platform/tables';

export type MemberRole = 'owner' | 'admin' | 'support' | 'developer';

export interface StoreMembersTable {
  id: string;
  store_id: string;
  email: string;
  name: string;
  role: MemberRole;
  password_hash: string;
  created_at: Timestamp;
  disabled_at: Date | null;
}

export interface DashboardSessionsTable {
  id: string;
  token_hash: string;
  member_id: string;
  store_id: string;
  mode: Mode;
  created_at: Timestamp;
  expires_at: Date;
  last_seen_at: Date;
  ip: string | null;
  user_agent: string | null;
  /** Signed in with the password; the member's second factor is still to come (migration 050). */
  second_factor_pending: ColumnType<boolean, boolean | undefined, boolean>;
  /** When the second factor was last given in this session (sign-in or step-up). */
  second_factor_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/**
 * Home's figures per KST day (migration 133): kept by triggers on orders, order_refunds and subscriptions in the
 * writer's transaction; one store's day spread over 8 `slot` rows, summed when read. The service only reads it. Days
 * more than 32 days before the migration ran were not filled: read it only for the last 30 days (what Home shows).
 */
export interface HomeDailyFiguresTable {
  store_id: string;
  mode: Mode;
  /** The KST calendar day, 'YYYY-MM-DD' (a date column, read as text). */
  day: ColumnType<string, string, string>;
  slot: number;
  paid_amount: ColumnType<number, number | undefined, number>;
  paid_orders: ColumnType<number, number | undefined, number>;
  refunded_amount: ColumnType<number, number | undefined, number>;
  new_subscriptions: ColumnType<number, number | undefined, number>;
}

/**
 * Home's active subscriptions and MRR per store, mode and billing interval, kept by a trigger on subscriptions
 * (migration 135): the sums over `slot` are the count and the per-period amounts of the subscriptions now `active`.
 */
export interface HomeSubscriptionFiguresTable {
  store_id: string;
  mode: Mode;
  billing_interval: 'monthly' | 'yearly';
  slot: number;
  active_count: ColumnType<number, number | undefined, number>;
  active_amount: ColumnType<number, number | undefined, number>;
}

export interface DashboardTables extends SecondFactorTables {
  store_members: StoreMembersTable;
  dashboard_sessions: DashboardSessionsTable;
  home_daily_figures: HomeDailyFiguresTable;
  home_subscription_figures: HomeSubscriptionFiguresTable;
}

export type TwoFactorPolicy = 'none' | 'admins' | 'everyone';

export interface MemberTotpTable {
  member_id: string;
  secret_sealed: string;
  created_at: Date;
  confirmed_at: Date | null;
  last_step: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface MemberRecoveryCodesTable {
  id: string;
  member_id: string;
  code_hash: string;
  created_at: Date;
  used_at: Date | null;
}

export interface MemberPasskeysTable {
  id: string;
  member_id: string;
  store_id: string;
  credential_id: string;
  public_key: string;
  sign_count: ColumnType<number, number | undefined, number>;
  transports: Json<string[]>;
  name: string;
  device_type: string | null;
  backed_up: boolean;
  created_at: Date;
  last_used_at: Date | null;
}

export interface WebauthnChallengesTable {
  id: string;
  challenge: string;
  purpose: 'register' | 'second_factor' | 'sign_in';
  session_id: string | null;
  expires_at: Date;
}

export interface StoreSecurityTable {
  store_id: string;
  two_factor_policy: TwoFactorPolicy;
  refund_step_up_amount: ColumnType<number | null, number | null | undefined, number | null>;
  updated_at: Date;
}

export interface SecondFactorTables {
  member_totp: MemberTotpTable;
  member_recovery_codes: MemberRecoveryCodesTable;
  member_passkeys: MemberPasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  store_security: StoreSecurityTable;
}
