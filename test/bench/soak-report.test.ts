import { test } from 'node:test';
import assert from 'node:assert/strict';
import { overlapsAny, p99Flat, p99FlatPooled, plot, slopePer10Min, thirdsMedian, type Sample } from '../../bench/soak-report';
import { diskCounters, machineCpuSeconds } from '../../bench/pg-watch';

/**
 * The soak's judgement (bench/soak.ts) stands on this arithmetic: a leak of 1 MB per 10 minutes must be read as such
 * under a garbage collector's sawtooth, a flat series must not be, and a p99 that climbs must fail the flatness check.
 */
test('slopePer10Min reads a steady leak through a sawtooth and a flat series as flat', () => {
  // 60 minutes, a sample every 5 s: 150 MB + a 10 MB GC sawtooth with a 1-minute period.
  const points = (leakPer10Min: number): Array<[number, number]> =>
    Array.from({ length: 720 }, (_, i) => {
      const t = i / 12;
      return [t, 150 + ((i % 12) / 12) * 10 + (leakPer10Min * t) / 10];
    });
  assert.ok(Math.abs(slopePer10Min(points(0))) < 0.05, `flat: ${slopePer10Min(points(0))}`);
  assert.ok(Math.abs(slopePer10Min(points(1.5)) - 1.5) < 0.05, `leak: ${slopePer10Min(points(1.5))}`);
  // A leak of 1.5 MB per 10 min fails the < 1 judgement; a flat run passes it.
  assert.ok(!(slopePer10Min(points(1.5)) < 1));
  assert.ok(slopePer10Min(points(0)) < 1);
  // Gaps in the samples (a scrape that failed) are left out, not read as zero.
  assert.ok(Math.abs(slopePer10Min([[0, 100], [1, Number.NaN], [2, 100]])) < 1e-9);
  assert.ok(Number.isNaN(slopePer10Min([[0, 100]])));
});

test('p99Flat fails a climbing p99, passes a noisy flat one, and does not judge a run without minutes after warm-up', () => {
  assert.deepEqual(p99Flat([50, 10, 11, 12, 10, 11, 12], 1), { early: 11, late: 12, flat: true });
  const climbing = p99Flat([10, 10, 11, 12, 20, 30, 40], 1)!;
  assert.equal(climbing.flat, false);
  assert.equal(climbing.late, 40);
  // Warm-up minutes are not judged: a slow first minute alone does not fail a run.
  assert.equal(p99Flat([900, 10, 10, 10], 1)!.flat, true);
  assert.equal(p99Flat([900, 10], 1), null);
});

test('plot draws one line per series with the warm-up marked and route names escaped', () => {
  const samples: Sample[] = Array.from({ length: 24 }, (_, i) => ({ t: i / 12, serverRss: 150 + i, workerRss: 120, heapMb: 60, loopMs: 1 }));
  const svg = plot(samples, new Map([['GET /v1/orders?<x>', [5, 6]], ['POST /pay/:id', [30, 31]]]), { minutes: 2, warmup: 1 });
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.equal((svg.match(/<polyline /g) ?? []).length, 5, 'three memory lines and two routes');
  assert.match(svg, /warm-up ends/);
  assert.ok(!svg.includes('<x>'), 'a route name cannot inject markup');
  assert.match(svg, /\/v1\/orders\?&lt;x>/);
  // The server RSS line runs from 150 at minute 0 upward: its last point is higher (smaller y) than its first.
  const rss = /<polyline fill="none" stroke="#1f77b4"[^>]*points="([^"]+)"/.exec(svg)![1].split(' ').map((p) => p.split(',').map(Number));
  assert.equal(rss.length, 24);
  assert.ok(rss[23][1] < rss[0][1]);
});

test('thirdsMedian: one stalled minute moves neither third, a tail that climbs moves the last', () => {
  // warm-up minute left out; thirds of 6 minutes are 2 minutes each
  assert.deepEqual(thirdsMedian([99, 10, 12, 11, 500, 10, 12], 1), { early: 11, late: 11 });
  assert.deepEqual(thirdsMedian([99, 10, 12, 20, 25, 30, 34], 1), { early: 11, late: 32 });
  assert.equal(thirdsMedian([10, 11], 1), null);
});

