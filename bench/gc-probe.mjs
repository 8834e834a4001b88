#!/usr/bin/env node
// `node --experimental-websocket bench/gc-probe.mjs <inspector port> [snapshot file]`: asks a Node process started with
// `--inspect=127.0.0.1:<port>` (or sent SIGUSR1, which opens port 9229) for a full garbage collection through the
// inspector (HeapProfiler.collectGarbage), then prints one JSON line with what it holds after it: rss, heapUsed,
// heapTotal, external (MB) and the used size of each V8 space (KB); with a file, a heap snapshot is written there too.
//
// Why: V8 lets the old space grow to about twice what is live before a full collection, so a server's RSS and heap
// sampled at random moments rise for tens of minutes with no leak at all (a soak, issue 43: RSS 173.6 MB at minute
// 26, 135 MB right after one forced collection). Memory kept after a full collection is the figure a leak moves.
// The soak uses this with --after-gc. Plain JavaScript: Node 20 needs --experimental-websocket for the client.
import { writeFileSync } from 'node:fs';

export async function probe(port, snapshotFile) {
  const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const ws = new WebSocket(list[0].webSocketDebuggerUrl);
  let id = 0;
  const pending = new Map();
  const chunks = [];
  ws.onmessage = (e) => {
    const m = JSON.parse(String(e.data));
    if (m.id && pending.has(m.id)) {
      pending.get(m.id)(m);
      pending.delete(m.id);
    } else if (m.method === 'HeapProfiler.addHeapSnapshotChunk') chunks.push(m.params.chunk);
  };
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`inspector on port ${port} did not answer`));
  });
  const call = (method, params = {}) =>
    new Promise((resolve) => {
      const i = ++id;
      pending.set(i, resolve);
      ws.send(JSON.stringify({ id: i, method, params }));
    });
  try {
    await call('HeapProfiler.enable');
    await call('HeapProfiler.collectGarbage');
    const expression =
      'JSON.stringify({ m: process.memoryUsage(), s: require("node:v8").getHeapSpaceStatistics().map((x) => [x.space_name, Math.round(x.space_used_size / 1024)]) })';
    const r = await call('Runtime.evaluate', { expression, includeCommandLineAPI: true, returnByValue: true });
    const value = r.result?.result?.value;
    if (typeof value !== 'string') throw new Error(`inspector answered ${JSON.stringify(r).slice(0, 300)}`);
    const { m, s } = JSON.parse(value);
    const mb = (b) => Math.round((b / 2 ** 20) * 10) / 10;
    const out = { rss: mb(m.rss), heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), external: mb(m.external), spacesKb: Object.fromEntries(s) };
    if (snapshotFile) {
      await call('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      writeFileSync(snapshotFile, chunks.join(''), { mode: 0o600 });
    }
    return out;
  } finally {
    ws.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [port, file] = process.argv.slice(2);
  if (!port) {
    console.error('usage: node --experimental-websocket bench/gc-probe.mjs <inspector port> [snapshot file]');
    process.exit(2);
  }
  console.log(JSON.stringify({ at: new Date().toISOString(), ...(await probe(port, file)) }));
}
