import { RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { BoundedRateLimiterMemory } from './bounded-memory-store';
import type { Redis } from 'ioredis';
import type { FastifyReply } from 'fastify';
import type { Clock } from '../clock';
import { ApiError } from '../errors';

/**
 * Fixed-window counters from rate-limiter-flexible: in process by default, in Redis when REDIS_URL is set so
 * several instances count together. If Redis fails, an in-memory limiter takes over rather than refusing traffic.
 * The in-memory counters are bounded (./bounded-memory-store.ts): no timer per key, expired keys dropped as new ones
 * come, at most 100,000 keys per limiter.
 */
export function createLimiter(opts: { redis: Redis | null; keyPrefix: string; points: number; durationSec: number; blockDurationSec?: number }): RateLimiterAbstract {
  const base = { keyPrefix: opts.keyPrefix, points: opts.points, duration: opts.durationSec, blockDuration: opts.blockDurationSec ?? 0 };
  const memory = new BoundedRateLimiterMemory(base);
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

/**
 * The per-key limit of the public API (RATE_LIMIT_PER_MINUTE): spends one call for the identified key, sets the
 * X-RateLimit-* headers, and refuses with 429 RATE_LIMITED when the minute's budget is spent. Runs as soon as the
 * key is identified, before its IP and scope checks, so a 403 counts and carries the headers too.
 */
export async function enforceKeyRateLimit(limiter: RateLimiterAbstract, clock: Clock, reply: FastifyReply, keyId: string): Promise<void> {
  const rl = await consume(limiter, keyId);
  reply.header('X-RateLimit-Limit', String(rl.limit));
  reply.header('X-RateLimit-Remaining', String(rl.remaining));
  reply.header('X-RateLimit-Reset', String(Math.ceil(clock.now().getTime() / 1000) + rl.resetSec));
  if (!rl.allowed) throw new ApiError('RATE_LIMITED', { headers: { 'Retry-After': String(rl.resetSec) } });
}
