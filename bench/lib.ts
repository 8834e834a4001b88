import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config';
import { createRuntime, type Runtime } from '../src/runtime';
import { createTestDatabase } from '../test/helpers/app';
import pino from 'pino';

/** The service listening on a random local port, on a fresh database (PGlite, or TEST_DATABASE_URL when set). */
export async function startService(overrides: Record<string, unknown> = {}): Promise<{ rt: Runtime; url: string; close(): Promise<void> }> {
  const database = await createTestDatabase();
  const config = loadConfig({ ...process.env, DATABASE_URL: '', REDIS_URL: process.env.BENCH_REDIS_URL ?? '' }, {
    dataDir: 'memory://',
    masterKey: randomBytes(32),
    port: 0,
    runWorkers: false,
    rateLimitPerMinute: 10_000_000,
    ...overrides,
  } as any);
  const rt = await createRuntime(config, { database, log: pino({ level: 'silent' }) as any });
  const address = await rt.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    rt,
    url: address,
    async close() {
      await rt.close();
      await (database as any).drop?.();
    },
  };
}

export interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Drives one request shape with autocannon and prints requests/s and p50/p99 latency. */
export async function drive(name: string, opts: autocannon.Options): Promise<Figures> {
  const result = await autocannon({ connections: 10, duration: Number(process.env.BENCH_SECONDS ?? 5), ...opts });
  const f: Figures = {
    name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
  console.log(`${name.padEnd(46)} ${String(f.rps).padStart(7)} req/s   p50 ${String(f.p50).padStart(4)} ms   p99 ${String(f.p99).padStart(4)} ms   non-2xx ${f.non2xx}   errors ${f.errors}`);
  return f;
}

export function ratio(a: Figures, b: Figures): string {
  return `${a.name} runs at ${((a.rps / b.rps) * 100).toFixed(1)}% of ${b.name} (${(b.rps / a.rps).toFixed(2)}x slower)`;
}
