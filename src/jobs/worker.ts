import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db';
import type { Clock } from '../platform/clock';
import { randomBytes } from 'node:crypto';
import type { Background, BackgroundTask, JobHandler } from '../platform/background';
import { claimJobs, completeJob, failJob, releaseJobs } from './queue';

export type { BackgroundTask, JobHandler } from '../platform/background';

/**
 * Runs background work: jobs from the jobs table and periodic tasks. Inside the server by default, or alone
 * as `commerce worker`. Tests call `runOnce()` instead of waiting for timers.
 */
export class Worker implements Background {
  readonly id = `wrk_${randomBytes(6).toString('hex')}`;
  #handlers = new Map<string, JobHandler>();
  #tasks: BackgroundTask[] = [];
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #stopped = true;
  #lastRun = new Map<string, number>();
  #busy = new Set<string>();
  /** Set by stop(): the job being run finishes, nothing new starts, claimed jobs not yet started are released. */
  #stopping = false;
  #abort = new AbortController();

  constructor(private readonly db: Db, private readonly clock: Clock, private readonly log: FastifyBaseLogger, private readonly pollMs = 1000) {}

  registerJob(name: string, handler: JobHandler): void {
    this.#handlers.set(name, handler);
  }

  addTask(task: BackgroundTask): void {
    this.#tasks.push(task);
  }

  /** Runs every task once (ignoring intervals) and all due jobs, until none is left due. Returns work done. */
  async runOnce(opts: { respectIntervals?: boolean } = {}): Promise<number> {
    let done = 0;
    for (const task of this.#tasks) {
      if (this.#stopping) return done;
      const t = Date.now();
      // A task that found work last time runs again at once: a backlog drains at full speed, an idle task waits its interval.
      if (opts.respectIntervals && !this.#busy.has(task.name) && t - (this.#lastRun.get(task.name) ?? 0) < task.intervalMs) continue;
      this.#lastRun.set(task.name, t);
      try {
        const n = await task.run(this.clock.now(), { signal: this.#abort.signal });
        if (n > 0) this.#busy.add(task.name);
        else this.#busy.delete(task.name);
        done += n;
      } catch (err) {
        this.#busy.delete(task.name);
        this.log.error({ err, task: task.name }, 'background task failed');
      }
    }
    while (!this.#stopping) {
      const jobs = await claimJobs(this.db, this.clock, this.id, [...this.#handlers.keys()], 20);
      if (jobs.length === 0) break;
      for (const [i, job] of jobs.entries()) {
        if (this.#stopping) {
          const rest = jobs.slice(i).map((j) => j.id);
          const released = await releaseJobs(this.db, this.clock, this.id, rest);
          this.log.info({ worker: this.id, released }, 'worker stopping: released the jobs it had claimed but not started');
          return done;
        }
        const handler = this.#handlers.get(job.name)!;
        try {
          await handler(job.payload, { now: this.clock.now(), attempt: job.attempts, job });
          await completeJob(this.db, this.clock, job.id);
        } catch (err) {
          this.log.warn({ err, job: job.name, jobId: job.id, attempt: job.attempts }, 'job failed');
          await failJob(this.db, this.clock, job, err instanceof Error ? err.message : String(err));
        }
        done++;
      }
    }
    return done;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#stopping = false;
    if (this.#abort.signal.aborted) this.#abort = new AbortController();
    const tick = () => {
      if (this.#stopped) return;
      let worked = false;
      this.#running = this.runOnce({ respectIntervals: true })
        .then((n) => {
          worked = n > 0;
        })
        .catch((err) => this.log.error({ err }, 'worker loop failed'))
        .finally(() => {
          this.#running = null;
          if (!this.#stopped) this.#timer = setTimeout(tick, worked ? 0 : this.pollMs);
        });
    };
    this.#timer = setTimeout(tick, 10);
  }

  /**
   * Stops: no new task or job starts; the one running finishes (its result recorded) and jobs claimed with it but not
   * started are released for other workers. Resolves when that is done. Also stops a runOnce() in progress.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopping = true;
    this.#abort.abort();
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#running) await this.#running;
  }
}
