import { TtlCache } from './cache';
import type { Database, Db } from '../db';
import { notify } from '../db';

/**
 * Tells every process on the same database that something cached changed, so in-process caches can drop it.
 *
 * A writer calls `publish(trx, channel, key)` inside the transaction that changes the row: PostgreSQL delivers the
 * notification to every listening process (this one included) when the transaction commits, never if it rolls back.
 * Delivery to other processes takes a moment, so after the commit the writer also calls `local(channel, key)`: the
 * next request this process serves already misses the cache. Caches still expire their entries, which bounds how
 * stale a notification lost to a dropped listener connection can leave a row.
 *
 * One feed per Database object; the platform's caches and the domain modules that write their rows both reach it
 * with `changeFeed(deps.database)`.
 */
export class ChangeFeed {
  readonly #handlers = new Map<string, Set<(key: string) => void>>();
  readonly #listening = new Map<string, Promise<unknown>>();

  constructor(private readonly database: Database) {}

  /** Calls `handler` with the key of every change on `channel`, from this process or another. */
  on(channel: string, handler: (key: string) => void): () => void {
    let set = this.#handlers.get(channel);
    if (!set) this.#handlers.set(channel, (set = new Set()));
    set.add(handler);
    if (!this.#listening.has(channel)) {
      // A database that cannot listen (closed, unreachable) leaves the caches on their time limit alone.
      this.#listening.set(channel, this.database.listen(channel, (key) => this.local(channel, key)).catch(() => undefined));
    }
    return () => set!.delete(handler);
  }

  /** Resolves once the database is listening on every channel subscribed so far (tests wait on it). */
  async ready(): Promise<void> {
    await Promise.all(this.#listening.values());
  }

  /** Announces a change to every process; inside a transaction it is sent when the transaction commits. */
  publish(executor: Db, channel: string, key: string): Promise<void> {
    return notify(executor, channel, key);
  }

  /** Applies a change to this process's caches now (call it after the commit). */
  local(channel: string, key: string): void {
    for (const h of this.#handlers.get(channel) ?? []) h(key);
  }
}

const feeds = new WeakMap<Database, ChangeFeed>();

export function changeFeed(database: Database): ChangeFeed {
  let f = feeds.get(database);
  if (!f) feeds.set(database, (f = new ChangeFeed(database)));
  return f;
}

/** Channel of API key changes; the key is the key's hash (what requests look it up by). */
export const API_KEY_CHANGED = 'commerce_api_key_changed';

/** Channel of catalog changes (products created, edited, archived); the key is the store id. */
export const CATALOG_CHANGED = 'commerce_catalog_changed';
/** Channel of store setting changes (return URLs, provider, keys, verification); the key is the store id. */
export const STORE_CHANGED = 'commerce_store_changed';

const storeCaches = new WeakMap<Database, Map<string, TtlCache<unknown>>>();

/**
 * A per-process cache of reads that belong to one store (`storeId|…` keys), emptied for a store whenever `channel`
 * announces a change of it, here or in another process. One cache per database and name, so the module that reads
 * and the module that writes share it.
 */
export function storeCache<V>(database: Database, name: string, ttlMs: number, channel: string): TtlCache<V> {
  let byName = storeCaches.get(database);
  if (!byName) storeCaches.set(database, (byName = new Map()));
  let cache = byName.get(name) as TtlCache<V> | undefined;
  if (!cache) {
    const c = new TtlCache<V>(ttlMs);
    byName.set(name, c as TtlCache<unknown>);
    changeFeed(database).on(channel, (storeId) => c.deleteWhere((k) => k.startsWith(`${storeId}|`)));
    cache = c;
  }
  return cache;
}

/** After a committed write of a store's cached rows: drops them here now and tells the other processes. */
export async function storeChanged(database: Database | undefined, db: Db, channel: string, storeId: string): Promise<void> {
  if (database) changeFeed(database).local(channel, storeId);
  await notify(db, channel, storeId).catch(() => undefined);
}
