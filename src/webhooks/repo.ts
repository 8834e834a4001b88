import { sql, type Selectable } from 'kysely';
import type { Db } from '../db';
import { jsonb } from '../db';
import type { Mode } from '../platform/tables';
import type { DeliveryTrigger, StoredSecret, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './tables';

/** Kysely queries of the webhooks module. Every function takes the executor, so a use case can compose them in one transaction. */

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

// ---------- endpoints ----------

/** Enabled endpoints of the store+mode subscribed to `eventType`, oldest first (the jsonb containment test). */
export async function enabledEndpointsForEvent(db: Db, storeId: string, mode: Mode, eventType: string): Promise<Array<Pick<EndpointRow, 'id' | 'url' | 'secrets'>>> {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'secrets'])
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('status', '=', 'enabled')
    .where(sql<boolean>`event_types @> ${JSON.stringify([eventType])}::jsonb`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function insertEndpoint(
  db: Db,
  e: { id: string; storeId: string; mode: Mode; url: string; eventTypes: string[]; description: string | null; secrets: StoredSecret[]; now: Date },
): Promise<EndpointRow> {
  return db
    .insertInto('webhook_endpoints')
    .values({
      id: e.id,
      store_id: e.storeId,
      mode: e.mode,
      url: e.url,
      event_types: jsonb(e.eventTypes),
      description: e.description,
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      secrets: jsonb(e.secrets),
      failing_since: null,
      created_at: e.now,
      updated_at: e.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findEndpoint(db: Db, storeId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<EndpointRow | undefined> {
  let q = db.selectFrom('webhook_endpoints').selectAll().where('store_id', '=', storeId).where('id', '=', id);
  if (opts.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function countEndpoints(db: Db, storeId: string, mode: Mode | undefined): Promise<number> {
  let q = db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n')).where('store_id', '=', storeId);
  if (mode) q = q.where('mode', '=', mode);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

export async function listEndpoints(db: Db, storeId: string, mode: Mode | undefined, offset: number, limit: number): Promise<EndpointRow[]> {
  let q = db.selectFrom('webhook_endpoints').selectAll().where('store_id', '=', storeId);
  if (mode) q = q.where('mode', '=', mode);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}

export async function updateEndpoint(
  db: Db,
  id: string,
  patch: Partial<{
    url: string;
    event_types: string[];
    description: string | null;
    status: 'enabled' | 'disabled';
    disabled_reason: string | null;
    disabled_at: Date | null;
    secrets: StoredSecret[];
    failing_since: Date | null;
  }> & { updated_at: Date },
): Promise<EndpointRow> {
  const { event_types, secrets, ...rest } = patch;
  return db
    .updateTable('webhook_endpoints')
    .set({ ...rest, ...(event_types ? { event_types: jsonb(event_types) } : {}), ...(secrets ? { secrets: jsonb(secrets) } : {}) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteEndpoint(db: Db, storeId: string, id: string): Promise<number> {
  const r = await db.deleteFrom('webhook_endpoints').where('store_id', '=', storeId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Endpoints holding more than one secret: the only ones a rotated-out secret can still sit on. */
export async function endpointsWithSeveralSecrets(db: Db): Promise<Array<{ id: string; secrets: StoredSecret[] }>> {
  return db.selectFrom('webhook_endpoints').select(['id', 'secrets']).where(sql<boolean>`jsonb_array_length(secrets) > 1`).execute();
}

export async function setEndpointSecrets(db: Db, id: string, secrets: StoredSecret[]): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ secrets: jsonb(secrets) }).where('id', '=', id).execute();
}

/** Ends every pending delivery of an endpoint that was just disabled (they stay resendable). */
export async function failPendingDeliveries(db: Db, endpointId: string, now: Date, error: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null, last_error: error, updated_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}

// ---------- fan-out ----------

/** Locks a batch of undispatched events; SKIP LOCKED lets a second dispatcher take the next batch instead of waiting. */
export async function lockUndispatchedEvents(trx: Db, limit: number) {
  return trx
    .selectFrom('events')
    .select(['id', 'store_id', 'mode', 'type'])
    .where('dispatched_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function enabledEndpointsOfStores(trx: Db, storeIds: string[]) {
  if (storeIds.length === 0) return [];
  return trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'store_id', 'mode', 'event_types'])
    .where('store_id', 'in', storeIds)
    .where('status', '=', 'enabled')
    .orderBy('created_at')
    .execute();
}

export async function markDispatched(trx: Db, eventIds: string[], now: Date): Promise<void> {
  if (eventIds.length === 0) return;
  await trx.updateTable('events').set({ dispatched_at: now }).where('id', 'in', eventIds).execute();
}

export interface NewDelivery {
  id: string;
  eventId: string;
  endpointId: string;
  storeId: string;
  mode: Mode;
  trigger: DeliveryTrigger;
}

export async function insertDeliveries(trx: Db, rows: NewDelivery[], now: Date): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto('webhook_deliveries')
    .values(
      rows.map((d) => ({
        id: d.id,
        event_id: d.eventId,
        endpoint_id: d.endpointId,
        store_id: d.storeId,
        mode: d.mode,
        trigger: d.trigger,
        status: 'pending' as const,
        attempts: 0,
        next_attempt_at: now,
        locked_by: null,
        locked_until: null,
        last_status_code: null,
        last_error: null,
        last_attempt_at: null,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
}

// ---------- delivery ----------

/**
 * Takes a lease on due deliveries: due, pending, and not leased (or the lease ran out: its worker died). The row
 * locks plus SKIP LOCKED mean two workers never lease the same delivery; the lease then outlives this transaction.
 */
export async function leaseDueDeliveries(trx: Db, o: { now: Date; token: string; leaseUntil: Date; limit: number; ids?: string[] }): Promise<DeliveryRow[]> {
  let q = trx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', o.now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', o.now)]));
  if (o.ids) q = q.where('id', 'in', o.ids);
  const due = await q.orderBy('next_attempt_at').orderBy('id').limit(o.limit).forUpdate().skipLocked().execute();
  if (due.length === 0) return [];
  return trx
    .updateTable('webhook_deliveries')
    .set({ locked_by: o.token, locked_until: o.leaseUntil })
    .where('id', 'in', due.map((d) => d.id))
    .returningAll()
    .execute();
}

export async function eventsByIds(db: Db, ids: string[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('events').selectAll().where('id', 'in', ids).execute();
}

export async function endpointsByIds(db: Db, ids: string[]): Promise<EndpointRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', ids).execute();
}

/** Locks deliveries in id order (a fixed order, so two recorders can never deadlock). */
export async function lockDeliveries(trx: Db, ids: string[]): Promise<DeliveryRow[]> {
  if (ids.length === 0) return [];
  return trx.selectFrom('webhook_deliveries').selectAll().where('id', 'in', ids).orderBy('id').forUpdate().execute();
}

export async function insertAttempts(trx: Db, rows: AttemptRow[]): Promise<void> {
  if (rows.length === 0) return;
  await trx.insertInto('webhook_attempts').values(rows).execute();
}

export interface DeliveryUpdate {
  id: string;
  /** null keeps the current status and next_attempt_at (someone else holds the lease). */
  status: 'pending' | 'succeeded' | 'failed' | null;
  nextAttemptAt: Date | null;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  /** Clear the lease (the holder is done with it). */
  release: boolean;
}

/** All of a batch's delivery updates in one statement (UPDATE … FROM VALUES). */
export async function applyDeliveryUpdates(trx: Db, updates: DeliveryUpdate[], now: Date): Promise<void> {
  if (updates.length === 0) return;
  const values = sql.join(
    updates.map(
      (u) =>
        sql`(${u.id}::text, ${u.status}::text, ${u.nextAttemptAt}::timestamptz, ${u.attempts}::int, ${u.lastStatusCode}::int, ${u.lastError}::text, ${u.lastAttemptAt}::timestamptz, ${u.release}::boolean)`,
    ),
  );
  await sql`
    update webhook_deliveries as d set
      status = coalesce(v.status, d.status),
      next_attempt_at = case when v.status is null then d.next_attempt_at else v.next_attempt_at end,
      attempts = v.attempts,
      last_status_code = v.last_status_code,
      last_error = v.last_error,
      last_attempt_at = v.last_attempt_at,
      locked_by = case when v.release then null else d.locked_by end,
      locked_until = case when v.release then null else d.locked_until end,
      updated_at = ${now}::timestamptz
    from (values ${values}) as v(id, status, next_attempt_at, attempts, last_status_code, last_error, last_attempt_at, release)
    where d.id = v.id`.execute(trx);
}

export async function disableEndpoint(db: Db, id: string, reason: string, failingSince: Date | null, now: Date): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_reason: reason, disabled_at: now, failing_since: failingSince, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'enabled')
    .execute();
}

/** Conditional, so recorders racing on one endpoint keep the earliest start of its failure run. */
export async function startFailingSince(db: Db, id: string, since: Date, now: Date): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ failing_since: since, updated_at: now }).where('id', '=', id).where('failing_since', 'is', null).execute();
}

export async function clearFailingSince(db: Db, id: string, now: Date): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ failing_since: null, updated_at: now }).where('id', '=', id).where('failing_since', 'is not', null).execute();
}

/** Deliveries still to be made (pending) and the creation time of the oldest, for /metrics (partial index on pending). */
export async function pendingDeliveryStats(db: Db): Promise<{ pending: number; oldestCreatedAt: Date | null }> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select([sql<string>`count(*)`.as('pending'), sql<Date | null>`min(created_at)`.as('oldest')])
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { pending: Number(row.pending), oldestCreatedAt: row.oldest === null ? null : new Date(row.oldest) };
}
