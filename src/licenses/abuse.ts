import type { RateLimiterAbstract } from 'rate-limiter-flexible';
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

  constructor(deps: Pick<AppDeps, 'config' | 'redis'>) {
    const { config, redis } = deps;
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
