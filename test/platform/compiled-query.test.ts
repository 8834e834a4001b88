import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../helpers/app';
import { compiledQuery } from '../../src/db/compiled';
import type { Database } from '../../src/db';

let d: Database & { drop(): Promise<void> };
before(async () => {
  d = await createTestDatabase();
  await d.db.insertInto('stores').values([
    { id: 'st_a', name: 'A', owner_token_hash: null, public_contact_verified: false, created_at: new Date('2026-01-01T00:00:00Z'), updated_at: new Date('2026-01-01T00:00:00Z') },
    { id: 'st_b', name: 'B', owner_token_hash: null, public_contact_verified: true, created_at: new Date('2026-02-01T00:00:00Z'), updated_at: new Date('2026-02-01T00:00:00Z') },
  ] as any).execute();
});
after(async () => {
  await d.drop();
});

test('a compiled query is built once and binds each call its own arguments, constants kept', async () => {
  let builds = 0;
  const q = compiledQuery((db, id: string, since: Date) => {
    builds++;
    return db.selectFrom('stores').select(['id', 'name']).where('id', '=', id).where('created_at', '>=', since).where('name', '!=', 'never');
  });
  assert.deepEqual(await q(d.db, 'st_a', new Date('2025-01-01T00:00:00Z')), [{ id: 'st_a', name: 'A' }]);
  assert.deepEqual(await q(d.db, 'st_b', new Date('2025-01-01T00:00:00Z')), [{ id: 'st_b', name: 'B' }]);
  assert.deepEqual(await q(d.db, 'st_a', new Date('2026-01-15T00:00:00Z')), []);
  await d.db.transaction().execute(async (trx) => {
    assert.deepEqual(await q(trx, 'st_b', new Date('2026-01-15T00:00:00Z')), [{ id: 'st_b', name: 'B' }]);
  });
  assert.equal(builds, 1);
});

test('a builder that transforms an argument is refused instead of binding the wrong value', async () => {
  const q = compiledQuery((db, id: string) => db.selectFrom('stores').select('id').where('id', '=', id.toUpperCase()));
  await assert.rejects(() => q(d.db, 'st_a'), /every argument must be bound/);
});
