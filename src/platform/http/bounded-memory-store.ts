import { RateLimiterMemory, RateLimiterRes, type IRateLimiterOptions } from 'rate-limiter-flexible';

/**
 * The in-process counters of the rate limits, bounded. rate-limiter-flexible's own memory store keeps a `Record`, a
 * `Date` and a `setTimeout` per key until its window ends: about 1 KB a key. The payment page's per-session limit has
 * an hour's window and a key per session paid, so at 4 payments a second it held ~14,400 such entries at any time,
 * and in a soak the server's heap grew by 4.65 MB per 10 minutes for the whole first hour (issue 43; heap snapshots
 * showed ~2,000 `Timeout`s and `Record`s under `rl_pay_session:cs_…` keys after 8 minutes).
 *
 * Here an entry is a number pair in a Map, without a timer: expired entries are dropped as new ones come (the Map keeps
 * insertion order, and a limiter's windows all have the same length, so the oldest entry is the first to expire), and
 * at most `maxKeys` entries are kept: past that the oldest window is forgotten first (a client whose first attempt is
 * the oldest of `maxKeys` gets a fresh count, which only a flood of `maxKeys` other keys can cause).
 */
export class BoundedMemoryStorage {
  readonly #entries = new Map<string, { value: number; expiresAt: number }>();

  constructor(readonly maxKeys: number, private readonly now: () => number = () => performance.now()) {}

  get size(): number {
    return this.#entries.size;
  }

  incrby(key: string, value: number, durationSec: number): RateLimiterRes {
    const e = this.#entries.get(key);
    if (e) {
      const left = e.expiresAt - this.now();
      if (e.expiresAt === Infinity || left > 0) {
        e.value += value;
        return new RateLimiterRes(0, e.expiresAt === Infinity ? -1 : left, e.value, false);
      }
    }
    return this.set(key, value, durationSec);
  }

  set(key: string, value: number, durationSec: number): RateLimiterRes {
    const now = this.now();
    this.#sweep(now);
    const durationMs = durationSec * 1000;
    // Delete first so the key moves to the end of the Map's order with its new expiry.
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: durationMs > 0 ? now + durationMs : Infinity });
    while (this.#entries.size > this.maxKeys) this.#entries.delete(this.#entries.keys().next().value!);
    return new RateLimiterRes(0, durationMs > 0 ? durationMs : -1, value, true);
  }

  get(key: string): RateLimiterRes | null {
    const e = this.#entries.get(key);
    if (!e) return null;
    const left = e.expiresAt - this.now();
    if (e.expiresAt !== Infinity && left <= 0) {
      this.#entries.delete(key);
      return null;
    }
    return new RateLimiterRes(0, e.expiresAt === Infinity ? -1 : left, e.value, false);
  }

  delete(key: string): boolean {
    return this.#entries.delete(key);
  }

  /** Drops expired entries from the oldest on, stopping at the first one still running. */
  #sweep(now: number): void {
    for (const [key, e] of this.#entries) {
      if (e.expiresAt > now) return;
      this.#entries.delete(key);
    }
  }
}

/** rate-limiter-flexible's memory limiter (same counting, blocking and answers) over a BoundedMemoryStorage. */
export class BoundedRateLimiterMemory extends RateLimiterMemory {
  readonly storage: BoundedMemoryStorage;

  constructor(opts: IRateLimiterOptions, maxKeys = 100_000, now?: () => number) {
    super(opts);
    this.storage = new BoundedMemoryStorage(maxKeys, now);
    (this as unknown as { _memoryStorage: BoundedMemoryStorage })._memoryStorage = this.storage;
  }
}
