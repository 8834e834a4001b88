import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allocatorEnv } from '../../bench/lib';

// The soak compares allocators by running the same mix with other malloc settings (issue 43: the processes' RSS grew
// outside the V8 heap). Only those settings reach the server and worker: the harness's other variables stay its own.
test("the allocator's settings reach the server and worker; nothing else of the harness's environment does", () => {
  const env = allocatorEnv({ MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072', BENCH_LD_PRELOAD: '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2', LD_PRELOAD: '/harness-only.so', DATABASE_URL: 'postgres://x', PATH: '/bin' });
  assert.deepEqual(env, { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072', LD_PRELOAD: '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2' });
});

test("by default the server and worker run with the production image's glibc settings; one set empty runs on glibc's own", () => {
  assert.deepEqual(allocatorEnv({ PATH: '/bin' }), { MALLOC_MMAP_THRESHOLD_: '131072' }, 'the Dockerfile\'s setting');
  assert.deepEqual(allocatorEnv({ MALLOC_MMAP_THRESHOLD_: '65536' }), { MALLOC_MMAP_THRESHOLD_: '65536' }, 'overridden');
  assert.deepEqual(allocatorEnv({ MALLOC_MMAP_THRESHOLD_: '' }), {}, "glibc's dynamic threshold");
});
