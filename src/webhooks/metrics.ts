import { Gauge } from 'prom-client';
import type { App, AppDeps } from '../deps';
import { cachedReading } from '../platform/metrics-registry';
import { pendingDeliveryStats } from './repo';

/**
 * Webhook backlog gauges on /metrics, read when scraped (one statement, reused for GAUGE_CACHE_MS):
 * `commerce_webhook_deliveries_pending` and `commerce_webhook_oldest_pending_age_seconds`. The delivery lag of those
 * that went out is the histogram `commerce_webhook_delivery_lag_seconds` (src/webhooks/delivery.ts).
 */
export function registerWebhookMetrics(app: App, deps: Pick<AppDeps, 'db' | 'clock'>): void {
  const read = cachedReading(async () => ({ now: deps.clock.now(), stats: await pendingDeliveryStats(deps.db) }), deps.clock);
  new Gauge({
    name: 'commerce_webhook_deliveries_pending',
    help: 'Webhook deliveries not yet accepted by their endpoint and still to be tried (the backlog)',
    registers: [app.metricsRegistry],
    async collect() {
      const r = await read();
      if (r) this.set(r.stats.pending);
    },
  });
  new Gauge({
    name: 'commerce_webhook_oldest_pending_age_seconds',
    help: 'Age of the oldest pending webhook delivery (0 when none is pending)',
    registers: [app.metricsRegistry],
    async collect() {
      const r = await read();
      if (r) this.set(r.stats.oldestCreatedAt ? Math.max(0, r.now.getTime() - r.stats.oldestCreatedAt.getTime()) / 1000 : 0);
    },
  });
}
