/**
 * The database module's entry: the `Database` handle and `Db` (database.ts), opening either driver (`openDatabase`;
 * pglite-open.ts, postgres.ts), and the helpers every repo uses (`notify`, `jsonb`, `isConnectionError`).
 */
import { sql, type RawBuilder } from 'kysely';
import type { PostgresOptions } from './postgres';
import { openPostgres } from './postgres';
import { openPGlite } from './pglite-open';
import type { Database, Db } from './database';

export type { DB } from './types';
export type { Db, Database } from './database';
export { listMigrations } from './database';
export { DataDirLockedError, EMBEDDED_PG_MAJOR, lockDataDir, refuseOtherMajorVersion } from './data-dir-lock';
export { migratePGlite, openPGlite, useBaselineWasmCompiler } from './pglite-open';
export { openPostgres, type PostgresOptions } from './postgres';

/**
 * True for errors that mean the database connection is gone or cannot be made (server shutdown or restart,
 * failover, terminated backend, network): the request may succeed when retried later.
 */
export function isConnectionError(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (/^(57P0[1-3]|08[0-9A-Z]{3})$/.test(code)) return true;
  if (['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'].includes(code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  if (/Connection terminated|not queryable|timeout exceeded when trying to connect|Connection ended unexpectedly/i.test(message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isConnectionError(x, depth + 1))) return true;
  return isConnectionError(e.cause, depth + 1);
}

/** Sends a notification on `channel` (delivered at commit when `executor` is a transaction). */
export async function notify(executor: Db, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(executor);
}

export async function openDatabase(
  opts: { databaseUrl: string | null; dataDir: string; poolSize?: number; warn?: (message: string) => void } & PostgresOptions,
): Promise<Database> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts.poolSize, opts) : openPGlite(opts.dataDir, { warn: opts.warn });
}

/** Writes a JS value into a jsonb column the same way on both drivers. */
export function jsonb(value: unknown): RawBuilder<any> {
  return sql`${JSON.stringify(value)}::jsonb`;
}
