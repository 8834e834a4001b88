import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPGlite, EMBEDDED_PG_MAJOR } from '../../src/db';
import { seedEmbedded } from '../helpers/embedded-dir';

test('a data directory written by the earlier embedded database (PostgreSQL 17, PGlite 0.3) is refused with a clear message and left untouched', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-pg17-'));
  const dir = join(dataDir, 'pglite');
  mkdirSync(join(dir, 'base'), { recursive: true });
  // What PGlite 0.3.x leaves: PG_VERSION says 17.
  writeFileSync(join(dir, 'PG_VERSION'), '17\n');
  writeFileSync(join(dir, 'base', 'marker'), 'data');
  const before = readdirSync(dir).sort();
  for (let i = 0; i < 2; i++) {
    // Twice: the refusal releases the data-directory lock, so the second attempt gets the same clear answer.
    await assert.rejects(
      () => openPGlite(dataDir),
      (e: Error) => /PostgreSQL 17/.test(e.message) && e.message.includes(`PostgreSQL ${EMBEDDED_PG_MAJOR}`) && e.message.includes('mv ') && e.message.includes('DATABASE_URL'),
    );
  }
  assert.deepEqual(readdirSync(dir).sort(), before);
  assert.ok(existsSync(join(dir, 'base', 'marker')));
});

test('a directory of the current version opens, keeps its data and reopens', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-pg18-'));
  await seedEmbedded(dataDir);
  const a = await openPGlite(dataDir);
  await a.db.insertInto('stores').values({ id: 'st_keep', name: 'K', owner_token_hash: null, public_contact_verified: false, created_at: new Date(), updated_at: new Date() } as any).execute();
  await a.close();
  const b = await openPGlite(dataDir);
  const row = await b.db.selectFrom('stores').select('id').where('id', '=', 'st_keep').executeTakeFirst();
  await b.close();
  assert.equal(row?.id, 'st_keep');
});
