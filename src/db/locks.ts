import { sql } from 'kysely';
import type { Database, Db } from './index';

/** Advisory lock keys, one per purpose (the migrations use 727274 in ./index.ts). */
export const LOCK_KEYS = { demo: 727275 } as const;

/**
 * Runs `fn` while holding a PostgreSQL session advisory lock, on one connection that `fn` receives as its database
 * (it may open transactions on it; it must not use the pooled `db`, which would wait for a second connection). Other
 * processes asking for the same key wait until `fn` is done. The embedded database admits one process (its data
 * directory is locked), so there `fn` simply runs.
 *
 * A session lock needs a session: through a transaction-pooling PgBouncer it must be given a direct connection.
 */
export async function withAdvisoryLock<T>(database: Pick<Database, 'kind' | 'db'>, key: number, fn: (db: Db) => Promise<T>): Promise<T> {
  if (database.kind === 'pglite') return fn(database.db);
  return database.db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${key})`.execute(conn);
    try {
      return await fn(conn);
    } finally {
      await sql`select pg_advisory_unlock(${key})`.execute(conn).catch(() => {});
    }
  });
}
