import { Registry, Counter, Histogram, type CounterConfiguration, type HistogramConfiguration } from 'prom-client';

/**
 * The process's business metrics (`commerce_*`): counters and histograms that domain code moves where things happen
 * (a payment settled, a refund answered, a Toss call returned), without threading a registry through every call.
 * /metrics serves them after the app's own registry (src/platform/http/metrics.ts). They count what this process
 * did; Prometheus sums the processes.
 *
 * Gauges that read the database (queue depth, webhook backlog) belong to one app's database instead: a module
 * registers them on `app.metricsRegistry` with `cachedGauge` below.
 *
 * Defining a metric twice (a module evaluated twice under a test runner) returns the first one instead of throwing.
 */
export const processMetrics = new Registry();

export function counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
  return (processMetrics.getSingleMetric(config.name) as Counter<L> | undefined) ?? new Counter({ ...config, registers: [processMetrics] });
}

export function histogram<L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L> {
  return (processMetrics.getSingleMetric(config.name) as Histogram<L> | undefined) ?? new Histogram({ ...config, registers: [processMetrics] });
}

/** Seconds: a Toss call takes tens of milliseconds to a minute (billing charges). */
export const LATENCY_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds: a webhook leaves within a second when all is well, and hours later after retries. */
export const LAG_BUCKETS = [0.5, 1, 2, 5, 10, 30, 60, 300, 1800, 3600, 4 * 3600, 24 * 3600];

/** How long a database-backed gauge's reading is reused: a scrape every few seconds costs at most one query per this. */
export const GAUGE_CACHE_MS = 5_000;

/**
 * A reading taken at most once per GAUGE_CACHE_MS of the given clock (the service clock: a test moves it instead of
 * waiting), shared by every gauge fed from it. A failed reading keeps the last values and is retried at the next scrape.
 */
export function cachedReading<T>(read: () => Promise<T>, clock: { now(): Date }, cacheMs = GAUGE_CACHE_MS): () => Promise<T | null> {
  let last: { at: number; value: T } | null = null;
  let pending: Promise<T> | null = null;
  return async () => {
    const now = clock.now().getTime();
    if (last && now >= last.at && now - last.at < cacheMs) return last.value;
    pending ??= read().finally(() => (pending = null));
    try {
      const value = await pending;
      last = { at: now, value };
      return value;
    } catch {
      return last?.value ?? null;
    }
  };
}
