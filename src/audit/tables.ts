// Kysely table type of the audit log (migration 012_dashboard.sql).
import type { Json, Mode, Timestamp } from '../platform/tables';

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

export interface AuditTables {
  audit_log: AuditLogTable;
}
