import { test, beforeEach, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { openPGlite } from '../../src/db';
import { backupEmbedded, restoreEmbedded, writeBackup } from '../../src/db/backup';
import { MasterKeyMismatchError, verifyMasterKey } from '../../src/db/master-key-check';
import { encryptSecret } from '../../src/platform/crypto';
import { seedEmbedded } from '../helpers/embedded-dir';

// Data at rest is its owner's only (issue 30, finding 3): with the common umask 0022, PGlite left most of the
// embedded database's files 0666 (catalogs, WAL with buyers' e-mails and owner tokens) and a restored directory came
// back the same. Here every file and directory under DATA_DIR must have no group or other permission after a start,
// a backup and a restore, all run under umask 0022; a restore with another master key is refused.

const roots: string[] = [];
after(() => {
  process.umask(0o022);
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});
beforeEach(() => {
  // What a shell or a service manager commonly hands the process; opening the database must not depend on it.
  process.umask(0o022);
});

function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'commerce-rest-'));
  roots.push(root);
  return root;
}

/** Every path under `dir` (itself included) whose mode lets its group or others in. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const walk = (p: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    if (st.mode & 0o077) found.push(`${relative(dir, p) || '.'} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const n of readdirSync(p)) walk(join(p, n));
  };
  walk(dir);
  return found;
}

function countFiles(dir: string): number {
  let n = 0;
  const walk = (p: string) => {
    const st = lstatSync(p);
    if (st.isDirectory()) for (const x of readdirSync(p)) walk(join(p, x));
    else n++;
  };
  walk(dir);
  return n;
}

/** Writes that make PostgreSQL create files as it runs (a table, its index, WAL), after the directory was closed. */
async function write(database: Awaited<ReturnType<typeof openPGlite>>, email: string): Promise<void> {
  await sql`create table if not exists rest_probe (id serial primary key, email text not null)`.execute(database.db);
  await sql`create index if not exists rest_probe_email on rest_probe (email)`.execute(database.db);
  for (let i = 0; i < 20; i++) await sql`insert into rest_probe (email) values (${`${i}.${email}`})`.execute(database.db);
  await sql`checkpoint`.execute(database.db);
  // A file PostgreSQL writes through fopen (as it does pg_internal.init), which PGlite's file layer chmods itself.
  const { rows } = await sql<{ d: string }>`select current_setting('data_directory') as d`.execute(database.db);
  await sql.raw(`copy (select email from rest_probe) to '${rows[0]!.d}/fopen-probe.csv'`).execute(database.db);
}

test('under umask 0022 a new embedded database, everything it writes while running, and its data directory are owner-only', async () => {
  const dataDir = join(tempRoot(), 'data');
  const database = await openPGlite(dataDir);
  try {
    await database.migrate();
    process.umask(0o022); // whatever else in the process sets meanwhile
    await write(database, 'buyer@example.com');
    assert.ok(countFiles(join(dataDir, 'pglite')) > 500, 'PostgreSQL wrote its files');
    assert.ok(statSync(join(dataDir, 'pglite', 'fopen-probe.csv')).isFile(), 'and the one written through fopen');
    assert.deepEqual(openToOthers(dataDir), [], 'no file or directory under DATA_DIR open to group or others while running');
  } finally {
    await database.close();
  }
  assert.deepEqual(openToOthers(dataDir), [], 'nor after it stopped');
  assert.equal(statSync(dataDir).mode & 0o777, 0o700);
});

test('an existing data directory open to others is closed at start, with a loud warning', async () => {
  const dataDir = join(tempRoot(), 'data');
  await seedEmbedded(dataDir);
  // As an older version (or a copy with cp -r under umask 0022) left it: directories 0755, files 0644/0666.
  const open = (p: string) => {
    const st = lstatSync(p);
    chmodSync(p, st.isDirectory() ? 0o755 : 0o666);
    if (st.isDirectory()) for (const n of readdirSync(p)) open(join(p, n));
  };
  open(dataDir);
  assert.ok(openToOthers(dataDir).length > 500);
  const warnings: string[] = [];
  const again = await openPGlite(dataDir, { warn: (m) => warnings.push(m) });
  try {
    assert.equal(warnings.length, 1, 'one warning');
    assert.match(warnings[0]!, /DATA_DIR .* was accessible to other users \(mode 0755\): changed to 0700/);
    await write(again, 'buyer@example.com');
    assert.deepEqual(openToOthers(dataDir), []);
  } finally {
    await again.close();
  }
  // A directory already closed opens without a warning.
  const quiet: string[] = [];
  const third = await openPGlite(dataDir, { warn: (m) => quiet.push(m) });
  await third.close();
  assert.deepEqual(quiet, []);
});

