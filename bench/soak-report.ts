// The soak's arithmetic and its plot, apart from the run so a test can hold them to what the judgement promises
// (test/bench/soak-report.test.ts). See bench/soak.ts.

/**
 * One sample every 5 s. `loopMs`: prom-client's nodejs_eventloop_lag_seconds, the delay of a setImmediate at that scrape
 * (its p99 gauge reads empty in this server: the histogram is reset by each collection), so a minute's figure is the
 * worst of its 12 probes.
 */
export interface Sample {
  t: number;
  serverRss: number;
  workerRss: number;
  heapMb: number;
  loopMs: number;
}

/**
 * p99 flat: the worst minute of the last third of the post-warm-up minutes against the worst of the first third (the
 * late one may be at most 1.5× the early one + 5 ms). Null when fewer than 2 minutes follow the warm-up.
 */
export function p99Flat(perMinute: number[], warmup: number): { early: number; late: number; flat: boolean } | null {
  const post = perMinute.slice(warmup).filter((x) => Number.isFinite(x));
  if (post.length < 2) return null;
  const third = Math.max(1, Math.floor(post.length / 3));
  const early = Math.max(...post.slice(0, third));
  const late = Math.max(...post.slice(-third));
  return { early, late, flat: late <= early * 1.5 + 5 };
}

/** Minutes with fewer requests than this have no p99 of their own: their "p99" is their slowest request or two. */
export const P99_MIN_REQUESTS = 100;

/**
 * p99 flat on the thirds' pooled requests: every request of the first third of the post-warm-up minutes, and every one
 * of the last third, each pool's p99 against the other's (the same limit as p99Flat: late ≤ 1.5 × early + 5 ms). A
 * route asked 47 times a minute has about 750 requests in a third of an hour, whose p99 is a real percentile, where one
 * minute's is its slowest request. `perMinute[m]` holds minute m+1's latencies (any order); null when fewer than 2
 * minutes follow the warm-up or a third holds fewer than P99_MIN_REQUESTS requests.
 */
export function p99FlatPooled(perMinute: Array<number[] | undefined>, warmup: number): { early: number; late: number; earlyN: number; lateN: number; flat: boolean } | null {
  const post = perMinute.slice(warmup).map((l) => l ?? []);
  if (post.length < 2) return null;
  const third = Math.max(1, Math.floor(post.length / 3));
  const pool = (minutes: number[][]) => minutes.flat().sort((a, b) => a - b);
  const e = pool(post.slice(0, third));
  const l = pool(post.slice(-third));
  if (e.length < P99_MIN_REQUESTS || l.length < P99_MIN_REQUESTS) return null;
  const p99 = (xs: number[]) => xs[Math.min(xs.length - 1, Math.ceil(xs.length * 0.99) - 1)];
  const early = p99(e);
  const late = p99(l);
  return { early, late, earlyN: e.length, lateN: l.length, flat: late <= early * 1.5 + 5 };
}

/**
 * The median of the first and of the last third of the post-warm-up minutes: a trend one stalled minute cannot make
 * (p99Flat's worst minutes can), printed beside the judgement for the routes' p99 and the database's and disk's
 * figures. Null when fewer than 2 minutes follow the warm-up.
 */
export function thirdsMedian(perMinute: number[], warmup: number): { early: number; late: number } | null {
  const post = perMinute.slice(warmup).filter((x) => Number.isFinite(x));
  if (post.length < 2) return null;
  const third = Math.max(1, Math.floor(post.length / 3));
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  return { early: median(post.slice(0, third)), late: median(post.slice(-third)) };
}

/**
 * Whether a request that ran from `start` to `end` shared any moment with one of `spans` (the harness's full-collection
 * probes) or with the one under way since `since` (null: none is).
 */
export function overlapsAny(spans: Array<[number, number]>, since: number | null, start: number, end: number): boolean {
  if (since !== null && since < end) return true;
  return spans.some(([a, b]) => a < end && b > start);
}

/** Least-squares slope of (minute, MB) points, in MB per 10 minutes. */
export function slopePer10Min(points: Array<[number, number]>): number {
  const p = points.filter(([, y]) => Number.isFinite(y));
  if (p.length < 2) return NaN;
  const mx = p.reduce((s, [x]) => s + x, 0) / p.length;
  const my = p.reduce((s, [, y]) => s + y, 0) / p.length;
  const sxx = p.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const sxy = p.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  return sxx > 0 ? (sxy / sxx) * 10 : NaN;
}

