import type { Selectable } from 'kysely';
import type { Db } from '../db';
import { jsonb } from '../db';
import type { Clock } from '../platform/clock';
import { newId } from '../platform/ids';
import type { Mode } from '../platform/tables';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { AuditActorKind, AuditLogTable } from './tables';
import * as repo from './repo';

export interface AuditActor {
  kind: AuditActorKind;
  id: string | null;
  name: string | null;
}

/** Where a request came from, copied onto its audit entries. */
export interface AuditOrigin {
  ip: string | null;
  userAgent: string | null;
}

export interface AuditEntry {
  storeId: string;
  mode: Mode | null;
  actor: AuditActor;
  /** Dotted verb, e.g. `api_key.rotated`, `member.created`, `console.POST /admin/v1/products`. */
  action: string;
  target?: { type: string; id: string } | null;
  details?: Record<string, unknown>;
  origin?: AuditOrigin | null;
}

/** User agents are kept short: the log says "from where", not a fingerprint. */
const UA_MAX = 300;

/**
 * Writes one audit entry. Pass the transaction of the change when the use case has one, so the entry exists exactly
 * when the change does; otherwise call it right after the change succeeded.
 */
export async function recordAudit(executor: Db, clock: Clock, entry: AuditEntry): Promise<void> {
  await repo.insertAudit(executor, {
    id: newId('aud', clock),
    store_id: entry.storeId,
    mode: entry.mode,
    actor_kind: entry.actor.kind,
    actor_id: entry.actor.id,
    actor_name: entry.actor.name,
    action: entry.action,
    target_type: entry.target?.type ?? null,
    target_id: entry.target?.id ?? null,
    details: jsonb(entry.details ?? {}),
    ip: entry.origin?.ip ?? null,
    user_agent: entry.origin?.userAgent ? entry.origin.userAgent.slice(0, UA_MAX) : null,
    created_at: clock.now(),
  });
}

export interface AuditView {
  id: string;
  mode: Mode | null;
  actor: { kind: AuditActorKind; id: string | null; name: string | null };
  action: string;
  target: { type: string; id: string } | null;
  details: Record<string, unknown>;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
}

export function auditView(r: Selectable<AuditLogTable>): AuditView {
  return {
    id: r.id,
    mode: r.mode,
    actor: { kind: r.actor_kind, id: r.actor_id, name: r.actor_name },
    action: r.action,
    target: r.target_type && r.target_id ? { type: r.target_type, id: r.target_id } : null,
    details: (r.details ?? {}) as Record<string, unknown>,
    ip: r.ip,
    userAgent: r.user_agent,
    createdAt: new Date(r.created_at).toISOString(),
  };
}

export async function listAuditLog(db: Db, storeId: string, f: repo.AuditFilter, page: PageParams) {
  return listPage(
    page,
    () => repo.countAudit(db, storeId, f),
    (offset, limit) => repo.listAudit(db, storeId, f, offset, limit),
    auditView,
  );
}
