import type { Db } from '../db';
import { jsonb } from '../db';
import type { Clock } from '../platform/clock';
import type { ClaimedJob } from '../platform/background';

export type { ClaimedJob } from '../platform/background';
import { newId } from '../platform/ids';
import * as repo from './repo';

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
  /**
   * Jobs of one lane (e.g. one store and mode's notification lookups) are claimed in turn with other lanes' (see
   * repo.lockDueJobs), so a burst in one lane cannot hold the others' work behind it. Without one, a job is its own lane.
   */
  lane?: string;
  maxAttempts?: number;
}

/** Enqueue inside the caller's transaction, so the job exists exactly when the change that asked for it does. */
export async function enqueueJob(trx: Db, clock: Clock, opts: EnqueueOptions): Promise<void> {
  const now = clock.now();
  await repo.insertJob(trx, {
    id: newId('job', clock),
    name: opts.name,
    payload: jsonb(opts.payload),
    status: 'pending',
    run_at: opts.runAt ?? now,
    max_attempts: opts.maxAttempts ?? RETRY_SCHEDULE_MS.length + 1,
    dedupe_key: opts.dedupeKey ?? null,
    lane: opts.lane ?? null,
    created_at: now,
    updated_at: now,
  });
}


/**
 * Claims due jobs atomically: FOR UPDATE SKIP LOCKED means two workers never take the same job. A job whose
 * worker died (running past locked_until) becomes claimable again, so work is retried rather than lost. Lanes take
 * turns within a claim (the oldest job of each lane first, then the second of each, …).
 */
export async function claimJobs(db: Db, clock: Clock, workerId: string, names: string[], limit: number, leaseMs = 300_000): Promise<ClaimedJob[]> {
  if (names.length === 0) return [];
  const now = clock.now();
  return db.transaction().execute(async (trx) => {
    const due = await repo.lockDueJobs(trx, names, now, limit);
    if (due.length === 0) return [];
    const rows = await repo.markJobsRunning(trx, due.map((d) => d.id), workerId, new Date(now.getTime() + leaseMs), now);
    // UPDATE … RETURNING gives rows in the table's order: put them back in the claim's (lanes in turn), which the
    // worker runs them in.
    const turn = new Map(due.map((d, i) => [d.id, i]));
    rows.sort((a, b) => turn.get(a.id)! - turn.get(b.id)!);
    return rows.map((r) => ({ id: r.id, name: r.name, payload: r.payload, attempts: r.attempts, maxAttempts: r.max_attempts }));
  });
}

export async function completeJob(db: Db, clock: Clock, id: string): Promise<void> {
  await repo.markJobDone(db, id, clock.now());
}

export async function failJob(db: Db, clock: Clock, job: ClaimedJob, error: string): Promise<void> {
  const now = clock.now();
  const delay = job.attempts < job.maxAttempts ? retryDelayMs(job.attempts) : null;
  await repo.releaseFailedJob(
    db,
    job.id,
    { status: delay === null ? 'failed' : 'pending', runAt: delay === null ? now : new Date(now.getTime() + delay), lastError: error.slice(0, 2000) },
    now,
  );
}

/** Releases jobs this worker claimed and will not run (see repo.releaseClaimedJobs). */
export function releaseJobs(db: Db, clock: Clock, workerId: string, ids: string[]): Promise<number> {
  return repo.releaseClaimedJobs(db, ids, workerId, clock.now());
}

/** See repo.releaseDedupeKey: called by a running job whose key must accept a new pending job at once. */
export function releaseDedupeKey(db: Db, jobId: string): Promise<void> {
  return repo.releaseDedupeKey(db, jobId);
}
