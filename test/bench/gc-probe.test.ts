import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { join } from 'node:path';
import { once } from 'node:events';

// bench/gc-probe.mjs (the soak's --after-gc): a full collection in another process through its inspector, and what
// that process holds after it. The soak judges its memory slopes on these figures, so they must be what is kept, not
// garbage waiting for a collection.

const PROBE = join(import.meta.dirname, '..', '..', 'bench', 'gc-probe.mjs');

function probe(port: number): Promise<{ rss: number; heapUsed: number; spacesKb: Record<string, number> }> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['--experimental-websocket', PROBE, String(port)], { timeout: 30_000 }, (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout)))),
  );
}

test('after the probe, a process holds what it keeps (about 40 MB here), not the 120 MB of garbage it made before', async (t) => {
  const port = 30000 + Math.floor(Math.random() * 20000);
  // Keeps 40 MB of arrays, then makes 120 MB more that nothing keeps (with a heap large enough that V8 need not
  // collect them yet), then reports its heap as it stands.
  const code = `
    const mb = () => new Array(131072).fill(0.5); // 1 MB of doubles in the V8 heap
    globalThis.kept = Array.from({ length: 40 }, mb);
    let junk = []; for (let i = 0; i < 120; i++) junk.push(mb()); junk = null;
    console.log(JSON.stringify({ heapUsed: process.memoryUsage().heapUsed / 2 ** 20 }));
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, [`--inspect=127.0.0.1:${port}`, '--max-old-space-size=1024', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => child.kill());
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const before = JSON.parse(String(line)).heapUsed as number;
  assert.ok(before > 120, `the garbage is still in the heap before the probe (${before.toFixed(1)} MB)`);
  const after = await probe(port);
  assert.ok(after.heapUsed >= 40 && after.heapUsed < 70, `after a full collection the heap holds what is kept: ${after.heapUsed} MB`);
  assert.ok(after.rss > after.heapUsed, 'RSS is read in the same moment');
  assert.ok(after.spacesKb.old_space > 0 || after.spacesKb.large_object_space > 0, 'the used size of each space is given');
});

test('a port with no inspector is an error, not figures', async () => {
  await assert.rejects(probe(1));
});
