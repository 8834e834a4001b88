/**
 * A PostgreSQL server: the pool (named prepared statements unless a pooler forbids them), migrations under an advisory
 * lock over the direct connection, and one LISTEN connection per process that reconnects by itself.
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { ScrubbingDialect } from './scrubbing-dialect';
import { retryDeadlocks } from './deadlock-retry';
import { preparedPool } from './prepared';
import { INT8, MIGRATION_TABLE, NUMERIC, listMigrations, type Database } from './database';
import { WriteWatch } from './write-watch';
import type { DB } from './types';

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
  const stats = { statements: 0, deadlockRetries: 0 };
  // Parameterized statements run as named prepared statements (planned once per connection, not on every call),
  // unless a transaction-mode pooler is in front: then every statement is an unnamed one, valid for one round trip.
  const watch = new WriteWatch();
  const prepared = opts.preparedStatements ?? true;
  const db = retryDeadlocks(new Kysely<DB>({ dialect: new ScrubbingDialect(new PostgresDialect({ pool: preparedPool(pool, () => stats.statements++, prepared) })), plugins: [watch] }), stats);
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
        // One migrator at a time across processes. Waited for by polling, not by blocking in pg_advisory_lock: a session
        // blocked in that call holds a snapshot, and CREATE INDEX CONCURRENTLY (a no-transaction migration) waits for
        // every older snapshot to end, so the migrator would wait for the waiter that waits for it (a deadlock).
        while (!(await client.query<{ ok: boolean }>('select pg_try_advisory_lock(727274) as ok')).rows[0].ok) await new Promise((r) => setTimeout(r, 250));
        await client.query(MIGRATION_TABLE);
        const applied = new Set((await client.query('select version from schema_migrations')).rows.map((r: any) => r.version));
        for (const m of listMigrations()) {
          if (applied.has(m.version)) continue;
          if (!m.transactional) {
            for (const statement of m.statements) await client.query(statement);
            await client.query('insert into schema_migrations (version) values ($1)', [m.version]);
            done.push(m.version);
            continue;
          }
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
