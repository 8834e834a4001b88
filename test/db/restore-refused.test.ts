import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { openPGlite } from '../../src/db';
import { backupEmbedded, restoreEmbedded } from '../../src/db/backup';
import { verifyMasterKey } from '../../src/db/master-key-check';
import { seedEmbedded } from '../helpers/embedded-dir';

// A refused `commerce restore` says "Nothing was changed": the data directory must then be exactly as it was found.
// Before, a refusal into an empty data directory left the backup's unpacked pglite/ behind (42 MB), which the next
// start would have opened as if the restore had gone through.

const roots: string[] = [];
after(() => { for (const r of roots) rmSync(r, { recursive: true, force: true }); });
function tempRoot(): string {
  const r = mkdtempSync(join(tmpdir(), 'restore-refused-'));
  roots.push(r);
  return r;
}

/** Every entry under `dir` (relative path, kind, mode, and a hash of each file's bytes): what "as it was" means. */
function snapshot(dir: string): string[] {
  if (!existsSync(dir)) return ['<absent>'];
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      const r = `${rel}${name}`;
      if (st.isDirectory()) {
        out.push(`${r}/ ${(st.mode & 0o777).toString(8)}`);
        walk(p, `${r}/`);
      } else out.push(`${r} ${(st.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(p)).digest('hex').slice(0, 16)}`);
    }
  };
  walk(dir, '');
  return out;
}

async function makeBackup(root: string, masterKey: Buffer): Promise<Buffer> {
  const source = join(root, 'source');
  await seedEmbedded(source);
  const database = await openPGlite(source);
  try {
    await verifyMasterKey(database.db, masterKey);
  } finally {
    await database.close();
  }
  return (await backupEmbedded(source)).bytes;
}

test('a refused restore leaves the data directory as it found it: absent, empty, holding only master.key, with an empty pglite/, or with a database', async () => {
  const root = tempRoot();
  const masterKey = randomBytes(32);
  const bytes = await makeBackup(root, masterKey);
  const wrongKey = randomBytes(32);

  // The data directory does not exist yet: it is not left behind.
  const absent = join(root, 'absent');
  await assert.rejects(restoreEmbedded(absent, bytes, wrongKey), /restore refused: the master key at hand .* Nothing was changed/);
  assert.equal(existsSync(absent), false, 'no data directory made by the refused restore is left');

  // An empty one, one holding only the master key file, one with an empty pglite/.
  const empty = join(root, 'empty');
  mkdirSync(empty, { mode: 0o700 });
  const keyOnly = join(root, 'key-only');
  mkdirSync(keyOnly, { mode: 0o700 });
  writeFileSync(join(keyOnly, 'master.key'), wrongKey.toString('hex'), { mode: 0o600 });
  const emptyPglite = join(root, 'empty-pglite');
  mkdirSync(join(emptyPglite, 'pglite'), { recursive: true, mode: 0o700 });
  for (const dir of [empty, keyOnly, emptyPglite]) {
    const before = snapshot(dir);
    await assert.rejects(restoreEmbedded(dir, bytes, wrongKey), /Nothing was changed/);
    assert.deepEqual(snapshot(dir), before, dir);
  }

  // A directory with a database in place: the database is put back, byte for byte.
  const withDb = join(root, 'with-db');
  await seedEmbedded(withDb);
  const before = snapshot(withDb);
  await assert.rejects(restoreEmbedded(withDb, bytes, wrongKey), /Nothing was changed/);
  assert.deepEqual(snapshot(withDb), before);

  // With the right key the same backup restores into the empty directory.
  const ok = await restoreEmbedded(empty, bytes, masterKey);
  assert.equal(ok.keyChecked, true);
  assert.ok(existsSync(join(empty, 'pglite', 'PG_VERSION')));
});

test('a restore refused midway (a gzip that is no database, a truncated backup) leaves an empty data directory empty', async () => {
  const root = tempRoot();
  const masterKey = randomBytes(32);
  const bytes = await makeBackup(root, masterKey);
  const broken = [gzipSync(Buffer.from('not a tarball of a database')), bytes.subarray(0, Math.floor(bytes.length / 3))];
  for (const [i, b] of broken.entries()) {
    const dir = join(root, `midway-${i}`);
    mkdirSync(dir, { mode: 0o700 });
    await assert.rejects(restoreEmbedded(dir, b, masterKey));
    assert.deepEqual(snapshot(dir), [], `case ${i}: nothing left in the data directory`);
    const absent = join(root, `midway-absent-${i}`);
    await assert.rejects(restoreEmbedded(absent, b, masterKey));
    assert.equal(existsSync(absent), false, `case ${i}: no data directory left`);
  }
});
