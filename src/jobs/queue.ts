import { sql } from 'kysely';
import type { Db } from '../db';
import { jsonb } from '../db';
import type { Clock } from '../platform/clock';
import { newId } from '../platform/ids';

/** Retry schedule after a failed attempt n (1-based): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

export function retryDelayMs(attempt: number): number | null {
  return attempt >= 1 && attempt <= RETRY_SCHEDULE_MS.length ? RETRY_SCHEDULE_MS[attempt - 1] : null;
}

export interface EnqueueOptions {
  name: string;
  payload: Record<string, unknown>;
  runAt?: Date;
  /** At most one pending or running job per dedupe key; a second enqueue is a no-op. */
  dedupeKey?: string;
  maxAttempts?: number;
}

/** Enqueue inside the caller's transaction, so the job exists exactly when the change that asked for it does. */
export async function enqueueJob(trx: Db, clock: Clock, opts: EnqueueOptions): Promise<void> {
  const now = clock.now();
  let q = trx.insertInto('jobs').values({
    id: newId('job', clock),
    name: opts.name,
    payload: jsonb(opts.payload),
    status: 'pending',
    run_at: opts.runAt ?? now,
    max_attempts: opts.maxAttempts ?? RETRY_SCHEDULE_MS.length + 1,
    dedupe_key: opts.dedupeKey ?? null,
    created_at: now,
    updated_at: now,
  });
  // The conflict target names the partial unique index by its predicate, written as literals: PostgreSQL infers the
  // arbiter index when it plans the statement, and a named prepared statement is planned without parameter values.
  if (opts.dedupeKey) q = q.onConflict((oc) => oc.column('dedupe_key').where(sql<boolean>`dedupe_key is not null and status in ('pending', 'running')`).doNothing()) as typeof q;
  await q.execute();
}

export interface ClaimedJob {
  id: string;
  name: string;
  payload: Record<string, unknown>;
  attempts: number;
  maxAttempts: number;
}

/**
 * Claims due jobs atomically: FOR UPDATE SKIP LOCKED means two workers never take the same job. A job whose
 * worker died (running past locked_until) becomes claimable again, so work is retried rather than lost.
 */
export async function claimJobs(db: Db, clock: Clock, workerId: string, names: string[], limit: number, leaseMs = 300_000): Promise<ClaimedJob[]> {
  if (names.length === 0) return [];
  const now = clock.now();
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('jobs')
      .select(['id'])
      .where('name', 'in', names)
      .where((eb) => eb.or([eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', now)]), eb.and([eb('status', '=', 'running'), eb('locked_until', '<=', now)])]))
      .orderBy('run_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (due.length === 0) return [];
    const rows = await trx
      .updateTable('jobs')
      .set({ status: 'running', locked_by: workerId, locked_until: new Date(now.getTime() + leaseMs), attempts: sql`attempts + 1`, updated_at: now })
      .where('id', 'in', due.map((d) => d.id))
      .returning(['id', 'name', 'payload', 'attempts', 'max_attempts'])
      .execute();
    return rows.map((r) => ({ id: r.id, name: r.name, payload: r.payload, attempts: r.attempts, maxAttempts: r.max_attempts }));
  });
}

export async function completeJob(db: Db, clock: Clock, id: string): Promise<void> {
  await db.updateTable('jobs').set({ status: 'done', locked_by: null, locked_until: null, updated_at: clock.now() }).where('id', '=', id).execute();
}

export async function failJob(db: Db, clock: Clock, job: ClaimedJob, error: string): Promise<void> {
  const now = clock.now();
  const delay = job.attempts < job.maxAttempts ? retryDelayMs(job.attempts) : null;
  await db
    .updateTable('jobs')
    .set({
      status: delay === null ? 'failed' : 'pending',
      run_at: delay === null ? now : new Date(now.getTime() + delay),
      last_error: error.slice(0, 2000),
      locked_by: null,
      locked_until: null,
      updated_at: now,
    })
    .where('id', '=', job.id)
    .execute();
}
