import type { AppDeps } from '../deps';
import { DAY } from '../platform/clock';
import { deleteFinishedJobsBefore } from './repo';

/**
 * Retention of the job queue (the `jobs.prune` task, hourly): done jobs older than JOB_RETENTION_DONE_DAYS (7) and dead
 * ones (failed after their retries, what an operator investigates) older than JOB_RETENTION_DEAD_DAYS (30) are deleted,
 * counted from their last change, 500 rows a statement until none is left. Pending and running jobs are never deleted.
 */
export async function pruneJobsOnce(deps: Pick<AppDeps, 'db' | 'config'>, now: Date): Promise<number> {
  let n = 0;
  const limits: Array<['done' | 'failed', number]> = [
    ['done', deps.config.jobRetentionDoneDays],
    ['failed', deps.config.jobRetentionDeadDays],
  ];
  for (const [status, days] of limits) {
    const before = new Date(now.getTime() - days * DAY);
    for (;;) {
      const deleted = await deleteFinishedJobsBefore(deps.db, status, before);
      n += deleted;
      if (deleted === 0) break;
    }
  }
  return n;
}
