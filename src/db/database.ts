/**
 * What a database is to the rest of the code, whichever driver opened it: the `Database` handle both `openPGlite` and
 * `openPostgres` return, how both read numbers, and the migration files and ledger table both apply.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { Kysely } from 'kysely';
import type { TableWrite } from './write-watch';
import type { DB } from './types';

export type Db = Kysely<DB>;

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** Applies pending migrations; returns the versions applied now. Safe to call from several processes. */
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Statements sent to the database by this process so far (`db_statements_total` on /metrics), and transactions run
   * again after PostgreSQL ended them as a deadlock's victim (`db_transaction_retries_total`; src/db/deadlock-retry.ts).
   */
  readonly stats: { statements: number; deadlockRetries: number };
  /**
   * Calls `handler` with the payload of every notification on `channel` (PostgreSQL LISTEN/NOTIFY), from this process
   * and every other process on the same database. Send one with `notify(executor, channel, payload)`; inside a
   * transaction it is delivered when the transaction commits. Returns a function that stops listening.
   */
  listen(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * Calls `handler` synchronously whenever this process writes `table` through the query builder (see WriteWatch), so
   * an in-process cache of its rows never serves a row older than this process's own last write. Returns a remover.
   */
  onWrite(table: string, handler: (write: TableWrite) => void): () => void;
  /**
   * Embedded database only: a consistent gzipped tarball of the data directory, taken between transactions (see
   * src/db/backup.ts). Absent on PostgreSQL (pg_dump).
   */
  dumpDataDir?(): Promise<Blob>;
}

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

// int8 (counts, sums, money) and numeric arrive as strings from both drivers; amounts stay far below 2^53.
export const INT8 = 20;
export const NUMERIC = 1700;

export interface Migration {
  version: string;
  sql: string;
  /**
   * False for a file whose first line is `-- migration: no-transaction`: its statements run one by one outside a
   * transaction. PostgreSQL refuses `CREATE INDEX CONCURRENTLY` inside one (even a multi-statement query string is an
   * implicit transaction), and an index on a big table built without CONCURRENTLY blocks every write to that table
   * until it is done. Such a file must be safe to run again after a crash halfway (`drop index concurrently if exists`
   * first: a failed concurrent build leaves an invalid index behind).
   */
  transactional: boolean;
  /** The statements of a no-transaction file, each ending at a `;` that ends a line (comments dropped). */
  statements: string[];
}

export const NO_TRANSACTION_MARK = '-- migration: no-transaction';

export function listMigrations(): Migration[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => {
      const text = readFileSync(join(MIGRATIONS_DIR, f), 'utf8');
      const transactional = !text.startsWith(NO_TRANSACTION_MARK);
      return { version: f.replace(/\.sql$/, ''), sql: text, transactional, statements: transactional ? [] : splitStatements(text) };
    });
}

/** Splits a plain DDL file into statements: `;` at a line's end closes one; `--` lines are dropped. No bodies ($$). */
export function splitStatements(text: string): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  for (const line of text.split('\n')) {
    if (/^\s*--/.test(line) || line.trim() === '') continue;
    cur.push(line);
    if (/;\s*$/.test(line)) {
      out.push(cur.join('\n'));
      cur = [];
    }
  }
  if (cur.length > 0) out.push(cur.join('\n'));
  return out;
}

export const MIGRATION_TABLE = `create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())`;
