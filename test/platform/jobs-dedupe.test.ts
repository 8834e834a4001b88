import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../helpers/app';
import { enqueueJob } from '../../src/jobs/queue';
import { ManualClock } from '../../src/platform/clock';
import type { Database } from '../../src/db';

let d: Database & { drop(): Promise<void> };
before(async () => {
  d = await createTestDatabase();
});
after(async () => {
  await d.drop();
});

// On PostgreSQL statements are named prepared statements, which the server re-plans generically after a few
// executions; the dedupe conflict target must still find its partial unique index then (it once failed on the
// sixth call with "no unique or exclusion constraint matching the ON CONFLICT specification").
test('a deduplicated job is enqueued once however many times it is asked for, well past the prepared-plan switch', async () => {
  const clock = new ManualClock();
  for (let i = 0; i < 40; i++) {
    await enqueueJob(d.db, clock, { name: 'test.dedupe', payload: { i }, dedupeKey: `same-${i % 2}` });
  }
  const rows = await d.db.selectFrom('jobs').select(['dedupe_key']).where('name', '=', 'test.dedupe').execute();
  assert.deepEqual(rows.map((r) => r.dedupe_key).sort(), ['same-0', 'same-1']);
});