test('a backup file and a restored directory (with the database moved aside) are owner-only under umask 0022', async () => {
  const root = tempRoot();
  const source = join(root, 'a');
  const target = join(root, 'b');
  const masterKey = randomBytes(32);
  await seedEmbedded(source);
  const database = await openPGlite(source);
  try {
    await verifyMasterKey(database.db, masterKey);
    await write(database, 'buyer@example.com');
  } finally {
    await database.close();
  }
  process.umask(0o022);
  const { bytes } = await backupEmbedded(source);
  const file = join(root, 'backup.tgz');
  writeFileSync(`${file}.partial`, 'left over by an interrupted attempt', { mode: 0o644 });
  writeBackup(file, bytes);
  assert.equal(statSync(file).mode & 0o777, 0o600, 'the backup file');

  // Restore over an existing database (created as an older version would have left it): it is moved aside, closed too.
  mkdirSync(join(target, 'pglite'), { recursive: true, mode: 0o755 });
  writeFileSync(join(target, 'pglite', 'PG_VERSION'), '18\n', { mode: 0o644 });
  chmodSync(target, 0o755);
  process.umask(0o022);
  const res = await restoreEmbedded(target, bytes, masterKey);
  assert.ok(res.movedAside, 'the previous database was moved aside');
  assert.equal(res.keyChecked, true, 'the key was checked against the backup');
  assert.ok(countFiles(join(target, 'pglite')) > 500);
  assert.deepEqual(openToOthers(target), [], 'the restored directory, its files and the one moved aside are owner-only');

  // And the restored database opens with the same key, its data there.
  const restored = await openPGlite(target);
  try {
    await verifyMasterKey(restored.db, masterKey);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from rest_probe`.execute(restored.db);
    assert.equal(rows[0]!.n, 20);
  } finally {
    await restored.close();
  }
});

test('a restore with another master key is refused by the backup\'s key check value, and the database in place stays', async () => {
  const root = tempRoot();
  const source = join(root, 'a');
  const target = join(root, 'b');
  const masterKey = randomBytes(32);
  await seedEmbedded(source);
  const database = await openPGlite(source);
  try {
    await verifyMasterKey(database.db, masterKey);
    await write(database, 'buyer@example.com');
  } finally {
    await database.close();
  }
  const { bytes } = await backupEmbedded(source);
  // The target holds a database of its own: a refused restore leaves it where it was.
  await seedEmbedded(target);
  await assert.rejects(restoreEmbedded(target, bytes, randomBytes(32)), /restore refused: the master key at hand .* is not the key of this backup/);
  assert.deepEqual(
    readdirSync(target).filter((n) => n.startsWith('pglite.before-restore')),
    [],
    'nothing moved aside remains',
  );
  const kept = await openPGlite(target);
  try {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_name = 'rest_probe'`.execute(kept.db);
    assert.equal(rows[0]!.n, 0, 'the database in place is the one that was there');
  } finally {
    await kept.close();
  }
  // The right key restores.
  const ok = await restoreEmbedded(target, bytes, masterKey);
  assert.equal(ok.keyChecked, true);
});

test('a backup from before the key check value is checked against a secret sealed in it', async () => {
  const root = tempRoot();
  const source = join(root, 'a');
  const masterKey = randomBytes(32);
  await seedEmbedded(source);
  const database = await openPGlite(source);
  try {
    // No check value recorded (a database written before migration 057 started a server), one sealed signing key.
    await sql`insert into signing_keys (kid, generation, public_key, private_key_sealed, created_at, signs_from) values ('k1', 1, 'pk', ${encryptSecret(masterKey, 'private')}, now(), now())`.execute(database.db);
  } finally {
    await database.close();
  }
  const { bytes } = await backupEmbedded(source);
  await assert.rejects(restoreEmbedded(join(root, 'wrong'), bytes, randomBytes(32)), /restore refused/);
  assert.equal((await restoreEmbedded(join(root, 'right'), bytes, masterKey)).keyChecked, true);
});

test('a start with another master key than the database\'s is refused', async () => {
  const dataDir = join(tempRoot(), 'data');
  const masterKey = randomBytes(32);
  await seedEmbedded(dataDir);
  const database = await openPGlite(dataDir);
  try {
    await verifyMasterKey(database.db, masterKey);
    await verifyMasterKey(database.db, masterKey); // the same key again: fine
    await assert.rejects(verifyMasterKey(database.db, randomBytes(32)), MasterKeyMismatchError);
  } finally {
    await database.close();
  }
});
