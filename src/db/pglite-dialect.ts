/**
 * Kysely's dialect for the embedded database: PGlite's single connection behind a mutex, statements sent as PostgreSQL
 * protocol messages (prepared once, then bound), parameters written as node-postgres writes them.
 */
import type { PGlite } from '@electric-sql/pglite';

/** PGlite's protocol serializer and result parser, loaded with PGlite itself (a PostgreSQL deployment never loads it). */
type PGliteModule = typeof import('@electric-sql/pglite');
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';
import { tracing } from '../platform/telemetry';
import { scrubDbError } from './scrubbing-dialect';

/**
 * PGlite has a single connection. Kysely runs a transaction as BEGIN … COMMIT on one connection, so every
 * acquisition takes a mutex: a transaction never interleaves with other statements. The consequence that
 * matters for code: inside a transaction use the transaction executor, never the root `db` (it would wait on
 * itself). A long wait is reported instead of hanging silently.
 */
class Mutex {
  #queue: Array<{ grant: () => void; fail: (e: Error) => void; since: number }> = [];
  #locked = false;
  // One watchdog while anyone waits (not a timer per waiter: under load nearly every statement waits its turn).
  #watchdog: NodeJS.Timeout | null = null;
  async lock(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return;
    }
    await new Promise<void>((grant, fail) => {
      this.#queue.push({ grant, fail, since: Date.now() });
      if (!this.#watchdog) {
        this.#watchdog = setInterval(() => this.#expire(), 1000);
        this.#watchdog.unref?.();
      }
    });
  }
  #expire(): void {
    const limit = Date.now() - 30_000;
    while (this.#queue.length > 0 && this.#queue[0]!.since <= limit) {
      this.#queue.shift()!.fail(new Error('PGlite connection wait exceeded 30s: a query inside a transaction probably used the root db instead of the transaction'));
    }
    if (this.#queue.length === 0) this.#stopWatchdog();
  }
  #stopWatchdog(): void {
    if (this.#watchdog) clearInterval(this.#watchdog);
    this.#watchdog = null;
  }
  unlock(): void {
    const next = this.#queue.shift();
    if (next) next.grant();
    else {
      this.#locked = false;
      this.#stopWatchdog();
    }
  }
}

/** `SELECT`, `INSERT`, … : the statement's first word, as pg's instrumentation names its spans (`pg.query:SELECT`). */
function spanName(text: string): string {
  const verb = /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
  return `pglite.query:${verb}`;
}

