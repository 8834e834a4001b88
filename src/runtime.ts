import pino, { type Logger } from 'pino';
import { createRequire } from 'node:module';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config';
import { openDatabase, type Database } from './db';
import { systemClock, type Clock } from './platform/clock';
import { Worker } from './jobs/worker';
import { buildApp, REDACT } from './app';
import type { App, AppDeps } from './deps';
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
            ignore: 'pid,hostname,method,url,status,ms',
            // One line per entry; a request reads `GET /v1/products 200 3.1ms`.
            singleLine: true,
            messageFormat: '{msg}{if method} {method} {url} {status} {ms}ms{end}',
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
  deps: AppDeps;
  app: App;
  close(): Promise<void>;
}

/** config → database → migrate → app (+ worker, not started). Used by main, the CLI and the benchmark. */
export async function createRuntime(config: Config, opts: { clock?: Clock; log?: FastifyBaseLogger; database?: Database } = {}): Promise<Runtime> {
  const log = (opts.log ?? createLogger(config.logLevel, config.logFormat)) as FastifyBaseLogger;
  const database = opts.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize, directUrl: config.databaseDirectUrl, preparedStatements: config.databasePreparedStatements }));
  await database.migrate();
  const clock = opts.clock ?? systemClock;
  // ioredis is loaded only when REDIS_URL is set (resident memory in every process otherwise).
  const redis = config.redisUrl ? new (await import('ioredis')).Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false }) : null;
  redis?.on('error', (err) => log.warn({ err: err.message }, 'redis error'));
  const worker = new Worker(database.db, clock, log);
  const deps: AppDeps = { config, database, db: database.db, clock, redis, log, worker };
  const app = await buildApp(deps);
  return {
    deps,
    app,
    async close() {
      await worker.stop();
      await app.close();
      redis?.disconnect();
      await database.close();
      await tracing()?.flush();
    },
  };
}
