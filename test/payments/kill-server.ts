import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config';
import { createRuntime } from '../../src/runtime';
import { ManualClock } from '../../src/platform/clock';

/**
 * One server process for the kill tests (toss-kill.test.ts, portone-kill.test.ts, through kill-harness.ts), started as a
 * child of the test process with an IPC channel: the app as `commerce start` assembles it (createRuntime: configuration
 * from the environment, migrations, every module, route and background task), listening on a free port. Two differences, both about time:
 * - the clock is a ManualClock starting at KILL_TEST_CLOCK, moved by the test (`{ cmd: 'advance', ms }`), so a
 *   restart can happen "ten minutes later" without waiting ten minutes;
 * - background work (sweeps, reconciliation jobs, the billing run) runs when the test asks (`{ cmd: 'run' }`: one
 *   `worker.runOnce()`, the same pass the worker loop makes on its timer) instead of on timers, so the test knows when
 *   it has happened.
 * It answers `{ type: 'ready', port }` once listening and `{ id, result }` / `{ id, error }` to each command.
 */

const send = (m: unknown) => process.send?.(m);

const clock = new ManualClock(process.env.KILL_TEST_CLOCK ?? new Date());
const config = loadConfig(process.env);
const rt = await createRuntime(config, { clock });
await rt.app.listen({ host: '127.0.0.1', port: 0 });

process.on('message', async (m: { id: number; cmd: 'advance' | 'run'; ms?: number }) => {
  try {
    if (m.cmd === 'advance') {
      clock.advance(m.ms ?? 0);
      send({ id: m.id, result: clock.now().toISOString() });
    } else if (m.cmd === 'run') {
      send({ id: m.id, result: await rt.deps.worker.runOnce() });
    } else {
      send({ id: m.id, error: `unknown command ${String((m as { cmd: unknown }).cmd)}` });
    }
  } catch (err) {
    send({ id: m.id, error: err instanceof Error ? err.stack ?? err.message : String(err) });
  }
});

const shutdown = async () => {
  await rt.close().catch(() => {});
  process.exit(0);
};
process.on('SIGTERM', shutdown);
// The test process went away (it failed or was interrupted): do not outlive it.
process.on('disconnect', shutdown);

send({ type: 'ready', port: (rt.app.server.address() as AddressInfo).port });
