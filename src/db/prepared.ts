import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/**
 * A pg pool for Kysely that runs every parameterized statement as a named prepared statement. PostgreSQL then
 * parses and plans each statement shape once per connection instead of on every call (the unnamed statement is
 * re-planned each time), which makes the hot queries several times cheaper on the server side. pg keeps the
 * prepared statements of each connection, keyed by name; the name is a hash of the SQL text, so the same shape
 * always reuses the same statement and a different shape never collides with it.
 *
 * Statements without parameters (BEGIN, COMMIT, migrations with several commands) stay on the simple protocol:
 * a named statement must be a single command.
 *
 * `named = false` sends every parameterized statement as pg's unnamed statement instead (parsed and planned on each
 * call): what a pooler in transaction mode needs, where the next statement may run on another server connection that
 * never saw the named one (PgBouncer before 1.21).
 */
export function preparedPool(pool: pg.Pool, onStatement?: () => void, named = true): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string): string => {
    let name = names.get(text);
    if (!name) {
      name = `k${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`;
      // Statement shapes are bounded (Kysely builds them from code), but guard the map against unbounded growth.
      if (names.size > 10_000) names.clear();
      names.set(text, name);
    }
    return name;
  };
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      return {
        query(sqlOrCursor: any, parameters?: ReadonlyArray<unknown>): any {
          onStatement?.();
          if (named && typeof sqlOrCursor === 'string' && parameters && parameters.length > 0) {
            return client.query({ name: nameOf(sqlOrCursor), text: sqlOrCursor, values: parameters as unknown[] });
          }
          return client.query(sqlOrCursor, parameters as unknown[]);
        },
        release(): void {
          client.release();
        },
      } as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
