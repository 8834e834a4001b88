import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';

/**
 * Fixed-window counters from rate-limiter-flexible: in process by default, in Redis when REDIS_URL is set so
 * several instances count together. If Redis fails, an in-memory limiter takes over rather than refusing traffic.
 */
export function createLimiter(opts: { redis: Redis | null; keyPrefix: string; points: number; durationSec: number; blockDurationSec?: number }): RateLimiterAbstract {
  const base = { keyPrefix: opts.keyPrefix, points: opts.points, duration: opts.durationSec, blockDuration: opts.blockDurationSec ?? 0 };
  const memory = new RateLimiterMemory(base);
  if (!opts.redis) return memory;
  return new RateLimiterRedis({ ...base, storeClient: opts.redis, insuranceLimiter: memory, rejectIfRedisNotReady: false });
}

export interface LimitOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSec: number;
}

export async function consume(limiter: RateLimiterAbstract, key: string, points = 1): Promise<LimitOutcome> {
  try {
    const res = await limiter.consume(key, points);
    return { allowed: true, limit: limiter.points, remaining: res.remainingPoints, resetSec: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
  } catch (e) {
    if (e instanceof RateLimiterRes) {
      return { allowed: false, limit: limiter.points, remaining: 0, resetSec: Math.max(1, Math.ceil(e.msBeforeNext / 1000)) };
    }
    throw e;
  }
}
