import pino, { type Logger } from 'pino';
import { openRedis } from './platform/redis';
import { createRequire } from 'node:module';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config';
import { openDatabase, type Database } from './db';
import { serveControlSocket } from './db/backup';
import { verifyMasterKey } from './db/master-key-check';
import { systemClock, type Clock } from './platform/clock';
import { calendarCoverage, calendarWarning } from './platform/calendar';
import { Worker } from './jobs/worker';
import { buildApp, REDACT } from './app';
import type { App, AppDeps, Lifecycle } from './deps';
import { tracing, traceLogMixin } from './platform/telemetry';

/**
 * JSON lines to stdout through an asynchronous destination: the request path never waits on a write(2). pino's
 * destination flushes what is buffered when the process exits.
 *
 * `pretty` (development) formats in pino-pretty, run as a pino transport in a worker thread so formatting stays off
 * the request path too. pino-pretty is a development dependency: where it is not installed (a production image
 * pruned with --omit=dev) the logs stay JSON and one line says why.
 */
export function createLogger(level: string, format: 'json' | 'pretty' = 'json'): Logger {
  // With tracing on, every line written inside a span carries its trace_id and span_id (src/platform/telemetry.ts).
  const mixin = traceLogMixin();
  const options = { level, redact: { paths: REDACT, censor: '[redacted]' }, ...(mixin ? { mixin } : {}) };
  if (format === 'pretty') {
    let target: string | null = null;
    try {
      target = createRequire(import.meta.url).resolve('pino-pretty');
    } catch {
      target = null;
    }
    if (target) {
      return pino(
        options,
        pino.transport({
          target,
          options: {
            colorize: true,
            translateTime: 'SYS:HH:MM:ss',
            ignore: 'pid,hostname,method,route,status,ms',
            // One line per entry; a request reads `GET /v1/products/:id 200 3.1ms` (its route, never the raw URL).
            singleLine: true,
            messageFormat: '{msg}{if method} {method} {route} {status} {ms}ms{end}',
          },
        }),
      );
    }
    const log = pino(options, pino.destination({ dest: 1, sync: false }));
    log.warn('LOG_FORMAT=pretty needs pino-pretty (a development dependency), which is not installed: logging JSON');
    return log;
  }
  return pino(options, pino.destination({ dest: 1, sync: false }));
}

export interface Runtime {
  deps: AppDeps & { worker: Worker };
  app: App;
  close(): Promise<void>;
  /**
   * Graceful stop (SIGTERM): /ready answers 503 at once and the worker stops taking work (the job it runs finishes,
   * claimed ones are released); requests are still served for `delayMs` (DRAIN_DELAY_MS) so a proxy's health check
   * sees the instance leave; then the listener closes and in-flight requests and the worker get
   * SHUTDOWN_TIMEOUT_MS to finish. Resolves true when all finished in time (the connections are closed either way).
   * `listener: false` is `commerce worker`: no port, no /ready; its log speaks only of the jobs it stops taking.
   * Either logs `stopped` (with `clean`) once everything is closed, so an operator sees the stop completed.
   */
  drain(opts: { delayMs: number; reason: string; listener?: boolean }): Promise<boolean>;
}

/** config → database → migrate → app (+ worker, not started). Used by main, the CLI and the benchmark. */
export async function createRuntime(config: Config, opts: { clock?: Clock; log?: FastifyBaseLogger; database?: Database } = {}): Promise<Runtime> {
  const log = (opts.log ?? createLogger(config.logLevel, config.logFormat)) as FastifyBaseLogger;
  const database = opts.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize, directUrl: config.databaseDirectUrl, preparedStatements: config.databasePreparedStatements, warn: (m) => log.warn(m) }));
  const applied = await database.migrate();
  // With several processes starting together exactly one applies the migrations (the others wait on its lock).
  if (applied.length) log.info({ applied, pid: process.pid }, `migrations applied: ${applied.join(', ')}`);
  // A key other than the one the stored secrets were sealed with is refused before anything is sealed under it.
  try {
    await verifyMasterKey(database.db, config.masterKey);
  } catch (e) {
    if (!opts.database) await database.close();
    throw e;
  }
  const clock = opts.clock ?? systemClock;
  // Business days (withdrawal windows, statutory auto-approvals) need the holidays of the coming year.
  const calendarShort = calendarWarning(clock.now());
  if (calendarShort) log.warn({ coverage: calendarCoverage() }, calendarShort);
  // ioredis is loaded only when REDIS_URL is set (resident memory in every process otherwise).
  const redis = config.redisUrl ? await openRedis(config.redisUrl, config.redisKeyPrefix) : null;
  redis?.on('error', (err) => log.warn({ err: err.message }, 'redis error'));
  const worker = new Worker(database.db, clock, log);
  // The embedded database admits one process: `commerce backup` asks this one for a copy over DATA_DIR/control.sock.
  const stopControl =
    !opts.database && database.kind === 'pglite' && !config.dataDir.startsWith('memory://') ? await serveControlSocket(database, config.dataDir, log) : async () => {};
  const lifecycle: Lifecycle = { draining: false };
  const deps: AppDeps & { worker: Worker } = { config, database, db: database.db, clock, redis, log, worker, lifecycle };
  const app = await buildApp(deps);
  const release = async () => {
    await stopControl();
    redis?.disconnect();
    await database.close();
    await tracing()?.flush();
  };
  return {
    deps,
    app,
    async close() {
      lifecycle.draining = true;
      await worker.stop();
      await app.close();
      await release();
    },
    async drain({ delayMs, reason, listener = true }) {
      lifecycle.draining = true;
      if (listener) {
        log.info({ reason, drainDelayMs: delayMs, shutdownTimeoutMs: config.shutdownTimeoutMs }, 'draining: /ready answers 503; serving until the listener closes');
      } else {
        log.info({ reason, worker: worker.id, shutdownTimeoutMs: config.shutdownTimeoutMs }, 'worker stopping: no new jobs are claimed; the running job finishes, claimed ones are released');
      }
      const workerStopped = worker.stop();
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      if (listener) log.info('closing the listener: finishing in-flight requests');
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), config.shutdownTimeoutMs);
      });
      const finished = Promise.all([app.close(), workerStopped]).then(() => true as const);
      const clean = await Promise.race([finished, deadline]);
      clearTimeout(timer);
      if (!clean) {
        log.error({ shutdownTimeoutMs: config.shutdownTimeoutMs }, listener ? 'shutdown timeout: requests or a job still running; closing anyway' : 'shutdown timeout: a job still running; closing anyway');
        app.server.closeAllConnections();
      }
      await release().catch((err) => log.warn({ err }, 'closing the database failed'));
      if (listener) log.info({ clean }, 'stopped');
      else log.info({ clean, worker: worker.id }, 'worker stopped');
      return clean;
    },
  };
}
