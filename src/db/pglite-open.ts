/**
 * The embedded database (PGlite): opening a data directory (or memory) behind its lock, with owner-only file modes,
 * applying migrations, and taking a consistent tarball of it while in use. PostgreSQL is opened in `postgres.ts`.
 */
import { mkdirSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { join } from 'node:path';
import { Kysely, sql } from 'kysely';
import { retryDeadlocks } from './deadlock-retry';
import type { PGlite } from '@electric-sql/pglite';
import { PGliteDialect } from './pglite-dialect';
import { createDataDirApart, PGLITE_MEMORY_PARAMS } from './pglite-init';
import { closeDataDir, closeTree, keepOwnerOnly, ownerOnlyUmask } from './data-dir';
import { lockDataDir, refuseOtherMajorVersion } from './data-dir-lock';
import { INT8, MIGRATION_TABLE, NUMERIC, listMigrations, type Database, type Db } from './database';
import { WriteWatch } from './write-watch';
import type { DB } from './types';

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
    if (!m.transactional) {
      for (const statement of m.statements) await pglite.query(statement);
      await pglite.query('insert into schema_migrations (version) values ($1)', [m.version]);
      done.push(m.version);
      continue;
    }
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
  // One connection: two of this process's transactions never deadlock, but the same retry is in place so that both
  // databases run a transaction the same way (src/db/deadlock-retry.ts).
  const stats = { statements: 0, deadlockRetries: 0 };
  const watch = new WriteWatch();
  const db = retryDeadlocks(new Kysely<DB>({ dialect: new PGliteDialect(pglite, () => stats.statements++), plugins: [watch] }), stats);
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
