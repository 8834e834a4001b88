import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config';
import { createRuntime } from '../src/runtime';
import type { AppDeps } from '../src/deps';

/**
 * The benchmark harness. The service runs as its own process (`node bin/commerce.js start`, the compiled build, with
 * production defaults: info logging, workers on), and the load generator (autocannon) runs here, in another process.
 * Data is seeded before the server starts, through the service's own code, on a fresh database: PostgreSQL when
 * BENCH_DATABASE_URL (or TEST_DATABASE_URL) names a server, else the embedded PGlite in a temporary directory.
 * The only settings changed from production defaults are the per-key, per-address and not-found rate limits (raised
 * so the load is not refused) and BENCH_REFERENCE_ROUTES (the reference routes the ratios are taken against).
 */

const ROOT = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

export interface Server {
  url: string;
  pid: number;
  kind: 'postgres' | 'pglite';
  logFile: string;
  /** The environment the server runs with (database, master key), for worker processes of the same deployment. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * glibc's settings the production image sets for the service's processes (the Dockerfile's runtime ENV; the
 * deployment manual gives the same line for a service manager): mmap's threshold fixed at glibc's own initial 128 KiB.
 * Left to glibc, the threshold rises to the size of every larger block freed (up to 32 MiB), after which such blocks
 * come from the main arena, whose top is returned to the system only past twice that; the worker's RSS grew 1.24 MB
 * per 10 minutes over the hour's soak with its heap flat. That growth had another cause (the hole Node 20's module
 * loader left in the main arena at start; scripts/build.mjs bundles the packages behind it); the fixed threshold
 * stays because the server holds 14–46 MB less with it at no CPU cost (performance manual, round 4).
 * `test/platform/deploy-files.test.ts` holds the Dockerfile to this.
 */
export const PRODUCTION_MALLOC: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };

/**
 * The memory allocator's settings for the server and its workers: the production ones (PRODUCTION_MALLOC), then
 * glibc's `MALLOC_*` variables of this environment over them (MALLOC_ARENA_MAX, MALLOC_TRIM_THRESHOLD_, …; one set
 * empty is dropped, so `MALLOC_MMAP_THRESHOLD_=` runs on glibc's dynamic threshold), and BENCH_LD_PRELOAD becomes their
 * LD_PRELOAD (a different malloc, e.g. Debian's libjemalloc2, without loading it into the load generator).
 */
export function allocatorEnv(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = { ...PRODUCTION_MALLOC };
  for (const [k, v] of Object.entries(from)) {
    if (!k.startsWith('MALLOC_') || v === undefined) continue;
    if (v === '') delete out[k];
    else out[k] = v;
  }
  if (from.BENCH_LD_PRELOAD) out.LD_PRELOAD = from.BENCH_LD_PRELOAD;
  return out;
}

