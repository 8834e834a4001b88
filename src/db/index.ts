import { readdirSync, readFileSync, mkdirSync, openSync, writeSync, closeSync, unlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { dirname, join } from 'node:path';
import { Kysely, PostgresDialect, sql, type RawBuilder } from 'kysely';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { PGliteDialect, ScrubbingDialect } from './pglite-dialect';
import { preparedPool } from './prepared';
import { createDataDirApart, PGLITE_MEMORY_PARAMS } from './pglite-init';
import { closeDataDir, closeTree, keepOwnerOnly, ownerOnlyUmask } from './data-dir';
import { WriteWatch, type TableWrite } from './write-watch';
import type { DB } from './types';

export type { DB } from './types';
export type Db = Kysely<DB>;

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** Applies pending migrations; returns the versions applied now. Safe to call from several processes. */
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Statements sent to the database by this process so far (exposed as `db_statements_total` on /metrics). */
  readonly stats: { statements: number };
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
const INT8 = 20;
const NUMERIC = 1700;

export function listMigrations(): Array<{ version: string; sql: string }> {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => ({ version: f.replace(/\.sql$/, ''), sql: readFileSync(join(MIGRATIONS_DIR, f), 'utf8') }));
}

const MIGRATION_TABLE = `create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())`;

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

/** A second process (or a second open in this one) wants a data directory another one holds. */
export class DataDirLockedError extends Error {
  constructor(
    readonly lockFile: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dirname(lockFile)} is in use by process ${pid} (lock file ${lockFile}). ` +
        `Only one process can open it: stop that process (the running server) first, or use the running server's ` +
        `console API instead of the CLI (POST /admin/v1/stores with ADMIN_TOKEN, POST /admin/v1/api-keys with the ` +
        `owner token). If no such process is running, delete the lock file.`,
    );
    this.name = 'DataDirLockedError';
  }
}

/** Lock files this process holds: a lock naming our own pid that is not here is a leftover of an earlier process. */
const HELD_LOCKS = new Set<string>();

function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `DATA_DIR/pglite.lock` (created exclusively, holding our pid) so only one process opens the embedded
 * database. A lock whose process is gone is taken over. Returns the release function (also run on exit).
 */
export function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, 'pglite.lock');
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder = NaN;
      try {
        holder = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
      } catch {
        // Vanished (released meanwhile) or unreadable: try again.
      }
      if (!Number.isInteger(holder) && attempt === 0) {
        // Empty: its owner may be between creating and writing it. Look again shortly; still empty → a crash leftover.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
        continue;
      }
      const heldHere = holder === process.pid && HELD_LOCKS.has(file);
      const stale = !heldHere && (holder === process.pid || !pidAlive(holder));
      if (!stale || attempt >= 2) throw new DataDirLockedError(file, Number.isInteger(holder) ? holder : -1);
      try {
        unlinkSync(file);
      } catch {
        // Someone else took it over first; the next attempt sees their lock.
      }
    }
  }
  HELD_LOCKS.add(file);
  const release = () => {
    if (!HELD_LOCKS.delete(file)) return;
    process.removeListener('exit', release);
    try {
      if (Number.parseInt(readFileSync(file, 'utf8').trim(), 10) === process.pid) unlinkSync(file);
    } catch {
      // Already gone.
    }
  };
  process.on('exit', release);
  return release;
}

/** The PostgreSQL major version of the embedded database this build ships (PGlite 0.5.x). */
export const EMBEDDED_PG_MAJOR = '18';

/**
 * An embedded database directory written by another PostgreSQL major version (PGlite 0.3.x wrote 17) cannot be
 * opened by this one: PGlite would fail with an opaque initialization error, or worse. Refuse it up front, saying
 * what to do. The check reads PG_VERSION, which PostgreSQL writes when it creates a data directory.
 */
export function refuseOtherMajorVersion(dir: string): void {
  let version: string;
  try {
    version = readFileSync(join(dir, 'PG_VERSION'), 'utf8').trim();
  } catch {
    return; // new or empty directory
  }
  if (version === EMBEDDED_PG_MAJOR) return;
  throw new Error(
    `The embedded database in ${dir} was created by PostgreSQL ${version} (an earlier release of this service, PGlite 0.3) ` +
      `and this release embeds PostgreSQL ${EMBEDDED_PG_MAJOR} (PGlite 0.5), which cannot open it. Nothing was changed. ` +
      `To keep its data, start the earlier release on it and move the data to a PostgreSQL server (pg_dump through ` +
      `@electric-sql/pglite-socket), then run this release with DATABASE_URL, as recommended for production anyway; ` +
      `to start empty instead, move the directory aside (mv ${dir} ${dir}.pg${version}) and start again.`,
  );
}

/**
 * Applies pending migrations to a PGlite instance, each in its own transaction; returns the versions applied now.
 * PGlite is one process's own, so no lock is needed.
 */
