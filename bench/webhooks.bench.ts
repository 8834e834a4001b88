// Webhook delivery throughput: deliveries per second to a local receiver that answers 200 at once, with one
// delivery loop and with two loops racing over the same database (as two `commerce worker` processes would).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { startService } from './lib';
import { createStore } from '../src/stores/service';
import { writeEvent } from '../src/platform/events';
import { createEndpoint } from '../src/webhooks/service';
import { dispatchEventsOnce, runDeliveryOnce } from '../src/webhooks/delivery';
import type { AppDeps } from '../src/deps';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 2000);

async function writeEvents(deps: AppDeps, storeId: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 200) {
    await deps.db.transaction().execute(async (trx) => {
      for (let j = i; j < Math.min(n, i + 200); j++) {
        await writeEvent(trx, deps.clock, { storeId, mode: 'test', type: 'order.paid', data: { id: `ord_${j}`, amount: 10_000, currency: 'KRW' } });
      }
    });
  }
  await dispatchEventsOnce(deps, deps.clock.now());
}

/** Runs `loops` delivery loops concurrently until nothing is due; returns deliveries per second. */
async function drain(deps: AppDeps, loops: number, expected: number, received: () => number): Promise<{ perSecond: number; perLoop: number[] }> {
  const start = performance.now();
  const before = received();
  const perLoop = await Promise.all(
    Array.from({ length: loops }, async (_, i) => {
      const loopDeps = { ...deps, worker: { id: `bench_${i}` } as AppDeps['worker'] };
      let sent = 0;
      for (;;) {
        const n = await runDeliveryOnce(loopDeps, deps.clock.now());
        if (n === 0) return sent;
        sent += n;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const got = received() - before;
  if (got !== expected) throw new Error(`receiver got ${got} deliveries, expected ${expected}`);
  return { perSecond: Math.round(expected / seconds), perLoop };
}

export default async function run(): Promise<void> {
  let count = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(200);
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  const svc = await startService({ webhookAllowLoopback: true });
  try {
    const deps = svc.rt.deps;
    const { store } = await createStore(deps, { name: 'bench' });
    await createEndpoint(deps, store.id, { mode: 'test', url: `http://127.0.0.1:${port}/hook`, eventTypes: ['order.paid'] });
    console.log(`database: ${deps.database.kind}, ${EVENTS} events per run, receiver answers 200 at once`);
    for (const loops of [1, 2]) {
      await writeEvents(deps, store.id, EVENTS);
      const r = await drain(deps, loops, EVENTS, () => count);
      console.log(`${`webhook deliveries, ${loops} worker${loops > 1 ? 's' : ''}`.padEnd(46)} ${String(r.perSecond).padStart(7)} deliveries/s   (per loop: ${r.perLoop.join(' + ')})`);
    }
  } finally {
    await svc.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}
