import type { Database } from '../db';
import { TtlCache } from '../platform/cache';
import { changeFeed } from '../platform/changes';
import type { Mode } from '../platform/tables';
import type { LicenseRow } from './repo';

/** Channel of license changes (src/db/migrations/013_license_change_notify.sql); the payload is the license id. */
export const LICENSE_CHANGED = 'commerce_license_changed';

export type VerifyRow = LicenseRow & { active_count: number };

/**
 * The license rows POST /v1/licenses/verify reads (the license and its live activation count), kept per process for
 * LICENSE_CACHE_MS. Only the row is cached, never the answer: status (revoked, pending, expired against the clock)
 * is worked out on every request. How stale a row can be:
 * - after a write by this process: never (the write empties the cache before and after its statement runs);
 * - after a write by another process: until its commit's notification arrives (milliseconds), or, if the listening
 *   connection is down, at most LICENSE_CACHE_MS.
 * A read that was in flight when anything changed is not stored (the generation moved), so an older row can never
 * be put back after an invalidation.
 *
 * Keys that are not a license of the product are remembered too (negative entries, with the mode their not_found
 * answer carries), so a flood of unknown keys costs no statement after the first of each: the abuse path must not
 * cost more than the real one. Issuing a license ends them in every process: any license change, an insert included
 * (migration 023), empties all negative entries, in this process at the write and in others at the notification.
 */
export class LicenseVerifyCache {
  readonly #rows: TtlCache<VerifyRow>;
  readonly #absent: TtlCache<Mode>;
  #generation = 0;

  constructor(database: Database, ttlMs: number) {
    this.#rows = new TtlCache<VerifyRow>(ttlMs);
    this.#absent = new TtlCache<Mode>(ttlMs);
    const clear = () => {
      this.#generation++;
      this.#rows.clear();
      this.#absent.clear();
    };
    changeFeed(database).on(LICENSE_CHANGED, (licenseId) => {
      this.#generation++;
      this.#rows.deleteWhere((_k, v) => v.id === licenseId);
      this.#absent.clear();
    });
    database.onWrite('licenses', clear);
    // Recording a verify (last_verified_at) changes nothing cached; anything else about activations changes the count.
    database.onWrite('license_activations', (w) => {
      if (w.op === 'update' && w.columns?.every((c) => c === 'last_verified_at')) return;
      clear();
    });
  }

  /** The cached row, or a loader that stores what it reads unless something changed while it read. */
  async get(keyHash: string, productId: string, read: () => Promise<VerifyRow | undefined>): Promise<VerifyRow | undefined> {
    const key = `${keyHash}|${productId}`;
    const hit = this.#rows.get(key);
    if (hit) return hit;
    const generation = this.#generation;
    const row = await read();
    if (row && generation === this.#generation) this.#rows.set(key, row);
    return row;
  }

  /**
   * The row, or the mode of the not_found answer when there is none: `modeOf` is asked only on a miss, and a miss is
   * remembered as a negative entry unless something about licenses changed while it was read.
   */
  async lookup(keyHash: string, productId: string, read: () => Promise<VerifyRow | undefined>, modeOf: () => Promise<Mode>): Promise<{ row: VerifyRow } | { notFoundMode: Mode }> {
    const key = `${keyHash}|${productId}`;
    const absent = this.#absent.get(key);
    if (absent) return { notFoundMode: absent };
    const generation = this.#generation;
    const row = await this.get(keyHash, productId, read);
    if (row) return { row };
    const mode = await modeOf();
    if (generation === this.#generation) this.#absent.set(key, mode);
    return { notFoundMode: mode };
  }
}

const caches = new WeakMap<Database, LicenseVerifyCache>();

export function licenseVerifyCache(database: Database, ttlMs: number): LicenseVerifyCache {
  let c = caches.get(database);
  if (!c) caches.set(database, (c = new LicenseVerifyCache(database, ttlMs)));
  return c;
}
