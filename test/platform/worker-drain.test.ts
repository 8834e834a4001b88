import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { createTestDatabase } from '../helpers/app';
import { enqueueJob } from '../../src/jobs/queue';
import { Worker } from '../../src/jobs/worker';
import { ManualClock } from '../../src/platform/clock';
import type { Database } from '../../src/db';

let d: Database & { drop(): Promise<void> };
before(async () => {
  d = await createTestDatabase();
});
after(async () => {
  await d.drop();
});

const log = pino({ level: 'silent' }) as any;

test('a worker stopped mid-batch finishes the job it runs, releases the ones it claimed, and another worker does them once', async () => {
  const clock = new ManualClock();
  for (let i = 0; i < 6; i++) await enqueueJob(d.db, clock, { name: 'test.drain', payload: { i } });
  const ran: Array<{ worker: string; i: number }> = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let firstStarted!: () => void;
  const started = new Promise<void>((r) => (firstStarted = r));

  const a = new Worker(d.db, clock, log, 5);
  a.registerJob('test.drain', async (payload) => {
    ran.push({ worker: 'a', i: payload.i as number });
    if (ran.length === 1) {
      firstStarted();
      await gate; // the job in progress when SIGTERM arrives
    }
  });
  a.start();
  await started;
  const claimed = await d.db.selectFrom('jobs').select(['status', 'locked_by']).where('name', '=', 'test.drain').execute();
  assert.equal(claimed.filter((j) => j.status === 'running' && j.locked_by === a.id).length, 6, 'worker a leased the whole batch');

  let stopped = false;
  const stopping = a.stop().then(() => (stopped = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(stopped, false, 'stop waits for the running job');
  release();
  await stopping;
  assert.equal(ran.length, 1, 'no job started after stop');

  const rows = await d.db.selectFrom('jobs').select(['id', 'status', 'locked_by', 'locked_until', 'attempts', 'payload']).where('name', '=', 'test.drain').execute();
  const done = rows.filter((r) => r.status === 'done');
  assert.equal(done.length, 1, 'the running job finished and was recorded');
  const rest = rows.filter((r) => r.status !== 'done');
  assert.equal(rest.length, 5);
  for (const r of rest) {
    assert.equal(r.status, 'pending', 'released, not left running until its lease runs out');
    assert.equal(r.locked_by, null);
    assert.equal(r.locked_until, null);
    assert.equal(r.attempts, 0, 'the claim that never ran is not counted as an attempt');
  }

  // Another worker takes them at once (same clock: no lease has to expire), each exactly once.
  const b = new Worker(d.db, clock, log);
  b.registerJob('test.drain', async (payload) => {
    ran.push({ worker: 'b', i: payload.i as number });
  });
  assert.equal(await b.runOnce(), 5);
  assert.deepEqual(ran.map((r) => r.i).sort(), [0, 1, 2, 3, 4, 5], 'every job ran, none twice');
  const left = await d.db.selectFrom('jobs').select(['status']).where('name', '=', 'test.drain').where('status', '!=', 'done').execute();
  assert.equal(left.length, 0);
});
