import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';

/**
 * What the soak's database server and disk did each minute, beside the routes' latencies (issue 43: the write
 * routes' p99 rose over the hour while the reads' stayed flat, and the writes' samples waited on WAL flushes).
 *
 * - Wait events: every 200 ms, the backends of the soak's database running a statement, by what they wait on
 *   (`pg_stat_activity`; `CPU` where they wait on nothing). A minute's counts are samples, not time: 300 samples a
 *   minute, so a count of 300 is one backend waiting on that all minute.
 * - WAL (`pg_stat_wal`): records, full-page images, bytes, flushes and, when `track_wal_io_timing` is on, the time the
 *   flushes took (per flush: what a commit waits for at least).
 * - Checkpoints (`pg_stat_bgwriter`): how many, and the buffers they wrote.
 * - The disk (`/proc/diskstats`, every whole disk): writes and flushes completed and the milliseconds they took, so
 *   a minute's mean write and flush latency is the disk's, whoever asked for it (the machine's neighbours included).
 */
export interface PgMinute {
  waits: Record<string, number>;
  walRecords: number;
  walFpi: number;
  walMb: number;
  walSyncs: number;
  /** mean ms per WAL flush, NaN when track_wal_io_timing is off */
  walSyncMs: number;
  checkpoints: number;
  checkpointBuffers: number;
  diskWrites: number;
  diskWriteMs: number;
  diskFlushes: number;
  diskFlushMs: number;
}

interface Counters {
  walRecords: number;
  walFpi: number;
  walBytes: number;
  walSync: number;
  walSyncTime: number;
  checkpoints: number;
  checkpointBuffers: number;
  disk: { writes: number; writeMs: number; flushes: number; flushMs: number };
}

/** The whole disks' counters (vd*, sd*, xvd*, nvme*n*; not partitions): /proc/diskstats, fields after the name. */
export function diskCounters(text = readFileSync('/proc/diskstats', 'utf8')): Counters['disk'] {
  const d = { writes: 0, writeMs: 0, flushes: 0, flushMs: 0 };
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 14 || !/^(?:[vs]d[a-z]+|xvd[a-z]+|nvme\d+n\d+)$/.test(f[2])) continue;
    // Documentation/admin-guide/iostats.rst: field 5 writes completed, 8 ms writing; 16 flushes completed, 17 ms flushing.
    d.writes += Number(f[7]);
    d.writeMs += Number(f[10]);
    if (f.length >= 20) {
      d.flushes += Number(f[18]);
      d.flushMs += Number(f[19]);
    }
  }
  return d;
}

const YARDSTICK_INPUT = Buffer.alloc(8 * 2 ** 20, 7);
/**
 * The machine's speed as one core sees it: the CPU milliseconds SHA-256 takes over the same 8 MiB (about 7 ms here).
 * The same work each minute, so a minute where it costs more is a slower machine (a neighbour on the host, a lower
 * clock), whatever the service did; steal time does not show that kind of slowing (2026-12-04: the same mix on a fresh
 * database answered 1.5–1.9× slower at p50 an hour after the first run began, the machine 70% idle, under 1% stolen).
 */
export function yardstickMs(): number {
  const before = process.cpuUsage();
  createHash('sha256').update(YARDSTICK_INPUT).digest();
  const used = process.cpuUsage(before);
  return +((used.user + used.system) / 1000).toFixed(2);
}

/** A process's CPU time (user + system) in seconds: /proc/<pid>/stat fields 14 and 15, in clock ticks (100 a second). */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the command name (field 2) may hold spaces: count the fields after its closing parenthesis
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** The machine's CPU seconds busy (user, nice, system, irq, softirq), idle (with iowait) and stolen: /proc/stat's cpu line. */
export function machineCpuSeconds(text = readFileSync('/proc/stat', 'utf8')): { busy: number; idle: number; steal: number } {
  const f = text.split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { busy: (f[0] + f[1] + f[2] + f[5] + f[6]) / 100, idle: (f[3] + f[4]) / 100, steal: (f[7] ?? 0) / 100 };
}

/** The RSS of a process's `[heap]` mapping (glibc's main arena) and of its other anonymous mappings, in MB. */
export function mappingsMb(pid: number): { mallocHeap: number; otherAnon: number } {
  let mallocHeap = 0;
  let otherAnon = 0;
  let current: 'heap' | 'anon' | 'file' = 'file';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      current = head[2] === '[heap]' ? 'heap' : head[1] === '0' && (head[2] === '' || head[2].startsWith('[anon')) ? 'anon' : 'file';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss) continue;
    if (current === 'heap') mallocHeap += Number(rss[1]);
    else if (current === 'anon') otherAnon += Number(rss[1]);
  }
  return { mallocHeap: +(mallocHeap / 1024).toFixed(1), otherAnon: +(otherAnon / 1024).toFixed(1) };
}

