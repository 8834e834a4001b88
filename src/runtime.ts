import pino, { type Logger } from 'pino';
import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config';
import { openDatabase, type Database } from './db';
import { systemClock, type Clock } from './platform/clock';
import { Worker } from './jobs/worker';
import { buildApp, REDACT } from './app';
import type { App, AppDeps } from './deps';

/**
 * JSON lines to stdout through an asynchronous destination: the request path never waits on a write(2). pino's
 * destination flushes what is buffered when the process exits.
 */
export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } }, pino.destination({ dest: 1, sync: false }));
}

export interface Runtime {
  deps: AppDeps;
  app: App;
  close(): Promise<void>;
}

/** config → database → migrate → app (+ worker, not started). Used by main, the CLI and the benchmark. */
export async function createRuntime(config: Config, opts: { clock?: Clock; log?: FastifyBaseLogger; database?: Database } = {}): Promise<Runtime> {
  const log = (opts.log ?? createLogger(config.logLevel)) as FastifyBaseLogger;
  const database = opts.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize }));
  await database.migrate();
  const clock = opts.clock ?? systemClock;
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false }) : null;
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
    },
  };
}
