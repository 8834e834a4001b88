import type { Module } from '../deps';
import { purgeIdempotencyKeys } from '../platform/http/idempotency';

/** Housekeeping that every deployment needs: expired idempotency records are purged after their 24 h. */
const maintenance: Module = async (_app, deps) => {
  deps.worker.addTask({ name: 'idempotency.purge', intervalMs: 60_000, run: (now) => purgeIdempotencyKeys(deps.db, now) });
};

export default maintenance;
