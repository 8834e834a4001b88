// Webhook delivery throughput: deliveries per second from `commerce worker` processes (one, then two racing over the
// same database) to a local receiver that answers 200 at once. The events are written before the workers start; the
// rate is taken from the first delivery received to the last. On the embedded database only one process can open
// the data directory, so there the server process's own worker is measured, once.
// `npm run bench webhooks`; BENCH_WEBHOOK_EVENTS (4000).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cpuMs, startServer, type Server } from './lib';
import { createStore } from '../src/stores/service';
import { writeEvent } from '../src/platform/events';
import { createEndpoint } from '../src/webhooks/service';
import type { AppDeps } from '../src/deps';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 4000);
const ROOT = join(import.meta.dirname, '..');

async function writeEvents(deps: AppDeps, storeId: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 200) {
    await deps.db.transaction().execute(async (trx) => {
      for (let j = i; j < Math.min(n, i + 200); j++) {
        await writeEvent(trx, deps.clock, { storeId, mode: 'test', type: 'order.paid', data: { id: `ord_${j}`, amount: 10_000, currency: 'KRW' } });
      }
    });
  }
}

function receiver(): Promise<{ port: number; times: number[]; close(): Promise<void> }> {
  const times: number[] = [];
  const srv = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      times.push(performance.now());
      res.writeHead(200);
      res.end();
    });
  });
  return new Promise((resolve) =>
    srv.listen(0, '127.0.0.1', () =>
      resolve({
        port: (srv.address() as AddressInfo).port,
        times,
        close: () => {
          srv.closeAllConnections();
          return new Promise<void>((r) => srv.close(() => r()));
        },
      }),
    ),
  );
}

/**
 * Waits for `n` deliveries; returns the CPU time (ms, user + system) the delivering processes spent from the first
 * delivery to the last, sampled every 20 ms. CPU per delivery is the figure the machine's other load moves least.
 */
async function waitFor(times: number[], n: number, limitMs: number, pids: number[]): Promise<number> {
  const deadline = Date.now() + limitMs;
  const cpu = () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  let atFirst: number | null = null;
  while (times.length < n) {
    if (Date.now() > deadline) throw new Error(`only ${times.length} of ${n} deliveries arrived`);
    if (atFirst === null && times.length > 0) atFirst = cpu();
    await new Promise((r) => setTimeout(r, 20));
  }
  return cpu() - (atFirst ?? 0);
}

function report(label: string, times: number[], cpu: number, workers: number): void {
  const perCpuSecond = Math.round(((times.length - 1) / cpu) * 1000);
  console.log(
    `${label.padEnd(48)} ${String(rate(times)).padStart(7)} deliveries/s   (${(rate(times) / workers).toFixed(0)} per worker; ${(cpu / (times.length - 1)).toFixed(3)} ms CPU per delivery = ${perCpuSecond} per CPU-second)`,
  );
}

const rate = (times: number[]) => Math.round(((times.length - 1) / (times[times.length - 1] - times[0])) * 1000);

export default async function run(): Promise<void> {
  // With PostgreSQL the server runs no worker (the worker processes deliver); with PGlite the server is the worker.
  const onPostgres = Boolean(process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL);
  for (const workers of [1, 2]) {
    const rx = await receiver();
    const env = { WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_LOOPBACK_PORTS: String(rx.port) };
    let server: Server | null = null;
    try {
      const started = await startServer(async (deps) => {
        const { store } = await createStore(deps, { name: 'bench' });
        await createEndpoint(deps, store.id, { mode: 'test', url: `http://127.0.0.1:${rx.port}/hook`, eventTypes: ['order.paid'] });
        await writeEvents(deps, store.id, EVENTS);
        return { storeId: store.id };
      }, { ...env, RUN_WORKERS: onPostgres ? 'false' : 'true' });
      server = started.server;
      if (server.kind === 'pglite') {
        if (workers === 2) break;
        const cpu = await waitFor(rx.times, EVENTS, 120_000, [server.pid]);
        report('webhook deliveries, the server process (PGlite)', rx.times, cpu, 1);
        continue;
      }
      const procs = Array.from({ length: workers }, () =>
        spawn(process.execPath, [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), join(ROOT, 'bin/commerce.js'), 'worker'], {
          env: { PATH: process.env.PATH ?? '', ...server!.env, ...env },
          stdio: 'ignore',
        }),
      );
      let cpu: number;
      try {
        cpu = await waitFor(rx.times, EVENTS, 120_000, procs.map((p) => p.pid!));
      } finally {
        for (const p of procs) p.kill('SIGTERM');
        await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
      }
      report(`webhook deliveries, ${workers} worker process${workers > 1 ? 'es' : ''}`, rx.times, cpu, workers);
    } finally {
      await server?.close();
      await rx.close();
    }
  }
}
