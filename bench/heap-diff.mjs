#!/usr/bin/env node
// `node bench/heap-diff.mjs before.heapsnapshot after.heapsnapshot [top]`: what grew between two V8 heap snapshots
// (the soak takes them with BENCH_HEAP_SNAPSHOTS, see bench/lib.ts). Counts nodes and their self size per constructor
// (objects by constructor name; strings, arrays, closures and code by their node type), and prints the `top` (default
// 30) that grew most in bytes, with the count change beside it. A structure that keeps entries per request shows as
// a constructor whose count grows with the run; open the later snapshot in Chrome DevTools (Memory, Comparison) for
// its retainers.
import { readFileSync } from 'node:fs';

function summarise(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const { node_fields: fields, node_types: types } = snap.snapshot.meta;
  const typeNames = types[0];
  const width = fields.length;
  const iType = fields.indexOf('type');
  const iName = fields.indexOf('name');
  const iSize = fields.indexOf('self_size');
  const { nodes, strings } = snap;
  const by = new Map();
  for (let i = 0; i < nodes.length; i += width) {
    const type = typeNames[nodes[i + iType]];
    // Objects and closures by their name; everything else (strings, arrays, code, hidden) by its type.
    const key = type === 'object' || type === 'closure' ? `${type}:${strings[nodes[i + iName]]}` : `(${type})`;
    const e = by.get(key) ?? { count: 0, size: 0 };
    e.count++;
    e.size += nodes[i + iSize];
    by.set(key, e);
  }
  return { by, total: [...by.values()].reduce((s, e) => s + e.size, 0) };
}

const [a, b, topArg] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: node bench/heap-diff.mjs before.heapsnapshot after.heapsnapshot [top]');
  process.exit(2);
}
const before = summarise(a);
const after = summarise(b);
const rows = [];
for (const key of new Set([...before.by.keys(), ...after.by.keys()])) {
  const x = before.by.get(key) ?? { count: 0, size: 0 };
  const y = after.by.get(key) ?? { count: 0, size: 0 };
  rows.push({ key, dCount: y.count - x.count, dSize: y.size - x.size, count: y.count, size: y.size });
}
rows.sort((p, q) => q.dSize - p.dSize);
const mb = (n) => (n / 2 ** 20).toFixed(2);
console.log(`heap: ${mb(before.total)} MB -> ${mb(after.total)} MB (${mb(after.total - before.total)} MB)`);
console.log(`${'Δ bytes'.padStart(12)} ${'Δ count'.padStart(9)} ${'count'.padStart(9)}  constructor`);
for (const r of rows.slice(0, Number(topArg ?? 30))) console.log(`${String(r.dSize).padStart(12)} ${String(r.dCount).padStart(9)} ${String(r.count).padStart(9)}  ${r.key}`);
