// Kysely table types of the dashboard and the audit log (migration 012_dashboard.sql).
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
}

export type AuditActorKind = 'member' | 'owner_token' | 'operator';

export interface AuditLogTable {
  id: string;
  store_id: string;
  mode: Mode | null;
  actor_kind: AuditActorKind;
  actor_id: string | null;
  actor_name: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Json<Record<string, unknown>>;
  ip: string | null;
  user_agent: string | null;
  created_at: Timestamp;
}

export interface DashboardTables {
  store_members: StoreMembersTable;
  dashboard_sessions: DashboardSessionsTable;
  audit_log: AuditLogTable;
}
