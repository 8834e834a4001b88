import type { FastifyBaseLogger, FastifyInstance, RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Redis } from 'ioredis';
import type { Config } from './config';
import type { Database, Db } from './db';
import type { Clock } from './platform/clock';
import type { Background } from './platform/background';

/** Everything a module needs, built once by main.ts (or the test helpers) and handed to every module. */
export interface AppDeps {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
  redis: Redis | null;
  log: FastifyBaseLogger;
  /** The background worker's port: modules register their jobs and periodic tasks on it. */
  worker: Background;
  /** Set by the runtime: `draining` is true from SIGTERM on (/ready answers 503, responses close their connection). */
  lifecycle?: Lifecycle;
}

export interface Lifecycle {
  draining: boolean;
}

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** A module registers its routes, jobs and background tasks. */
export type Module = (app: App, deps: AppDeps) => Promise<void>;