/** Two panels by hand: memory (server RSS, worker RSS, server heap) every 5 s, and each route's p99 per minute. */
export function plot(s: Sample[], p99: Map<string, number[]>, run: { minutes: number; warmup: number }): string {
  const MINUTES = run.minutes;
  const WARMUP = run.warmup;
  const W = 960;
  const H = 300;
  const L = 60;
  const R = 250;
  const T = 30;
  const B = 40;
  const colors = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
  const esc = (x: string) => x.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const maxT = Math.max(1, ...s.map((x) => x.t), MINUTES);
  // `log`: a base-10 scale from 1 (latencies span 1 ms to seconds on a loaded machine; a linear scale flattens the rest).
  function panel(y0: number, title: string, unit: string, series: Array<{ name: string; pts: Array<[number, number]> }>, log = false): string {
    const ys = series.flatMap((x) => x.pts.map(([, y]) => y)).filter(Number.isFinite);
    const maxY = log ? 10 ** Math.ceil(Math.log10(Math.max(10, ...ys))) : Math.max(1, ...ys) * 1.1;
    const px = (t: number) => L + ((W - L - R) * t) / maxT;
    const frac = (v: number) => (log ? Math.log10(Math.max(1, v)) / Math.log10(maxY) : v / maxY);
    const py = (v: number) => y0 + T + (H - T - B) * (1 - frac(v));
    let out = `<text x="${L}" y="${y0 + 18}" font-size="14" font-weight="bold">${esc(title)}</text>`;
    out += `<line x1="${L}" y1="${py(0)}" x2="${W - R}" y2="${py(0)}" stroke="#333"/><line x1="${L}" y1="${y0 + T}" x2="${L}" y2="${py(0)}" stroke="#333"/>`;
    const ticks = log ? Array.from({ length: Math.round(Math.log10(maxY)) + 1 }, (_, i) => 10 ** i) : [0, 1, 2, 3, 4].map((i) => (maxY * i) / 4);
    for (const v of ticks) {
      out += `<line x1="${L}" y1="${py(v)}" x2="${W - R}" y2="${py(v)}" stroke="#ddd"/><text x="${L - 6}" y="${py(v) + 4}" font-size="11" text-anchor="end">${log && v >= 1000 ? `${v / 1000} s` : v.toFixed(v < 10 && !log ? 1 : 0)}</text>`;
    }
    const step = maxT <= 10 ? 1 : maxT <= 60 ? 10 : 30;
    for (let m = 0; m <= maxT; m += step) out += `<text x="${px(m)}" y="${py(0) + 16}" font-size="11" text-anchor="middle">${m}</text>`;
    out += `<text x="${(L + W - R) / 2}" y="${py(0) + 32}" font-size="11" text-anchor="middle">minutes</text><text x="12" y="${y0 + T + 10}" font-size="11">${esc(unit)}</text>`;
    if (WARMUP > 0) out += `<line x1="${px(WARMUP)}" y1="${y0 + T}" x2="${px(WARMUP)}" y2="${py(0)}" stroke="#999" stroke-dasharray="4 3"/><text x="${px(WARMUP) + 3}" y="${y0 + T + 10}" font-size="10" fill="#666">warm-up ends</text>`;
    series.forEach((x, i) => {
      const pts = x.pts.filter(([, y]) => Number.isFinite(y));
      const c = colors[i % colors.length];
      if (pts.length) out += `<polyline fill="none" stroke="${c}" stroke-width="1.5" points="${pts.map(([t, v]) => `${px(t).toFixed(1)},${py(v).toFixed(1)}`).join(' ')}"/>`;
      out += `<rect x="${W - R + 12}" y="${y0 + T + i * 16}" width="10" height="10" fill="${c}"/><text x="${W - R + 26}" y="${y0 + T + i * 16 + 9}" font-size="11">${esc(x.name)}</text>`;
    });
    return out;
  }
  const mem = panel(0, 'Memory', 'MB', [
    { name: 'server RSS', pts: s.map((x) => [x.t, x.serverRss]) },
    { name: 'worker RSS', pts: s.map((x) => [x.t, x.workerRss]) },
    { name: 'server heap used', pts: s.map((x) => [x.t, x.heapMb]) },
  ]);
  const lat = panel(
    H,
    'p99 per route, per minute (log scale)',
    'ms',
    [...p99.entries()].sort().map(([name, v]) => ({ name: name.replace(/^(GET|POST) /, '').replace('/test-clock/advance', '/test-clock'), pts: v.map((y, i) => [i + 1, y] as [number, number]) })),
    true,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${2 * H}" viewBox="0 0 ${W} ${2 * H}" font-family="sans-serif"><rect width="100%" height="100%" fill="#fff"/>${mem}${lat}</svg>\n`;
}

