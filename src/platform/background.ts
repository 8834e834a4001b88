/**
 * What a module may ask of the background worker: register a job handler, add a periodic task. The port lives on the
 * floor so `deps.ts` and the modules depend on it, not on the worker that implements it (`jobs/worker.ts`).
 */

/** A job as the worker hands it to its handler. */
export interface ClaimedJob {
  id: string;
  name: string;
  payload: Record<string, unknown>;
  attempts: number;
  maxAttempts: number;
}

export type JobHandler = (payload: Record<string, unknown>, ctx: { now: Date; attempt: number; job: ClaimedJob }) => Promise<void>;

/**
 * A periodic task (sweeps, schedulers, delivery loops). `run` takes "now" and must be safe to run twice. `signal` aborts
 * when the worker stops: a task working through a backlog finishes what it holds and takes no more.
 */
export interface BackgroundTask {
  name: string;
  intervalMs: number;
  run(now: Date, ctx: { signal: AbortSignal }): Promise<number>;
}

export interface Background {
  /** This process's worker id (claims and leases carry it). */
  readonly id: string;
  registerJob(name: string, handler: JobHandler): void;
  addTask(task: BackgroundTask): void;
}
