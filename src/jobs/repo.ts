import { sql, type Insertable } from 'kysely';
import type { Db } from '../db';
import type { JobsTable } from '../platform/tables';

/** Inserts a job; with a dedupe key, a second pending or running job of that key is not inserted (no error). */
export async function insertJob(trx: Db, row: Insertable<JobsTable>): Promise<void> {
  let q = trx.insertInto('jobs').values(row);
  // The conflict target names the partial unique index by its predicate, written as literals: PostgreSQL infers the
  // arbiter index when it plans the statement, and a named prepared statement is planned without parameter values.
  if (row.dedupe_key) q = q.onConflict((oc) => oc.column('dedupe_key').where(sql<boolean>`dedupe_key is not null and status in ('pending', 'running')`).doNothing()) as typeof q;
  await q.execute();
}

/**
 * Locks up to `limit` due jobs of these names: pending ones whose time has come, and running ones whose lease ran out
 * (their worker died). FOR UPDATE SKIP LOCKED: two workers never take the same job.
 *
 * Lanes take turns: each lane's oldest due job first, then each lane's second, and so on (oldest first within a turn);
 * jobs without a lane form one default lane. A store whose notifications flood its lane (thousands of lookups) then
 * delays another store's by at most one job per turn, where oldest-first would put them behind the whole flood.
 * The lanes with work are found by a loose index scan over jobs_lane_due_idx (one probe per lane), and each lane gives
 * at most `limit` candidates, so a claim costs lanes × limit rows, whatever the backlog.
 */
export async function lockDueJobs(trx: Db, names: string[], now: Date, limit: number): Promise<Array<{ id: string }>> {
  const list = sql.join(names);
  // Literal statuses, as in the partial indexes' predicates, so the planner can use them for any parameter values.
  const due = (t: string) =>
    sql`((${sql.ref(`${t}.status`)} = 'pending' and ${sql.ref(`${t}.run_at`)} <= ${now}) or (${sql.ref(`${t}.status`)} = 'running' and ${sql.ref(`${t}.locked_until`)} <= ${now}))`;
  const { rows } = await sql<{ id: string }>`
    with recursive lanes as (
      (select lane from jobs where lane is not null and status in ('pending', 'running') order by lane limit 1)
      union all
      select (select n.lane from jobs n where n.lane > l.lane and n.status in ('pending', 'running') order by n.lane limit 1)
      from lanes l where l.lane is not null
    ),
    candidates as (
      select c.id, c.run_at, row_number() over (partition by c.lane order by c.run_at, c.id) as turn
      from (
        select x.id, x.run_at, x.lane from lanes l cross join lateral (
          select j.id, j.run_at, j.lane from jobs j
          where j.lane = l.lane and j.status in ('pending', 'running') and j.name in (${list}) and ${due('j')}
          order by j.run_at, j.id limit ${limit}
        ) x
        where l.lane is not null
        union all
        select * from (
          select d.id, d.run_at, d.lane from jobs d
          where d.lane is null and d.status in ('pending', 'running') and d.name in (${list}) and ${due('d')}
          order by d.run_at limit ${limit}
        ) y
      ) c
    )
    select k.id from jobs k join candidates c on c.id = k.id
    where ${due('k')}
    order by c.turn, c.run_at
    limit ${limit}
    for update of k skip locked`.execute(trx);
  return rows;
}

/** Leases the locked jobs to a worker and counts the attempt. */
export function markJobsRunning(trx: Db, ids: string[], workerId: string, lockedUntil: Date, now: Date) {
  return trx
    .updateTable('jobs')
    .set({ status: 'running', locked_by: workerId, locked_until: lockedUntil, attempts: sql`attempts + 1`, updated_at: now })
    .where('id', 'in', ids)
    .returning(['id', 'name', 'payload', 'attempts', 'max_attempts'])
    .execute();
}

export async function markJobDone(db: Db, id: string, now: Date): Promise<void> {
  await db.updateTable('jobs').set({ status: 'done', locked_by: null, locked_until: null, updated_at: now }).where('id', '=', id).execute();
}

/** Releases a failed attempt: back to pending at `runAt` for a retry, or failed for good. */
export async function releaseFailedJob(db: Db, id: string, next: { status: 'pending' | 'failed'; runAt: Date; lastError: string }, now: Date): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      status: next.status,
      run_at: next.runAt,
      last_error: next.lastError,
      locked_by: null,
      locked_until: null,
      updated_at: now,
    })
    .where('id', '=', id)
    .execute();
}

/**
 * The queue at `now`, for /metrics: due (pending, run_at passed), scheduled (pending, later), running, and the run_at of
 * the oldest due job. One statement over the partial index jobs_due_idx (pending and running jobs only).
 */
export async function queueStats(db: Db, now: Date): Promise<{ due: number; scheduled: number; running: number; oldestDueAt: Date | null }> {
  const row = await db
    .selectFrom('jobs')
    .select([
      sql<string>`count(*) filter (where status = 'pending' and run_at <= ${now})`.as('due'),
      sql<string>`count(*) filter (where status = 'pending' and run_at > ${now})`.as('scheduled'),
      sql<string>`count(*) filter (where status = 'running')`.as('running'),
      sql<Date | null>`min(run_at) filter (where status = 'pending' and run_at <= ${now})`.as('oldest_due_at'),
    ])
    .where('status', 'in', ['pending', 'running'])
    .executeTakeFirstOrThrow();
  const oldest = row.oldest_due_at === null ? null : new Date(row.oldest_due_at);
  return { due: Number(row.due), scheduled: Number(row.scheduled), running: Number(row.running), oldestDueAt: oldest };
}

/**
 * Gives back jobs a worker claimed but did not start (it is stopping): pending again, due at their old time, the
 * claim's attempt not counted, so another worker takes them at once. Only rows still leased to this worker change.
 */
export async function releaseClaimedJobs(db: Db, ids: string[], workerId: string, now: Date): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await db
    .updateTable('jobs')
    .set({ status: 'pending', locked_by: null, locked_until: null, attempts: sql`greatest(attempts - 1, 0)`, updated_at: now })
    .where('id', 'in', ids)
    .where('status', '=', 'running')
    .where('locked_by', '=', workerId)
    .returning('id')
    .execute();
  return rows.length;
}

/**
 * Gives up a running job's dedupe key, so that the same key can be enqueued again while it runs (a later notice of
 * something this job already started reading must not be swallowed by it); pending ones still coalesce.
 */
export async function releaseDedupeKey(db: Db, id: string): Promise<void> {
  await db.updateTable('jobs').set({ dedupe_key: null }).where('id', '=', id).where('status', '=', 'running').execute();
}

/**
 * Retention: deletes up to `batch` finished jobs of one status (`done`, or `failed`: dead, given up after its retries)
 * whose last change is older than `before`. A pending or running job is never touched. Bounded batches keep each
 * statement short and its locks few; jobs_finished_idx finds them without reading the queue.
 */
export async function deleteFinishedJobsBefore(db: Db, status: 'done' | 'failed', before: Date, batch = 500): Promise<number> {
  // The status is a literal, as in the partial index's predicate, so a generic plan can use the index.
  const st = sql.lit(status);
  const r = await sql`
    delete from jobs where id in (
      select id from jobs where status = ${st} and updated_at < ${before} order by updated_at limit ${batch}
    ) and status = ${st}`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
