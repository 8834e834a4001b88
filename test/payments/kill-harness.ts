import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Starts and drives the kill tests' server processes (test/payments/kill-server.ts: the app as `commerce start` builds
 * it, with a ManualClock and background work run on command), for each gateway's kill test (toss-kill.test.ts,
 * portone-kill.test.ts), which passes in its gateway's environment (base URL, timeouts).
 */

const SERVER = fileURLToPath(new URL('./kill-server.ts', import.meta.url));
/** Only a bound on failure (a server that never starts or a command that never answers), never waited for otherwise. */
const PROCESS_DEADLINE_MS = 60_000;

export interface KillServer {
  base: string;
  /** Moves the server's clock forward. */
  advance(ms: number): Promise<void>;
  /** One pass of the server's background work (every sweep and task, then every due job); resolves with the work done. */
  run(): Promise<number>;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM: the server shuts down as in production. */
  stop(): Promise<void>;
}

/** Every server process still running (killed with SIGKILL by `killAll` in the test's `after`). */
const children = new Set<ChildProcess>();

export function killAll(): void {
  for (const c of children) c.kill('SIGKILL');
}

/** Starts a server process on `databaseUrl` with its clock at `at`; `env` adds the gateway's settings. */
export async function startKillServer(opts: { databaseUrl: string; masterKey: Buffer; at: Date; env: Record<string, string> }): Promise<KillServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER], {
    env: {
      ...process.env,
      DATABASE_URL: opts.databaseUrl,
      DATABASE_POOL_SIZE: '4',
      MASTER_KEY: opts.masterKey.toString('hex'),
      PORT: '0',
      PUBLIC_BASE_URL: 'http://localhost:3000',
      RUN_WORKERS: 'false',
      SETTLEMENT_SCHEDULE: 'off',
      REDIS_URL: '',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      LOG_FORMAT: 'json',
      KILL_TEST_CLOCK: opts.at.toISOString(),
      ...opts.env,
    },
    stdio: ['ignore', process.env.TEST_LOG_LEVEL ? 'inherit' : 'ignore', 'inherit', 'ipc'],
  });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let seq = 0;
  child.on('message', (m: any) => {
    const w = waiting.get(m?.id);
    if (!w) return;
    waiting.delete(m.id);
    if ('error' in m) w.reject(new Error(m.error));
    else w.resolve(m.result);
  });
  child.once('exit', (code, signal) => {
    children.delete(child);
    for (const w of waiting.values()) w.reject(new Error(`server process ended (${signal ?? code})`));
    waiting.clear();
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server process did not start')), PROCESS_DEADLINE_MS);
    child.on('message', (m: any) => {
      if (m?.type !== 'ready') return;
      clearTimeout(timer);
      resolve(m.port);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server process ended before it listened (${signal ?? code})`));
    });
  });
  const command = (cmd: string, extra: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = ++seq;
      const timer = setTimeout(() => reject(new Error(`server did not answer ${cmd}`)), PROCESS_DEADLINE_MS);
      waiting.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      child.send({ id, cmd, ...extra });
    });
  return {
    base: `http://127.0.0.1:${port}`,
    advance: async (ms) => void (await command('advance', { ms })),
    run: async () => (await command('run')) as number,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A promise's outcome, observed from the start (a call cut by the kill rejects before the test looks at it). */
export const settled = <T>(p: Promise<T>): Promise<{ value?: T; error?: unknown }> => p.then((value) => ({ value }), (error: unknown) => ({ error }));
