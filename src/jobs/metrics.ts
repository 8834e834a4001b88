import { Gauge } from 'prom-client';
import type { App, AppDeps } from '../deps';
import { cachedReading } from '../platform/metrics-registry';
import { queueStats } from './repo';

/**
 * Job queue gauges on /metrics, read from the database when scraped (one statement, reused for GAUGE_CACHE_MS):
 * `commerce_jobs_queued{state}` (due, scheduled, running) and `commerce_jobs_oldest_due_age_seconds` (how long the
 * oldest due job has waited for a worker; 0 when none waits). The queue is shared, so every process reports the same.
 */
export function registerQueueMetrics(app: App, deps: Pick<AppDeps, 'db' | 'clock'>): void {
  const read = cachedReading(async () => {
    const now = deps.clock.now();
    return { now, stats: await queueStats(deps.db, now) };
  }, deps.clock);
  new Gauge({
    name: 'commerce_jobs_queued',
    help: 'Background jobs by state: due (waiting for a worker), scheduled (later), running',
    labelNames: ['state'],
    registers: [app.metricsRegistry],
    async collect() {
      const r = await read();
      if (!r) return;
      this.set({ state: 'due' }, r.stats.due);
      this.set({ state: 'scheduled' }, r.stats.scheduled);
      this.set({ state: 'running' }, r.stats.running);
    },
  });
  new Gauge({
    name: 'commerce_jobs_oldest_due_age_seconds',
    help: 'How long the oldest due job has been waiting for a worker (0 when none is due)',
    registers: [app.metricsRegistry],
    async collect() {
      const r = await read();
      if (!r) return;
      this.set(r.stats.oldestDueAt ? Math.max(0, r.now.getTime() - r.stats.oldestDueAt.getTime()) / 1000 : 0);
    },
  });
}
