import type { Insertable } from 'kysely';
import type { Db } from '../db';
import type { AuditLogTable } from './tables';

/** Audit-log queries. Every function takes the executor, so a write joins the transaction of the change it records. */

export interface AuditFilter {
  action?: string;
  /** Matches the actor id or the actor name (e.g. `mem_…` or `김운영`). */
  actor?: string;
  from?: Date;
  to?: Date;
  mode?: 'live' | 'test';
}

export async function insertAudit(db: Db, row: Insertable<AuditLogTable>): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

function filtered(db: Db, storeId: string, f: AuditFilter) {
  let q = db.selectFrom('audit_log').where('store_id', '=', storeId);
  if (f.action) q = q.where('action', '=', f.action);
  if (f.actor) {
    const actor = f.actor;
    q = q.where((eb) => eb.or([eb('actor_id', '=', actor), eb('actor_name', '=', actor)]));
  }
  if (f.from) q = q.where('created_at', '>=', f.from);
  if (f.to) q = q.where('created_at', '<', f.to);
  if (f.mode) q = q.where((eb) => eb.or([eb('mode', '=', f.mode!), eb('mode', 'is', null)]));
  return q;
}

export async function countAudit(db: Db, storeId: string, f: AuditFilter): Promise<number> {
  const r = await filtered(db, storeId, f).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function listAudit(db: Db, storeId: string, f: AuditFilter, offset: number, limit: number) {
  return filtered(db, storeId, f).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}
