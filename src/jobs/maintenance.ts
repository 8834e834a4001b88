import type { Module } from '../deps';
import { purgeIdempotencyKeys } from '../platform/http/idempotency';
import { registerQueueMetrics } from './metrics';

/** Housekeeping that every deployment needs: expired idempotency records are purged after their 24 h; the job queue's gauges. */
const maintenance: Module = async (app, deps) => {
  registerQueueMetrics(app, deps);
  deps.worker.addTask({ name: 'idempotency.purge', intervalMs: 60_000, run: (now) => purgeIdempotencyKeys(deps.db, now) });
};

export default maintenance;
