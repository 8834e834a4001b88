import { loadConfig } from './config';
import { createRuntime } from './runtime';
import { createDemoIfEmpty, demoBanner, demoRestartBanner, findDemoStore, hasAnyStore } from './demo';
import { recordPublicAddress } from './platform/public-address';
import { NO_STORE_LOG, noStoreBanner } from './setup';
import { serveMetricsListener } from './platform/http/metrics';

/**
 * `commerce start` and `commerce worker`: the long-running processes. Each stops gracefully on SIGTERM and SIGINT
 * (src/runtime.ts drains), and when the `npm start` that started it is gone (see `exitWithParent`).
 */
export async function startCommand(args: string[]): Promise<void> {
  const config = loadConfig(process.env, args.includes('--no-worker') ? { runWorkers: false } : {});
  const rt = await createRuntime(config);
  const log = rt.deps.log;
  // Demo on first start: embedded database only, unless asked for with --demo. Never live mode.
  const wantDemo = args.includes('--demo') || (!config.databaseUrl && !args.includes('--no-demo'));
  const created = wantDemo ? await createDemoIfEmpty(rt.deps) : null;
  if (created) {
    process.stdout.write(demoBanner(created, config.publicBaseUrl) + '\n');
  } else if (wantDemo) {
    const demoId = await findDemoStore(rt.deps);
    if (demoId) process.stdout.write(demoRestartBanner(demoId, config.publicBaseUrl) + '\n');
  }
  if (config.runWorkers) rt.deps.worker.start();
  await rt.app.listen({ port: config.port, host: config.host });
  const address = rt.app.server.address();
  // What CLI commands run beside this server put in their links (src/platform/public-address.ts).
  const url = await recordPublicAddress(rt.deps.db, {
    publicBaseUrl: config.publicBaseUrl,
    configured: !!process.env.PUBLIC_BASE_URL,
    listeningPort: address && typeof address === 'object' ? address.port : null,
    now: rt.deps.clock.now(),
  });
  log.info({ url, database: rt.deps.database.kind }, 'commerce api listening');
  if (config.metricsListen) {
    const metrics = await serveMetricsListener(config, rt.app.metricsRegistry);
    log.info({ host: config.metricsListen.host, port: metrics.port }, 'metrics listening (METRICS_LISTEN)');
  }
  // An empty database (PostgreSQL, or the embedded one with --no-demo): say what to run next.
  if (!created && !(await hasAnyStore(rt.deps))) {
    process.stdout.write(noStoreBanner(rt.deps.database.kind, url) + '\n');
    log.warn({ next: 'npx commerce setup --name "<store name>" --email <owner e-mail>' }, NO_STORE_LOG);
  }
  handleStopSignals(async (signal) => rt.drain({ delayMs: config.drainDelayMs, reason: signal }), config.drainDelayMs + config.shutdownTimeoutMs + 5_000);
}

export async function workerCommand(): Promise<void> {
  const config = loadConfig();
  const rt = await createRuntime(config);
  rt.deps.worker.start();
  rt.deps.log.info({ worker: rt.deps.worker.id }, 'worker started');
  // No listener to drain (and no /ready): the running job finishes, claimed ones are released, then `worker stopped`.
  handleStopSignals(async (signal) => rt.drain({ delayMs: 0, reason: signal, listener: false }), config.shutdownTimeoutMs + 5_000);
}

/**
 * SIGTERM and SIGINT stop the process once, through `stop` (a drain); a last resort exits if draining itself hangs
 * (the database does not answer) after `forceAfterMs`. So does the end of the `npm start` that started it.
 */
function handleStopSignals(stop: (signal: string) => Promise<boolean>, forceAfterMs: number): void {
  let closing = false;
  exitWithParent(() => void shutdown('parent exited'));
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    const force = setTimeout(() => process.exit(1), forceAfterMs);
    force.unref();
    const clean = await stop(signal);
    process.exit(clean ? 0 : 1);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/**
 * `npm start` (or `npm run worker`) killed with SIGTERM or SIGINT sent to npm alone (an IDE's stop button, a process
 * manager watching npm) ends npm without ending this process, which then kept the embedded database's lock and its
 * port with nobody to stop it. Started by an npm script, the process watches its parent: once npm is gone (the
 * process is handed to init, its parent id changes) it stops as on SIGTERM. Started any other way (node directly,
 * a container's PID 1, systemd, `nohup … &` from a shell that then exits) it does not watch: there the parent going
 * away is not a stop.
 */
function exitWithParent(onExit: () => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  if (parent <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onExit();
  }, 500);
  timer.unref();
}