export async function migratePGlite(pglite: PGlite): Promise<string[]> {
  await pglite.exec(MIGRATION_TABLE);
  const applied = new Set((await pglite.query<{ version: string }>('select version from schema_migrations')).rows.map((r) => r.version));
  const done: string[] = [];
  for (const m of listMigrations()) {
    if (applied.has(m.version)) continue;
    await pglite.transaction(async (tx) => {
      await tx.exec(m.sql);
      await tx.query('insert into schema_migrations (version) values ($1)', [m.version]);
    });
    done.push(m.version);
  }
  return done;
}

/**
 * PGlite's 9 MB WebAssembly module runs on V8's baseline compiler (Liftoff) only. V8's optimizing tier recompiles the
 * functions that get hot on background threads, and the memory those compilations take stays in the C allocator's
 * per-thread arenas: about 80 MB of the embedded server's idle RSS (292 → 212 MB at ready, measured with
 * `npm run bench hot`), for no measurable gain in throughput once each statement is a single call into the module
 * (checkout 1366 vs 1390 req/s, CPU per request 0.766 vs 0.770 ms: within run-to-run noise). The flag is V8's and
 * process-wide; it is set before the module is compiled, and only in processes that open the embedded database.
 */
export function useBaselineWasmCompiler(): void {
  setFlagsFromString('--liftoff-only');
}

/**
 * Opens PGlite: `memory://` for an in-memory database, else a directory (locked against other processes).
 * `loadDataDir` starts it from a tarball made by PGlite's dumpDataDir instead of an empty cluster (the
 * test runner makes one migrated template per run: PGlite's initdb costs seconds of CPU, loading the copy a fraction).
 */
export async function openPGlite(dataDir: string, opts: { loadDataDir?: Blob; warn?: (message: string) => void } = {}): Promise<Database> {
  const inMemory = dataDir.startsWith('memory://');
  // The database lives in a subdirectory: the data directory also holds other files (the generated master key).
  const dir = join(dataDir, 'pglite');
  if (!inMemory) {
    // Owner-only before PGlite writes anything (it leaves file modes to the umask): see data-dir.ts.
    ownerOnlyUmask();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const warning = closeDataDir(dataDir);
    if (warning) (opts.warn ?? ((m: string) => process.stderr.write(`WARNING: ${m}\n`)))(warning);
  }
  const unlock = inMemory ? () => {} : lockDataDir(dataDir);
  if (!inMemory) {
    try {
      refuseOtherMajorVersion(dir);
    } catch (e) {
      unlock();
      throw e;
    }
  }
  let pglite: PGlite;
  try {
    // Loaded only for the embedded database: a PostgreSQL deployment never pays for PGlite's module in memory.
    useBaselineWasmCompiler();
    const { PGlite } = await import('@electric-sql/pglite');
    // A new directory is created in a process of its own, whose memory leaves with it (see pglite-init.ts).
    if (!inMemory) await createDataDirApart(dir);
    pglite = new PGlite(inMemory ? 'memory://' : dir, {
      ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
      parsers: { [INT8]: (v: string) => Number(v), [NUMERIC]: (v: string) => Number(v) },
      startParams: [...PGlite.defaultStartParams, ...PGLITE_MEMORY_PARAMS],
    });
    await pglite.waitReady;
    if (!inMemory) {
      // What initdb (run apart) and the start wrote with modes of their own is closed now; later modes stay closed.
      keepOwnerOnly(pglite);
      closeTree(dataDir);
    }
  } catch (e) {
    unlock();
    throw e;
  }
  const stats = { statements: 0 };
  const watch = new WriteWatch();
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite, () => stats.statements++), plugins: [watch] });
  return {
    kind: 'pglite',
    db,
    stats,
    onWrite: (table, handler) => watch.on(table, handler),
    async listen(channel, handler) {
      const stop = await pglite.listen(channel, handler);
      return async () => {
        if (!pglite.closed) await stop();
      };
    },
    async migrate() {
      // Runs before anything else uses the database, so the driver mutex is not contended here.
      return migratePGlite(pglite);
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    dumpDataDir: () => dumpPGlite(db, pglite),
    async close() {
      try {
        await db.destroy();
        // Kysely closes its driver only if it ever opened a connection; a process that used PGlite directly (the
        // migrations) must close it too, or PGlite 0.5 keeps the process alive after everything else is done.
        if (!pglite.closed) await pglite.close();
      } finally {
        unlock();
      }
    },
  };
}

/**
 * A gzipped tarball of PGlite's data directory while the database is in use. It is taken holding the driver's
 * connection (no transaction of this process is open or starts meanwhile) and PGlite's own query lock: the files are a
 * committed state, opened like after a clean stop.
 */
function dumpPGlite(db: Db, pglite: PGlite): Promise<Blob> {
  return db.connection().execute(() => pglite.dumpDataDir('gzip'));
}

