import pg from 'pg';
import type { Database, Db } from './database';

/** Advisory lock keys, one per purpose (the migrations use 727274 in ./index.ts). */
export const LOCK_KEYS = { demo: 727275 } as const;

/**
 * Runs `fn` while holding a PostgreSQL session advisory lock: other processes asking for the same key wait until `fn`
 * is done. The lock is session state, so it is taken on a connection of its own to `directUrl` (DATABASE_DIRECT_URL,
 * never through a transaction-pooling PgBouncer), while `fn` works through the usual pool. The embedded database admits
 * one process (its data directory is locked), so there `fn` simply runs.
 */
export async function withAdvisoryLock<T>(
  database: Pick<Database, 'kind' | 'db'>,
  directUrl: string | null,
  key: number,
  fn: (db: Db) => Promise<T>,
): Promise<T> {
  if (database.kind === 'pglite' || !directUrl) return fn(database.db);
  const client = new pg.Client({ connectionString: directUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [key]);
    try {
      return await fn(database.db);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [key]).catch(() => {});
    }
  } finally {
    await client.end().catch(() => {});
  }
}