export class PgWatch {
  private waits: Record<string, number> = {};
  private last!: Counters;
  private timer?: NodeJS.Timeout;
  private busy = false;
  private constructor(
    private readonly client: pg.Client,
    private readonly database: string,
  ) {}

  /** Connects its own client to `url` and starts sampling the backends of `database`. */
  static async start(url: string, database: string): Promise<PgWatch> {
    const client = new pg.Client({ connectionString: url });
    // The soak drops its database with force when a run fails; a sampler's connection ended by that is no news.
    client.on('error', () => undefined);
    await client.connect();
    const w = new PgWatch(client, database);
    w.last = await w.counters();
    w.timer = setInterval(() => void w.sample(), 200);
    return w;
  }

  /** True when the server times WAL writes and flushes (`track_wal_io_timing`). */
  async walTimed(): Promise<boolean> {
    return (await this.client.query<{ track_wal_io_timing: string }>('show track_wal_io_timing')).rows[0]?.track_wal_io_timing === 'on';
  }

  private async sample(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const { rows } = await this.client.query<{ w: string; n: number }>(
        `select coalesce(wait_event_type || ':' || wait_event, 'CPU') as w, count(*)::int as n
           from pg_stat_activity
          where datname = $1 and state = 'active' and backend_type = 'client backend' and pid <> pg_backend_pid()
          group by 1`,
        [this.database],
      );
      for (const r of rows) this.waits[r.w] = (this.waits[r.w] ?? 0) + r.n;
    } catch {
      // a sample lost is a sample lost: the soak's figures do not depend on it
    } finally {
      this.busy = false;
    }
  }

  private async counters(): Promise<Counters> {
    const { rows } = await this.client.query<Record<string, string>>(
      `select w.wal_records::text as wal_records, w.wal_fpi::text as wal_fpi, w.wal_bytes::text as wal_bytes,
              w.wal_sync::text as wal_sync, w.wal_sync_time::text as wal_sync_time,
              (b.checkpoints_timed + b.checkpoints_req)::text as checkpoints, b.buffers_checkpoint::text as checkpoint_buffers
         from pg_stat_wal w, pg_stat_bgwriter b`,
    );
    const r = rows[0];
    return {
      walRecords: Number(r.wal_records),
      walFpi: Number(r.wal_fpi),
      walBytes: Number(r.wal_bytes),
      walSync: Number(r.wal_sync),
      walSyncTime: Number(r.wal_sync_time),
      checkpoints: Number(r.checkpoints),
      checkpointBuffers: Number(r.checkpoint_buffers),
      disk: diskCounters(),
    };
  }

  /** The minute since the previous call (or the start). */
  async minute(timed: boolean): Promise<PgMinute> {
    const now = await this.counters();
    const p = this.last;
    this.last = now;
    const waits = this.waits;
    this.waits = {};
    const syncs = now.walSync - p.walSync;
    return {
      waits,
      walRecords: now.walRecords - p.walRecords,
      walFpi: now.walFpi - p.walFpi,
      walMb: +((now.walBytes - p.walBytes) / 2 ** 20).toFixed(2),
      walSyncs: syncs,
      walSyncMs: timed && syncs > 0 ? +((now.walSyncTime - p.walSyncTime) / syncs).toFixed(3) : NaN,
      checkpoints: now.checkpoints - p.checkpoints,
      checkpointBuffers: now.checkpointBuffers - p.checkpointBuffers,
      diskWrites: now.disk.writes - p.disk.writes,
      diskWriteMs: now.disk.writes > p.disk.writes ? +((now.disk.writeMs - p.disk.writeMs) / (now.disk.writes - p.disk.writes)).toFixed(3) : 0,
      diskFlushes: now.disk.flushes - p.disk.flushes,
      diskFlushMs: now.disk.flushes > p.disk.flushes ? +((now.disk.flushMs - p.disk.flushMs) / (now.disk.flushes - p.disk.flushes)).toFixed(3) : 0,
    };
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    while (this.busy) await new Promise((r) => setTimeout(r, 20));
    await this.client.end();
  }
}

/** "IO:WALSync 120, CPU 80, …": a minute's wait samples, most first. */
export function formatWaits(waits: Record<string, number>, top = 6): string {
  return Object.entries(waits)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([w, n]) => `${w} ${n}`)
    .join(', ');
}
