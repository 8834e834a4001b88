/**
 * A small in-process cache of recently read rows with a time limit and a size bound, for the few reads on the hot
 * path whose rows change rarely (API keys, products, licenses by key). It never decides on its own that a row is
 * fresh enough for a write: writers invalidate the entries they change (in this process at once, in other processes
 * through the database's notifications), and the time limit bounds how stale a missed notification can leave a row.
 *
 * The time limit runs on the process's monotonic clock, not the service's injected clock: it is about how long a
 * copy may live in memory, not about business time.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();

  constructor(
    readonly ttlMs: number,
    readonly maxEntries = 10_000,
  ) {}

  get(key: string): V | undefined {
    if (this.ttlMs <= 0) return undefined;
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (e.expires <= performance.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V): void {
    if (this.ttlMs <= 0) return;
    if (this.#entries.size >= this.maxEntries) {
      // Evict the oldest entry (Map iterates in insertion order).
      const first = this.#entries.keys().next();
      if (!first.done) this.#entries.delete(first.value);
    }
    this.#entries.set(key, { value, expires: performance.now() + this.ttlMs });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Drops every entry for which `match` is true (e.g. all entries of one store or product). */
  deleteWhere(match: (key: string, value: V) => boolean): void {
    for (const [k, e] of this.#entries) if (match(k, e.value)) this.#entries.delete(k);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
