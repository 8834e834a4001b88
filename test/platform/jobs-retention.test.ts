import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../helpers/app';
import { DAY } from '../../src/platform/clock';
import { pruneJobsOnce } from '../../src/jobs/retention';
import { deleteFinishedJobsBefore } from '../../src/jobs/repo';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});

let seq = 0;
/** A job row in a given state whose last change was `ageMs` ago (as the queue leaves them: updated_at moves on every change). */
async function job(status: 'pending' | 'running' | 'done' | 'failed', ageMs: number, name = 'test.retention'): Promise<string> {
  const id = `job_ret_${++seq}`;
  const at = new Date(t.clock.now().getTime() - ageMs);
  await t.db
    .insertInto('jobs')
    .values({
      id,
      name,
      payload: JSON.stringify({ seq }),
      status,
      run_at: at,
      attempts: status === 'pending' ? 0 : 1,
      locked_by: status === 'running' ? 'wrk_gone' : null,
      locked_until: status === 'running' ? new Date(at.getTime() + 60_000) : null,
      last_error: status === 'failed' ? 'gave up' : null,
      created_at: at,
      updated_at: at,
    } as any)
    .execute();
  return id;
}
const ids = async (name = 'test.retention') => (await t.db.selectFrom('jobs').select('id').where('name', '=', name).execute()).map((r) => r.id).sort();

test('the jobs.prune task deletes done jobs after 7 days and dead ones after 30; pending and running jobs stay however old', async () => {
  assert.equal(t.deps.config.jobRetentionDoneDays, 7, 'default');
  assert.equal(t.deps.config.jobRetentionDeadDays, 30, 'default');
  const doneOld = await job('done', 7 * DAY + 1);
  const doneYoung = await job('done', 7 * DAY - 1);
  const deadOld = await job('failed', 30 * DAY + 1);
  const deadYoung = await job('failed', 30 * DAY - 1);
  const deadWeek = await job('failed', 8 * DAY);
  const pending = await job('pending', 400 * DAY);
  const running = await job('running', 400 * DAY);

  // Through the worker's registered tasks, as a deployment runs it (the test names have no handler: never claimed).
  await t.deps.worker.runOnce();
  assert.deepEqual(await ids(), [doneYoung, deadYoung, deadWeek, pending, running].sort());

  t.clock.advance(2);
  await t.deps.worker.runOnce();
  assert.deepEqual(await ids(), [deadWeek, pending, running].sort(), 'each goes the moment it passes its limit');
  assert.ok(!(await ids()).includes(doneOld) && !(await ids()).includes(deadOld));
});

test('a backlog of finished jobs goes in bounded batches until none is left; the settings apply', async () => {
  const name = 'test.retention.backlog';
  const keep = await job('pending', 90 * DAY, name);
  const at = new Date(t.clock.now().getTime() - 2 * DAY);
  await sql`insert into jobs (id, name, payload, status, run_at, attempts, created_at, updated_at)
    select 'job_bulk_' || g, ${name}, '{}'::jsonb, 'done', ${at}, 1, ${at}, ${at} from generate_series(1, 1234) as g`.execute(t.db);
  assert.equal((await ids(name)).length, 1235);
  // One statement deletes at most its batch.
  assert.equal(await deleteFinishedJobsBefore(t.db, 'done', t.clock.now(), 10), 10);
  // Under the defaults (7 days) two-day-old done jobs stay; with JOB_RETENTION_DONE_DAYS=1 they all go, in batches.
  assert.equal(await pruneJobsOnce(t.deps, t.clock.now()), 0);
  const n = await pruneJobsOnce({ db: t.db, config: { ...t.deps.config, jobRetentionDoneDays: 1 } }, t.clock.now());
  assert.equal(n, 1224);
  assert.deepEqual(await ids(name), [keep]);
});