/** Seeds a fresh database with `seed`, then starts the service on it as a separate process. */
export async function startServer<T>(
  seed: (deps: AppDeps) => Promise<T>,
  env: Record<string, string> = {},
  /** PostgreSQL's URL, or null for the embedded database; by default BENCH_DATABASE_URL (or TEST_DATABASE_URL). */
  database: string | null = postgresUrl(),
): Promise<{ server: Server; seeded: T }> {
  const serverUrl = database;
  const masterKey = randomBytes(32).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), 'commerce-bench-'));
  let databaseUrl: string | null = null;
  let dropDatabase = async () => {};
  if (serverUrl) {
    const name = `commerce_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const u = new URL(serverUrl);
    u.pathname = `/${name}`;
    databaseUrl = u.toString();
    dropDatabase = async () => {
      const a = new pg.Client({ connectionString: serverUrl });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    };
  }
  const baseEnv: Record<string, string> = {
    MASTER_KEY: masterKey,
    DATA_DIR: dir,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    RATE_LIMIT_PER_MINUTE: '1000000000',
    LICENSE_RATE_LIMIT_PER_MINUTE: '1000000000',
    LICENSE_IP_RATE_LIMIT_PER_MINUTE: '1000000000',
    // The unknown-key row measures what a not_found answer costs, not how fast the block refuses it (it would be
    // blocked after 20 from one address).
    LICENSE_NOT_FOUND_LIMIT: '1000000000',
    PAY_ATTEMPTS_PER_IP_PER_HOUR: '1000000000',
    BENCH_REFERENCE_ROUTES: 'true',
    ...allocatorEnv(),
    ...env,
  };

  // Seed through the service's own code, then close the database so the server process can open it.
  const config = loadConfig({ ...baseEnv, REDIS_URL: '' });
  const rt = await createRuntime(config, { log: pino({ level: 'silent' }) as any });
  const seeded = await seed(rt.deps);
  const kind = rt.deps.database.kind;
  await rt.close();

  const port = 20000 + Math.floor(Math.random() * 20000);
  const logFile = join(dir, 'server.log');
  const out = openSync(logFile, 'a');
  // BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it exits (open it in Chrome DevTools).
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // BENCH_HEAP_SNAPSHOTS=<dir>: the server writes a V8 heap snapshot there on SIGUSR2 (the soak sends it at the end of
  // its warm-up and in its last minute; compare them with `node bench/heap-diff.mjs a b`). Off by default: bigstore's
  // query capture uses the same signal.
  if (process.env.BENCH_HEAP_SNAPSHOTS) prof.push('--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${process.env.BENCH_HEAP_SNAPSHOTS}`);
  // BENCH_INSPECT_PORT=<port>: the server's inspector listens on loopback there (the soak's --after-gc asks it for a
  // full collection each minute through bench/gc-probe.mjs). Off by default.
  if (process.env.BENCH_INSPECT_PORT) prof.push(`--inspect=127.0.0.1:${process.env.BENCH_INSPECT_PORT}`);
  const child: ChildProcess = spawn(process.execPath, [...prof, join(ROOT, 'bin/commerce.js'), 'start', '--no-demo'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...baseEnv, PORT: String(port), HOST: '127.0.0.1', ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}) },
    stdio: ['ignore', out, out],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${readFileSync(logFile, 'utf8').slice(-2000)}`);
    try {
      const r = await fetch(`${url}/ready`);
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error('server did not become ready in 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  const server: Server = {
    url,
    pid: child.pid!,
    kind,
    logFile,
    env: baseEnv,
    async close() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await dropDatabase();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return { server, seeded };
}

/** The reference routes' own process (bench/bare-reference.mjs): what `drive` needs of a process it measures. */
export type Target = Pick<Server, 'url' | 'pid'>;

/**
 * Starts the reference routes in a bare Node process of their own (plain node:http and pg, bench/bare-reference.mjs)
 * on the server's PostgreSQL database, with the server's pool size, so a ratio is not taken against routes that share
 * the server's process, heap and event loop. PostgreSQL only: the embedded database belongs to one process.
 */
export async function startBareReference(server: Server): Promise<Target & { close(): Promise<void> }> {
  if (!server.env.DATABASE_URL) throw new Error('the separate reference process needs PostgreSQL (BENCH_DATABASE_URL)');
  const port = 20000 + Math.floor(Math.random() * 20000);
  const out = openSync(join(server.env.DATA_DIR, 'bare-reference.log'), 'a');
  const child = spawn(process.execPath, [join(ROOT, 'bench/bare-reference.mjs')], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: server.env.DATABASE_URL, DATABASE_POOL_SIZE: server.env.DATABASE_POOL_SIZE ?? '10', PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', out, out],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`reference process exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/bench/bare`)).status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error('reference process did not listen in 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    async close() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** The PostgreSQL server the benchmark uses, when one is named. */
export function postgresUrl(): string | null {
  return process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? null;
}

/**
 * Idle RSS: what the process holds once it has been left alone. Right after start V8's heap still holds start-up's
 * garbage and a young generation grown for it (PostgreSQL: ~150 MB at /ready); V8 gives that back on its own after
 * some idle time (~40 s here). Samples RSS every second, without sending a request, until it has stayed within 2 MB for
 * `stableFor` seconds after falling, or for `maxSeconds` in all; returns the last reading.
 */
export async function idleRssMb(pid: number, maxSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 60), stableFor = 5): Promise<number> {
  const start = rssMb(pid);
  let last = start;
  let stable = 0;
  for (let s = 0; s < maxSeconds; s++) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = rssMb(pid);
    stable = Math.abs(now - last) <= 2 ? stable + 1 : 0;
    last = now;
    if (now < start - 10 && stable >= stableFor) break;
  }
  return last;
}

/** Resident memory of a process, in MB. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

/**
 * CPU time (user + system) a process has used so far, in ms, from /proc. On a machine shared with other work, CPU
 * spent per request moves far less than requests per second do, so the benchmark prints both.
 */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of the whole line (utime, stime) are 12 and 13 after the command name; in clock ticks (100/s).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** Statements the server has sent to its database so far (its `db_statements_total` metric). */
export async function statementsSoFar(server: Target): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const m = /^db_statements_total (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
  return m ? Number(m[1]) : NaN;
}

export interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Database statements per request, counted by the server's metric over the run. */
  statements: number;
  /** Highest server RSS sampled during the run, MB. */
  rssMax: number;
  /** Server CPU time per request, ms (user + system, from /proc). */
  cpuPerRequest: number;
}

/** Drives one request shape with autocannon against the server process; samples its RSS and counts statements. */
export async function drive(server: Target, name: string, opts: autocannon.Options): Promise<Figures> {
  const before = await statementsSoFar(server);
  const cpuBefore = cpuMs(server.pid);
  let rssMax = rssMb(server.pid);
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, rssMb(server.pid));
  }, 250);
  // autocannon's own histogram keeps whole milliseconds (a 0.6 ms p50 prints as 0); the latencies of 2xx answers are
  // kept here at full resolution for p50/p99.
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const inst = autocannon({ connections: CONNECTIONS, duration: SECONDS, ...opts }, (err, res) => (err ? reject(err) : resolve(res)));
    inst.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] : NaN);
  clearInterval(sampler);
  const cpuAfter = cpuMs(server.pid);
  const after = await statementsSoFar(server);
  const requests = result.requests.total;
  const f: Figures = {
    name,
    rps: Math.round(result.requests.average),
    p50: pct(50),
    p99: pct(99),
    requests,
    non2xx: result.non2xx,
    errors: result.errors,
    statements: requests > 0 ? (after - before) / requests : NaN,
    rssMax,
    cpuPerRequest: requests > 0 ? (cpuAfter - cpuBefore) / requests : NaN,
  };
  return f;
}

export function printHeader(): void {
  console.log(
    `${'route'.padEnd(48)} ${'req/s'.padStart(7)} ${'p50'.padStart(5)} ${'p99'.padStart(5)} ${'p99/p50'.padStart(7)} ${'stmts/req'.padStart(9)} ${'ratio'.padStart(6)} ${'CPU/req'.padStart(8)} ${'CPU ratio'.padStart(9)}  ${'RSS max'.padStart(7)}  non-2xx`,
  );
}

/**
 * One row: `ratio` is requests/s against the reference route's; `CPU ratio` is the reference's server CPU per request
 * divided by this route's (the same direction: 1.0 = as cheap as the reference). p99/p50 uses autocannon's
 * microsecond-resolution latencies where it has them. `separate`: the same reference measured in its own bare process
 * (--bare-ref); a second line prints the ratios against it, with that process's CPU per request.
 */
export function printRow(f: Figures, reference?: Figures, separate?: Figures): void {
  const ratio = reference ? (f.rps / reference.rps).toFixed(2) : '';
  const cpuRatio = reference && f.cpuPerRequest > 0 ? (reference.cpuPerRequest / f.cpuPerRequest).toFixed(2) : '';
  const stm = Number.isFinite(f.statements) ? f.statements.toFixed(2) : '?';
  const tail = f.p50 > 0 ? (f.p99 / f.p50).toFixed(1) : '';
  console.log(
    `${f.name.padEnd(48)} ${String(f.rps).padStart(7)} ${`${fmtMs(f.p50)}`.padStart(5)} ${`${fmtMs(f.p99)}`.padStart(5)} ${tail.padStart(7)} ${stm.padStart(9)} ${ratio.padStart(6)} ${`${f.cpuPerRequest.toFixed(3)}ms`.padStart(8)} ${cpuRatio.padStart(9)}  ${`${f.rssMax}MB`.padStart(7)}  ${f.non2xx + f.errors}`,
  );
  // With the reference routes also in their own process (--bare-ref): the ratios against that process's figures.
  if (separate) {
    const r = (f.rps / separate.rps).toFixed(2);
    const c = f.cpuPerRequest > 0 ? (separate.cpuPerRequest / f.cpuPerRequest).toFixed(2) : '?';
    console.log(`${'  … vs the reference in its own process'.padEnd(48)} ${String(separate.rps).padStart(7)} ${''.padStart(5)} ${''.padStart(5)} ${''.padStart(7)} ${''.padStart(9)} ${r.padStart(6)} ${`${separate.cpuPerRequest.toFixed(3)}ms`.padStart(8)} ${c.padStart(9)}`);
  }
}

const fmtMs = (ms: number) => (ms >= 10 ? `${Math.round(ms)}ms` : `${ms.toFixed(1)}ms`);
