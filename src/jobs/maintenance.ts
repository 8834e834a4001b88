import type { Module } from '../deps';
import { purgeIdempotencyKeys } from '../platform/http/idempotency';
import { registerQueueMetrics } from './metrics';
import { pruneJobsOnce } from './retention';

/**
 * Housekeeping that every deployment needs: expired idempotency records are purged after their 24 h; finished jobs after
 * their retention (retention.ts); the job queue's gauges.
 */
const maintenance: Module = async (app, deps) => {
  registerQueueMetrics(app, deps);
  deps.worker.addTask({ name: 'idempotency.purge', intervalMs: 60_000, run: (now) => purgeIdempotencyKeys(deps.db, now) });
  deps.worker.addTask({ name: 'jobs.prune', intervalMs: 3_600_000, run: (now) => pruneJobsOnce(deps, now) });
};

export default maintenance;
