import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { Kysely, PostgresDialect, sql, type RawBuilder } from 'kysely';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { PGliteDialect } from './pglite-dialect';
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

/** Opens PGlite: `memory://` for an in-memory database, else a directory. */
export async function openPGlite(dataDir: string): Promise<Database> {
  const inMemory = dataDir.startsWith('memory://');
  // The database lives in a subdirectory: the data directory also holds other files (the generated master key).
  const dir = join(dataDir, 'pglite');
  if (!inMemory) mkdirSync(dir, { recursive: true });
  const pglite = new PGlite(inMemory ? undefined : dir, {
    parsers: { [INT8]: (v: string) => Number(v), [NUMERIC]: (v: string) => Number(v) },
  });
  await pglite.waitReady;
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    kind: 'pglite',
    db,
    async migrate() {
      // Runs before anything else uses the database, so the driver mutex is not contended here.
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
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}

export async function openPostgres(url: string, poolSize = 10): Promise<Database> {
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
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: 'postgres',
    db,
    async migrate() {
      const client = await pool.connect();
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
        client.release();
      }
      return done;
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}

export async function openDatabase(opts: { databaseUrl: string | null; dataDir: string; poolSize?: number }): Promise<Database> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts.poolSize) : openPGlite(opts.dataDir);
}

/** Writes a JS value into a jsonb column the same way on both drivers. */
export function jsonb(value: unknown): RawBuilder<any> {
  return sql`${JSON.stringify(value)}::jsonb`;
}
