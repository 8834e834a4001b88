import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestDatabase, createTestStore, type TestApp } from '../helpers/app';
import { ManualClock } from '../../src/platform/clock';
import { dispatchEventsOnce, runDeliveryOnce } from '../../src/webhooks/delivery';
import { createEndpoint, emit } from './setup';
import { startReceiver, type Receiver } from './receiver';

// Two app instances (two Workers) on ONE database, as two `commerce worker` processes on one PostgreSQL would be.
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let a: TestApp;
let b: TestApp;
let rx: Receiver;
let secret = '';

before(async () => {
  database = await createTestDatabase();
  const clock = new ManualClock();
  a = await createTestApp({ database, clock });
  b = await createTestApp({ database, clock });
  // A little latency so both workers really have deliveries in flight at the same time.
  rx = await startReceiver({ secrets: () => [secret], respond: () => ({ status: 200, delayMs: 10 }) });
});
after(async () => {
  await rx.close();
  await a.close();
  await b.close();
  // pg-pool's end() resolves before its sockets finish closing; `drop database … with (force)` right after can then
  // hit a closing connection whose error nobody listens to. Close first and let the sockets go (harness issue).
  await database.close();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await database.drop();
});

test('two workers racing over one database send each delivery exactly once', async (ctx) => {
  const s = await createTestStore(a);
  ({ secret } = await createEndpoint(a, s, { url: rx.url('/race') }));
  await createEndpoint(a, s, { url: rx.url('/race-2') });
  const N = 40;
  const ids: string[] = [];
  for (let i = 0; i < N; i++) ids.push((await emit(a, s.storeId, 'order.paid', { n: i })).id);

  const now = a.clock.now();
  // Both dispatchers at once: each event fans out once (2 endpoints → 2N deliveries, not 4N).
  await Promise.all([dispatchEventsOnce(a.deps, now), dispatchEventsOnce(b.deps, now), dispatchEventsOnce(a.deps, now)]);
  const deliveries = await a.db.selectFrom('webhook_deliveries').select('id').where('store_id', '=', s.storeId).execute();
  assert.equal(deliveries.length, 2 * N);

  // Both delivery loops at once, in small batches so they interleave.
  const [na, nb] = await Promise.all([
    runDeliveryOnce(a.deps, now, { batchSize: 3, concurrency: 3 }),
    runDeliveryOnce(b.deps, now, { batchSize: 3, concurrency: 3 }),
  ]);
  ctx.diagnostic(`worker A sent ${na}, worker B sent ${nb} (${database.kind})`);
  assert.equal(na + nb, 2 * N, `worker A sent ${na}, worker B sent ${nb}`);
  const race = rx.received.filter((r) => r.path === '/race');
  assert.equal(race.length, N);
  assert.deepEqual(race.map((r) => r.headers['webhook-id']).sort(), [...ids].sort(), 'every event exactly once');
  assert.equal(rx.received.filter((r) => r.path === '/race-2').length, N);
  for (const r of race) assert.deepEqual(r.verifiedWith, [secret]);
  const attempts = await a.db.selectFrom('webhook_attempts').select(['delivery_id']).execute();
  assert.equal(attempts.length, 2 * N);
  assert.equal(new Set(attempts.map((x) => x.delivery_id)).size, 2 * N, 'one attempt per delivery');
  // Nothing left for either worker.
  assert.equal((await Promise.all([runDeliveryOnce(a.deps, now), runDeliveryOnce(b.deps, now)])).reduce((x, y) => x + y), 0);
});
