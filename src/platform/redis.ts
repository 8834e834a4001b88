import type { Redis } from 'ioredis';

/**
 * The Redis client of a deployment (REDIS_URL): ioredis is loaded only when Redis is configured. Every key the service
 * writes (the rate-limit counters, the license-abuse budgets) starts with REDIS_KEY_PREFIX when it is set: ioredis adds
 * it to each command's keys, custom scripts' keys included, so two deployments sharing one Redis never share a counter.
 */
export async function openRedis(url: string, keyPrefix: string): Promise<Redis> {
  const { Redis } = await import('ioredis');
  return new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false, ...(keyPrefix ? { keyPrefix } : {}) });
}
