// @slow: starts the built `commerce worker` as its own process and sends it SIGTERM
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedEmbedded } from '../helpers/embedded-dir';

const BIN = join(process.cwd(), 'bin/commerce.js');

/**
 * An operator reading a worker's log on SIGTERM must learn what the worker does (it has no port and no /ready, so a log
 * about a listener sends them looking for one) and that it has stopped.
 */
test('commerce worker on SIGTERM: says it stops taking jobs, nothing about /ready or a listener, then that it stopped', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-worker-stop-'));
  await seedEmbedded(dir);
  const env: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dir, LOG_LEVEL: 'info', LOG_FORMAT: 'json' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, [BIN, 'worker'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    for (let i = 0; i < 1200 && !/"worker started"/.test(out); i++) {
      if (child.exitCode !== null) throw new Error(`exited: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const started = out.length;
    child.kill('SIGTERM');
    assert.equal(await exited, 0, out);
    const lines = out.slice(started).split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; clean?: boolean; reason?: string });
    const msgs = lines.map((l) => l.msg);
    assert.ok(msgs.some((m) => /^worker stopping: no new jobs are claimed/.test(m)), msgs.join('\n'));
    assert.equal(lines.find((l) => l.msg.startsWith('worker stopping'))!.reason, 'SIGTERM');
    for (const m of msgs) assert.doesNotMatch(m, /\/ready|listener/, m);
    const last = lines.at(-1)!;
    assert.equal(last.msg, 'worker stopped', msgs.join('\n'));
    assert.equal(last.clean, true);
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
