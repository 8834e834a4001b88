import { CompiledQuery, type Compilable } from 'kysely';
import type { Db } from './database';

/**
 * A hot query of fixed shape, compiled by Kysely once and then only re-bound: each call puts its arguments into the
 * parameter slots the first compilation found, skipping the builder and the compiler (tens of µs a call). `build`
 * must pass each argument straight through as one bound value (no arrays, no transformations), so the shape and
 * the parameter positions never depend on the values. Works on the database and inside a transaction alike.
 */
export function compiledQuery<A extends unknown[], R>(build: (db: Db, ...args: A) => Compilable<R>): (db: Db, ...args: A) => Promise<R[]> {
  let template: { sql: string; slots: Array<number | { value: unknown }> } | null = null;
  return async (db, ...args) => {
    if (!template) {
      const markers = args.map((_, i) => `\u0000compiled-arg-${i}\u0000`) as unknown as A;
      const c = build(db, ...markers).compile();
      const slots = c.parameters.map((p) => {
        const m = typeof p === 'string' ? /^\u0000compiled-arg-(\d+)\u0000$/.exec(p) : null;
        return m ? Number(m[1]) : { value: p };
      });
      const used = new Set(slots.filter((s): s is number => typeof s === 'number'));
      if (used.size !== args.length) throw new Error('compiledQuery: every argument must be bound exactly as passed');
      template = { sql: c.sql, slots };
    }
    const t = template;
    const params = t.slots.map((s) => (typeof s === 'number' ? args[s] : s.value));
    return (await db.executeQuery<R>(CompiledQuery.raw(t.sql, params))).rows;
  };
}
