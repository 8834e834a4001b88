import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { AppDeps } from '../deps';
import { ApiError } from '../platform/errors';
import { consume, createLimiter } from '../platform/http/rate-limit';

/**
 * Abuse limits of the license app API, counted in Redis when REDIS_URL is set (all instances together), else in
 * process. Thresholds come from the configuration:
 * - per client address: LICENSE_IP_RATE_LIMIT_PER_MINUTE calls a minute → 429 LICENSE_RATE_LIMITED;
 * - per license key: LICENSE_RATE_LIMIT_PER_MINUTE calls a minute → 429 LICENSE_RATE_LIMITED;
 * - per client address: more than LICENSE_NOT_FOUND_LIMIT `not_found` answers within LICENSE_NOT_FOUND_WINDOW_SECONDS
 *   → 429 LICENSE_LOOKUP_BLOCKED for LICENSE_NOT_FOUND_BLOCK_SECONDS, on every key (guessing keys is what it stops).
 * Every refusal carries Retry-After in seconds.
 */
export class LicenseAbuseLimits {
  readonly #perAddress: RateLimiterAbstract;
  readonly #perKey: RateLimiterAbstract;
  readonly #notFound: RateLimiterAbstract;
  readonly #redis: Redis | null;

  constructor(deps: Pick<AppDeps, 'config' | 'redis'>) {
    const { config, redis } = deps;
    this.#redis = redis;
    if (redis && !(redis as any).licenseAdmit) redis.defineCommand('licenseAdmit', { numberOfKeys: 3, lua: ADMIT_LUA });
    this.#perAddress = createLimiter({ redis, keyPrefix: 'rl_lic_ip', points: config.licenseIpRateLimitPerMinute, durationSec: 60 });
    this.#perKey = createLimiter({ redis, keyPrefix: 'rl_lic_key', points: config.licenseRateLimitPerMinute, durationSec: 60 });
    this.#notFound = createLimiter({
      redis,
      keyPrefix: 'rl_lic_nf',
      points: config.licenseNotFoundLimit,
      durationSec: config.licenseNotFoundWindowSeconds,
      blockDurationSec: config.licenseNotFoundBlockSeconds,
    });
  }

  /**
   * The address check and the key check together: in Redis one round trip (a Lua script doing what admitAddress and
   * admitKey do, on the same keys rate-limiter-flexible uses), in process the same two steps. If Redis fails, the
   * in-process limiters take over, as they do for every limiter.
   */
  async admit(bucket: string, keyHash: string): Promise<void> {
    if (!this.#redis) {
      await this.admitAddress(bucket);
      await this.admitKey(keyHash);
      return;
    }
    let r: number[];
    try {
      r = await (this.#redis as any).licenseAdmit(
        `${this.#notFound.keyPrefix}:${bucket}`,
        `${this.#perAddress.keyPrefix}:${bucket}`,
        `${this.#perKey.keyPrefix}:${keyHash}`,
        this.#notFound.points,
        this.#perAddress.points,
        this.#perAddress.duration * 1000,
        this.#perKey.points,
        this.#perKey.duration * 1000,
      );
    } catch {
      await this.admitAddress(bucket);
      await this.admitKey(keyHash);
      return;
    }
    const [verdict, ttlMs] = r;
    if (verdict === 1) throw blocked(ttlMs);
    if (verdict === 2) throw new ApiError('LICENSE_RATE_LIMITED', { headers: { 'Retry-After': String(Math.max(1, Math.ceil(ttlMs / 1000))) }, internal: `address ${bucket}` });
    if (verdict === 3) throw new ApiError('LICENSE_RATE_LIMITED', { headers: { 'Retry-After': String(Math.max(1, Math.ceil(ttlMs / 1000))) }, internal: 'license key' });
  }

  /** Before anything is read: a blocked address is refused, then the address's call budget is spent. */
  async admitAddress(bucket: string): Promise<void> {
    const nf = await this.#notFound.get(bucket).catch(() => null);
    if (nf && nf.consumedPoints > this.#notFound.points) throw blocked(nf.msBeforeNext);
    const rl = await consume(this.#perAddress, bucket);
    if (!rl.allowed) throw new ApiError('LICENSE_RATE_LIMITED', { headers: { 'Retry-After': String(rl.resetSec) }, internal: `address ${bucket}` });
  }

  /** Per license key, counted by the key's hash so no key reaches Redis in clear. */
  async admitKey(keyHash: string): Promise<void> {
    const rl = await consume(this.#perKey, keyHash);
    if (!rl.allowed) throw new ApiError('LICENSE_RATE_LIMITED', { headers: { 'Retry-After': String(rl.resetSec) }, internal: 'license key' });
  }

  /** After a not_found answer is decided: the answer that goes over the limit is already refused, and the block starts. */
  async recordNotFound(bucket: string): Promise<void> {
    const rl = await consume(this.#notFound, bucket);
    if (!rl.allowed) throw blocked(rl.resetSec * 1000);
  }
}

function blocked(msBeforeNext: number): ApiError {
  return new ApiError('LICENSE_LOOKUP_BLOCKED', { headers: { 'Retry-After': String(Math.max(1, Math.ceil(msBeforeNext / 1000))) } });
}

/**
 * KEYS: not-found counter of the address, call counter of the address, call counter of the key.
 * ARGV: not-found limit, address limit, address window ms, key limit, key window ms.
 * Returns { verdict, ttlMs }: 0 admitted, 1 address blocked for not_found lookups, 2 address over its limit,
 * 3 key over its limit. Counters are fixed windows that start with their first call (as rate-limiter-flexible's).
 */
const ADMIT_LUA = `
local nf = tonumber(redis.call('GET', KEYS[1]) or '0')
if nf > tonumber(ARGV[1]) then return {1, redis.call('PTTL', KEYS[1])} end
local a = redis.call('INCR', KEYS[2])
local attl = redis.call('PTTL', KEYS[2])
if attl < 0 then redis.call('PEXPIRE', KEYS[2], ARGV[3]); attl = tonumber(ARGV[3]) end
if a > tonumber(ARGV[2]) then return {2, attl} end
local k = redis.call('INCR', KEYS[3])
local kttl = redis.call('PTTL', KEYS[3])
if kttl < 0 then redis.call('PEXPIRE', KEYS[3], ARGV[5]); kttl = tonumber(ARGV[5]) end
if k > tonumber(ARGV[4]) then return {3, kttl} end
return {0, 0}
`;
