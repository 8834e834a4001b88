/**
 * Database errors without the buyer's data in them: `scrubDbError` takes bound parameters and row values out of an
 * error before it travels on (PGlite's dialect calls it), and `ScrubbingDialect` does the same around PostgreSQL's.
 */
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, Kysely, QueryResult, TransactionSettings } from 'kysely';

/**
 * Removes query data from a database error before it travels on (and into logs): PGlite attaches the bound
 * parameters (`params`) to its errors, and both drivers put row values into `detail` ("Failing row contains
 * (…)", "Key (email)=(…) already exists."). Buyer names, e-mails, phone numbers and metadata must not be logged.
 * The SQL text (`query`), code, constraint, table and column are kept: they are what debugging needs.
 */
export function scrubDbError<E>(err: E): E {
  if (!err || typeof err !== 'object') return err;
  const e = err as Record<string, unknown>;
  for (const k of ['params', 'parameters', 'values', 'queryOptions']) {
    if (k in e) {
      try {
        delete e[k];
      } catch {
        // A frozen or accessor property: leave it.
      }
    }
  }
  // "invalid input syntax for type integer: \"<the value>\"" and the like quote the offending value.
  if (typeof e.message === 'string' && /^invalid input (syntax|value) for/.test(e.message)) {
    const message = e.message.replace(/: ".*"$/s, ': "[redacted]"');
    try {
      e.message = message;
    } catch {
      // read-only message: leave it
    }
    if (typeof e.stack === 'string') e.stack = e.stack.split(/\r?\n/).map((l, i) => (i === 0 ? `${String(e.name ?? 'Error')}: ${message}` : l)).join('\n');
  }
  if (typeof e.detail === 'string') {
    e.detail = /^Failing row contains/.test(e.detail) ? 'Failing row contains ([redacted]).' : e.detail.replace(/=\(.*\)/s, '=([redacted])');
  }
  return err;
}


/** A connection whose failing queries throw scrubbed errors (see scrubDbError). */
class ScrubbingConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}
  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return await this.inner.executeQuery<R>(compiled);
    } catch (e) {
      throw scrubDbError(e);
    }
  }
  async *streamQuery<R>(compiled: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(compiled, chunkSize);
    } catch (e) {
      throw scrubDbError(e);
    }
  }
}

const unwrap = (c: DatabaseConnection) => (c instanceof ScrubbingConnection ? c.inner : c);

class ScrubbingDriver implements Driver {
  constructor(private readonly inner: Driver) {}
  init() {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new ScrubbingConnection(await this.inner.acquireConnection());
  }
  beginTransaction(c: DatabaseConnection, settings: TransactionSettings) {
    return this.inner.beginTransaction(unwrap(c), settings).catch((e) => Promise.reject(scrubDbError(e)));
  }
  commitTransaction(c: DatabaseConnection) {
    return this.inner.commitTransaction(unwrap(c)).catch((e) => Promise.reject(scrubDbError(e)));
  }
  rollbackTransaction(c: DatabaseConnection) {
    return this.inner.rollbackTransaction(unwrap(c)).catch((e) => Promise.reject(scrubDbError(e)));
  }
  async savepoint(c: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]) {
    if (!this.inner.savepoint) throw new Error('savepoints are not supported by this driver');
    return this.inner.savepoint(unwrap(c), name, compile).catch((e) => Promise.reject(scrubDbError(e)));
  }
  async rollbackToSavepoint(c: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['rollbackToSavepoint']>>[2]) {
    if (!this.inner.rollbackToSavepoint) throw new Error('savepoints are not supported by this driver');
    return this.inner.rollbackToSavepoint(unwrap(c), name, compile).catch((e) => Promise.reject(scrubDbError(e)));
  }
  async releaseSavepoint(c: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['releaseSavepoint']>>[2]) {
    if (!this.inner.releaseSavepoint) throw new Error('savepoints are not supported by this driver');
    return this.inner.releaseSavepoint(unwrap(c), name, compile).catch((e) => Promise.reject(scrubDbError(e)));
  }
  releaseConnection(c: DatabaseConnection) {
    return this.inner.releaseConnection(unwrap(c));
  }
  destroy() {
    return this.inner.destroy();
  }
}

/** Wraps another dialect (PostgreSQL) so its query errors are scrubbed like PGlite's. */
export class ScrubbingDialect implements Dialect {
  constructor(private readonly inner: Dialect) {}
  createAdapter() {
    return this.inner.createAdapter();
  }
  createDriver(): Driver {
    return new ScrubbingDriver(this.inner.createDriver());
  }
  createQueryCompiler() {
    return this.inner.createQueryCompiler();
  }
  createIntrospector(db: Kysely<any>) {
    return this.inner.createIntrospector(db);
  }
}