function concatBytes(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** A PostgreSQL array literal, as node-postgres writes one (`{"a","b",NULL}`). */
function arrayLiteral(items: readonly unknown[]): string {
  const parts = items.map((item) => {
    if (item === null || item === undefined) return 'NULL';
    if (Array.isArray(item)) return arrayLiteral(item);
    if (item instanceof Uint8Array) return `"\\\\x${Buffer.from(item.buffer, item.byteOffset, item.byteLength).toString('hex')}"`;
    const text = toPgText(item) as string;
    return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${parts.join(',')}}`;
}

/**
 * A parameter as the text PostgreSQL reads, following node-postgres's `prepareValue` (what the same code sends on
 * PostgreSQL): null stays null, bytes become `\x…` hex, dates ISO 8601, arrays array literals, other objects JSON,
 * everything else its string form.
 */
export function toPgText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return arrayLiteral(value);
  if (typeof value === 'object') return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return String(value);
}

const MAX_PREPARED = 2000;

/** "prepared statement … does not exist" (26000) or "cached plan must not change result type" (0A000). */
function isStalePrepared(e: Error & { code?: string }): boolean {
  return e.code === '26000' || (e.code === '0A000' && /cached plan must not change result type/.test(e.message));
}
type BackendMessages = Awaited<ReturnType<PGlite['execProtocol']>>['messages'];

class PGliteConnection implements DatabaseConnection {
  #lib: Pick<PGliteModule, 'parse' | 'protocol'> | null = null;
  constructor(
    private readonly pg: PGlite,
    private readonly onStatement?: () => void,
  ) {}
  async init(): Promise<void> {
    const { parse, protocol } = await import('@electric-sql/pglite');
    this.#lib = { parse, protocol };
  }
  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    this.onStatement?.();
    // With tracing on, one span per statement inside a traced operation (as pg's instrumentation does on PostgreSQL,
    // with requireParentSpan): a background poll's statements alone would be a flood of one-span traces.
    const t = tracing();
    if (t?.ids()) return t.withSpan(spanName(compiled.sql), { 'db.system.name': 'pglite', 'db.query.text': compiled.sql }, () => this.#run<R>(compiled), 'client');
    return this.#run<R>(compiled);
  }
  /**
   * One statement in one call into the database: Bind with text values, Describe, Execute and Sync go in as one
   * message, after a Parse the first time a statement shape is seen. PGlite's own `query()` makes six calls per
   * statement and parses and plans it every time (it describes the statement first, to pick a serializer per
   * parameter type); here each parameterized shape is a named prepared statement, parsed and planned once (as the
   * PostgreSQL pool does, `prepared.ts`). Parameters are turned into text the way node-postgres does it on PostgreSQL
   * (`toPgText`), so both databases receive the same values from the same code.
   */
  async #run<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const { sql } = compiled;
    const values = (compiled.parameters as readonly unknown[]).map(toPgText);
    const res = await this.pg
      ._runExclusiveQuery(async () => {
        let result = await this.#send(sql, values);
        // A prepared shape the database no longer has, or whose plan a schema change invalidated: forget it, and parse
        // it again at once unless a transaction is open (the error has aborted it; its own error is the one to report).
        if (result.error && this.#names.has(sql) && isStalePrepared(result.error)) {
          this.#names.delete(sql);
          if (!this.pg.isInTransaction()) result = await this.#send(sql, values);
        }
        // PGlite's query() also calls syncToFs() after each statement outside a transaction: for the file systems used
        // here (the node one for a data directory, memory://) it does nothing, so it is not called.
        if (result.error) throw result.error;
        return this.#lib!.parse.parseResults(result.messages, this.pg.parsers, { rowMode: 'object' })[0];
      })
      .catch((e: unknown) => {
        if (e && typeof e === 'object' && !('query' in e)) (e as { query?: string }).query = sql;
        throw scrubDbError(e);
      });
    const affected = res?.affectedRows ?? 0;
    return { rows: (res?.rows ?? []) as R[], numAffectedRows: BigInt(affected) };
  }

  /** Prepared statement names by SQL text (only statements with parameters: a named statement is one command). */
  readonly #names = new Map<string, string>();
  #nextName = 0;

  async #send(sql: string, values: Array<string | null>): Promise<{ messages: BackendMessages; error?: Error & { code?: string } }> {
    const S = this.#lib!.protocol.serialize;
    let name = values.length > 0 ? this.#names.get(sql) : '';
    const parts: Uint8Array[] = [];
    let parsing: string | undefined;
    if (name === undefined) {
      if (this.#names.size >= MAX_PREPARED) {
        // Shapes come from code and stay few; should they not, start over rather than grow without bound.
        await this.pg.execProtocol(concatBytes([S.query('DEALLOCATE ALL')]), { syncToFs: false, throwOnError: false });
        this.#names.clear();
      }
      name = parsing = `k${++this.#nextName}`;
    }
    if (parsing !== undefined || name === '') parts.push(S.parse({ name, text: sql }));
    parts.push(S.bind({ statement: name, values }), S.describe({ type: 'P' }), S.execute({}), S.sync());
    const { messages } = await this.pg.execProtocol(concatBytes(parts), { syncToFs: false, throwOnError: false });
    if (parsing !== undefined && messages.some((m) => m.name === 'parseComplete')) this.#names.set(sql, parsing);
    const error = messages.find((m) => m.name === 'error') as (Error & { code?: string }) | undefined;
    return { messages, error };
  }
  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on PGlite');
  }
}

class PGliteDriver implements Driver {
  readonly #mutex = new Mutex();
  readonly #conn: PGliteConnection;
  constructor(
    private readonly pg: PGlite,
    onStatement?: () => void,
  ) {
    this.#conn = new PGliteConnection(pg, onStatement);
  }
  async init(): Promise<void> {
    await this.pg.waitReady;
    await this.#conn.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock();
    return this.#conn;
  }
  async beginTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('begin'));
  }
  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('rollback'));
  }
  async releaseConnection(): Promise<void> {
    this.#mutex.unlock();
  }
  async destroy(): Promise<void> {
    if (!this.pg.closed) await this.pg.close();
  }
}

export class PGliteDialect implements Dialect {
  /** `onStatement` is called for every statement sent (the service's statement count, see /metrics). */
  constructor(
    private readonly pg: PGlite,
    private readonly onStatement?: () => void,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pg, this.onStatement);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
}