test("diskCounters reads whole disks' writes and flushes from /proc/diskstats, not partitions or loops", () => {
  // Documentation/admin-guide/iostats.rst: after major, minor and name, field 5 writes completed, 8 ms writing,
  // 16 flushes completed, 17 ms flushing.
  const text = [
    '   7       0 loop0 5 0 0 0 9 0 0 9 0 0 0 0 0 0 0 9 9',
    ' 254       0 vda 41402 8157 1746722 10881 42151 60067 5105312 68828 0 14872 86007 11763 128 830152 1955 7644 4341',
    ' 254       1 vda1 41000 8000 1700000 10000 42000 60000 5100000 68000 0 14000 86000 11000 100 800000 1900 0 0',
    ' 259       0 nvme0n1 1 0 0 0 10 0 0 20 0 0 0 0 0 0 0 2 6',
  ].join('\n');
  assert.deepEqual(diskCounters(text), { writes: 42161, writeMs: 68848, flushes: 7646, flushMs: 4347 });
});

test("overlapsAny: a request that shared a moment with a probe (ended, or still under way) is the harness's, one before or after it is not", () => {
  const spans: Array<[number, number]> = [[1000, 1200]];
  assert.equal(overlapsAny(spans, null, 900, 1001), true, 'ends inside');
  assert.equal(overlapsAny(spans, null, 1199, 1300), true, 'starts inside');
  assert.equal(overlapsAny(spans, null, 900, 1300), true, 'spans it');
  assert.equal(overlapsAny(spans, null, 800, 1000), false, 'ends as it starts');
  assert.equal(overlapsAny(spans, null, 1200, 1250), false, 'starts as it ends');
  assert.equal(overlapsAny(spans, 2000, 1900, 2100), true, 'a probe under way since 2000');
  assert.equal(overlapsAny(spans, 2000, 1900, 1950), false, 'over before the probe began');
});

test("machineCpuSeconds reads /proc/stat's first line: busy is user, nice, system, irq and softirq; idle takes iowait; steal apart", () => {
  // proc(5): cpu user nice system idle iowait irq softirq steal guest guest_nice, in 1/100 s
  assert.deepEqual(machineCpuSeconds('cpu  1000 100 200 5000 300 10 40 70 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n'), { busy: 13.5, idle: 53, steal: 0.7 });
});

test('p99FlatPooled: one slow request in a thin route passes, a tail that grows in every late minute fails, too few requests are not judged', () => {
  // 50 requests a minute, 3 minutes of warm-up then 12: 200 requests in each third.
  const minute = (base: number, slow?: number) => Array.from({ length: 50 }, (_, i) => (i === 0 && slow ? slow : base + (i % 10)));
  const steady = [minute(90), minute(90), minute(90), ...Array.from({ length: 12 }, () => minute(5))];
  const oneSlow = [...steady.slice(0, 14), minute(5, 40)];
  // Its worst minute would fail (14 early → 40 late, over 1.5 × 14 + 5) …
  assert.equal(p99Flat(oneSlow.map((l) => Math.max(...l)), 3)!.flat, false);
  // … its third's p99 is not that one request.
  const pooled = p99FlatPooled(oneSlow, 3)!;
  assert.deepEqual([pooled.early, pooled.late, pooled.earlyN, pooled.lateN, pooled.flat], [14, 14, 200, 200, true]);
  // Every late minute's tail three times as slow: the pooled p99 moves and fails.
  const grows = [...steady.slice(0, 11), ...Array.from({ length: 4 }, () => [...minute(5).slice(0, 45), 60, 61, 62, 63, 64])];
  const g = p99FlatPooled(grows, 3)!;
  assert.equal(g.flat, false, JSON.stringify(g));
  assert.ok(g.late >= 60);
  // The warm-up is left out (its 90 ms requests are in neither third).
  assert.equal(p99FlatPooled(steady, 3)!.early, 14);
  // Fewer than 100 requests in a third, or fewer than 2 minutes after the warm-up: not judged.
  assert.equal(p99FlatPooled([minute(5), ...Array.from({ length: 6 }, () => minute(5).slice(0, 10))], 1), null);
  assert.equal(p99FlatPooled([minute(5), minute(5)], 1), null);
});