export interface PostgresOptions {
  /** Connection for LISTEN and migrations (session state); defaults to `url`. See Config.databaseDirectUrl. */
  directUrl?: string | null;
  /** Named prepared statements (default true); false for a pooler in transaction mode. */
  preparedStatements?: boolean;
}

export async function openPostgres(url: string, poolSize = 10, opts: PostgresOptions = {}): Promise<Database> {
  const directUrl = opts.directUrl || url;
  const types = {
    getTypeParser(oid: number, format?: any) {
      if (oid === INT8 || oid === NUMERIC) return (v: string) => Number(v);
      return pg.types.getTypeParser(oid, format);
    },
  };
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types: types as any });
  // An idle client whose connection the server ends (restart, failover, a dropped database) must not crash the
  // process: the pool discards it and the next query opens a new connection.
  pool.on('error', () => {});
  // A client whose connection is lost while checked out emits 'error' too, and the pool listens only on idle
  // clients: without this listener that event would crash the process. The query in flight rejects with the
  // connection error (answered as 503 SERVICE_UNAVAILABLE) and the pool discards the broken client on release.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  const stats = { statements: 0 };
  // Parameterized statements run as named prepared statements (planned once per connection, not on every call),
  // unless a transaction-mode pooler is in front: then every statement is an unnamed one, valid for one round trip.
  const watch = new WriteWatch();
  const prepared = opts.preparedStatements ?? true;
  const db = new Kysely<DB>({ dialect: new ScrubbingDialect(new PostgresDialect({ pool: preparedPool(pool, () => stats.statements++, prepared) })), plugins: [watch] });
  // LISTEN and the migration lock are session state: they go over the direct connection, never through a pooler.
  const listener = new PgListener(directUrl);
  return {
    kind: 'postgres',
    db,
    stats,
    onWrite: (table, handler) => watch.on(table, handler),
    listen: (channel, handler) => listener.listen(channel, handler),
    async migrate() {
      // A connection of its own on the direct URL: the session advisory lock must be taken and released on the same
      // server session, which a transaction-mode pooler does not promise between two statements.
      const client = new pg.Client({ connectionString: directUrl });
      client.on('error', () => {});
      await client.connect();
      const done: string[] = [];
      try {
        // One migrator at a time across processes.
        await client.query('select pg_advisory_lock(727274)');
        await client.query(MIGRATION_TABLE);
        const applied = new Set((await client.query('select version from schema_migrations')).rows.map((r: any) => r.version));
        for (const m of listMigrations()) {
          if (applied.has(m.version)) continue;
          await client.query('begin');
          try {
            await client.query(m.sql);
            await client.query('insert into schema_migrations (version) values ($1)', [m.version]);
            await client.query('commit');
          } catch (e) {
            await client.query('rollback');
            throw e;
          }
          done.push(m.version);
        }
      } finally {
        await client.query('select pg_advisory_unlock(727274)').catch(() => {});
        await client.end().catch(() => {});
      }
      return done;
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await listener.close();
      await db.destroy();
    },
  };
}

/**
 * One dedicated connection per process for LISTEN (a pooled connection would lose its LISTENs when released). If the
 * connection is lost it reconnects with a growing pause and listens again; handlers are told nothing was missed only
 * through their own time limits (the caches that use notifications also expire entries).
 */
class PgListener {
  #client: pg.Client | null = null;
  #connecting: Promise<pg.Client> | null = null;
  #handlers = new Map<string, Set<(payload: string) => void>>();
  #closed = false;
  #retryMs = 250;

  constructor(private readonly url: string) {}

  async listen(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
    let set = this.#handlers.get(channel);
    if (!set) this.#handlers.set(channel, (set = new Set()));
    set.add(handler);
    const client = await this.#connect();
    if (set.size === 1) await client.query(`listen ${channel}`);
    return async () => {
      set!.delete(handler);
      if (set!.size === 0 && this.#client && !this.#closed) await this.#client.query(`unlisten ${channel}`).catch(() => {});
    };
  }

  #connect(): Promise<pg.Client> {
    if (this.#client) return Promise.resolve(this.#client);
    this.#connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.url });
      client.on('error', () => {});
      client.on('notification', (n) => {
        for (const h of this.#handlers.get(n.channel) ?? []) h(n.payload ?? '');
      });
      client.on('end', () => {
        if (this.#client === client) this.#client = null;
        if (!this.#closed) this.#reconnectLater();
      });
      await client.connect();
      for (const ch of this.#handlers.keys()) await client.query(`listen ${ch}`);
      this.#client = client;
      this.#retryMs = 250;
      return client;
    })().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  #reconnectLater(): void {
    const t = setTimeout(() => {
      if (this.#closed) return;
      this.#connect().catch(() => this.#reconnectLater());
    }, this.#retryMs);
    t.unref();
    this.#retryMs = Math.min(this.#retryMs * 2, 10_000);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const c = this.#client ?? (this.#connecting ? await this.#connecting.catch(() => null) : null);
    this.#client = null;
    await c?.end().catch(() => {});
  }
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
