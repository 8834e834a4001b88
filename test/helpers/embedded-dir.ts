import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openPGlite } from '../../src/db';

/**
 * Makes `dataDir` hold a migrated embedded database, owner-only, as a first start (PGlite's initdb, then the
 * migrations) leaves it. For tests whose subject is what happens to an existing database (backups, restores, locks,
 * file modes, the CLI); a test of the first start itself opens an empty directory instead.
 *
 * With the test runner's migrated template at hand (TEST_PGLITE_TEMPLATE: a tarball of a data directory made by PGlite's
 * dumpDataDir, the same copy every in-memory test database loads), the template is unpacked into `<dataDir>/pglite`:
 * initdb costs a new directory about four seconds of CPU, unpacking a tenth of that. Without it (the template could not
 * be made, or TEST_PGLITE_TEMPLATE=''), the directory is opened and migrated.
 */
export async function seedEmbedded(dataDir: string): Promise<void> {
  const template = process.env.TEST_PGLITE_TEMPLATE;
  const dir = join(dataDir, 'pglite');
  if (!template || existsSync(join(dir, 'PG_VERSION'))) {
    const database = await openPGlite(dataDir);
    try {
      await database.migrate();
    } finally {
      await database.close();
    }
    return;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The tarball's names are absolute ("/base/1/…"); GNU tar takes them relative to -C and says so on stderr.
  const r = spawnSync('tar', ['-xf', template, '-C', dir, '--no-same-owner'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`unpacking the PGlite template into ${dir} failed: ${r.stderr || r.error?.message}`);
  ownerOnly(dataDir);
}

/** Group and other permissions off everything under `path` (itself included), as openPGlite leaves a directory. */
function ownerOnly(path: string): void {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return;
  chmodSync(path, st.mode & 0o700);
  if (st.isDirectory()) for (const name of readdirSync(path)) ownerOnly(join(path, name));
}
