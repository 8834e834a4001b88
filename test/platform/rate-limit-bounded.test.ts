import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedRateLimiterMemory } from '../../src/platform/http/bounded-memory-store';
import { consume } from '../../src/platform/http/rate-limit';

/**
 * The in-process rate-limit counters must not grow with traffic: the payment page's per-session limit (an hour's
 * window, a key per session) held one record and one timer per session paid for an hour, and the server's heap grew
 * through the whole first hour of a soak. Here a limiter sees a new key every 10 ms for 10 minutes of its own clock.
 */
test('rate-limit counters: expired keys are dropped as new ones come, and no limiter keeps more than its cap', async () => {
  let now = 0;
  const limiter = new BoundedRateLimiterMemory({ keyPrefix: 'rl_t', points: 3, duration: 60 }, 100_000, () => now);
  let peak = 0;
  for (let i = 0; i < 60_000; i++) {
    now += 10;
    assert.equal((await consume(limiter, `cs_${i}`)).allowed, true);
    peak = Math.max(peak, limiter.storage.size);
  }
  // A 60 s window at 100 keys a second: about 6,000 live keys, whatever the number seen (60,000).
  assert.ok(peak <= 6_001, `at most a window's keys are kept (peak ${peak})`);

  const capped = new BoundedRateLimiterMemory({ keyPrefix: 'rl_c', points: 3, duration: 3600 }, 1_000, () => now);
  for (let i = 0; i < 5_000; i++) await consume(capped, `ip_${i}`);
  assert.equal(capped.storage.size, 1_000, 'a flood of keys inside the window stops at the cap');
});

test('rate-limit counters: a key over its points is refused until its window ends, then counts afresh', async () => {
  let now = 0;
  const limiter = new BoundedRateLimiterMemory({ keyPrefix: 'rl_t', points: 2, duration: 60 }, 100, () => now);
  assert.equal((await consume(limiter, 'k')).remaining, 1);
  assert.equal((await consume(limiter, 'k')).allowed, true);
  const refused = await consume(limiter, 'k');
  assert.equal(refused.allowed, false);
  assert.equal(refused.resetSec, 60);
  now += 30_000;
  assert.equal((await consume(limiter, 'k')).resetSec, 30, 'the window runs from the first attempt');
  now += 30_001;
  assert.deepEqual(await consume(limiter, 'k'), { allowed: true, limit: 2, remaining: 1, resetSec: 60 });
  assert.equal((await limiter.get('k'))?.consumedPoints, 1);
  await limiter.delete('k');
  assert.equal(await limiter.get('k'), null);
});
