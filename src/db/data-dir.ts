import { chmodSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The data directory is its owner's only: the embedded database's files hold buyers' e-mails, sealed secrets and owner
 * tokens (in its catalogs and WAL as much as in its tables), so no other local user may read or write any of it,
 * whatever the umask the process was started with (a common 0022 left PGlite's files 0666: issue 30).
 *
 * PGlite (WebAssembly on Node's file system) creates its files itself with mode 0666/0777, leaving the rest to the
 * process umask; so the process that opens the embedded database takes umask 0077 first (every file it or a child
 * creates from then on is 0600, every directory 0700), and what is already there is closed once when it opens.
 */

/** Group and other permission bits. */
const OPEN_BITS = 0o077;

/** From now on files and directories this process (and its children) create are its owner's only. */
export function ownerOnlyUmask(): void {
  try {
    process.umask(OPEN_BITS);
  } catch {
    // Worker threads may not change the umask; the fix-up below still closes what they open.
  }
}

/** Removes group and other permissions from `path` and everything under it (symbolic links are left alone). */
export function closeTree(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return; // gone meanwhile
  }
  if (st.isSymbolicLink()) return;
  if (st.mode & OPEN_BITS) {
    try {
      chmodSync(path, st.mode & 0o7700);
    } catch {
      // not ours (checked for the data directory itself by closeDataDir)
    }
  }
  if (st.isDirectory()) for (const name of readdirSync(path)) closeTree(join(path, name));
}

/**
 * Makes `dataDir` owner-only before the embedded database opens in it: sets the umask, closes the directory and
 * everything in it (database files, master key, backups moved aside by a restore). Returns a warning to log loudly
 * when the directory itself was open to other users (it has been closed now); throws when it is open to others and
 * cannot be closed by this user (someone else's directory: another user could have read or replaced the database).
 */
export function closeDataDir(dataDir: string): string | null {
  ownerOnlyUmask();
  const st = statSync(dataDir);
  let warning: string | null = null;
  if (st.mode & OPEN_BITS) {
    const was = (st.mode & 0o777).toString(8).padStart(4, '0');
    try {
      chmodSync(dataDir, st.mode & 0o7700);
    } catch (e) {
      throw new Error(
        `DATA_DIR ${dataDir} is accessible to other users (mode ${was}) and this user cannot change that (${(e as NodeJS.ErrnoException).code}): ` +
          `the embedded database holds buyers' data and sealed secrets. Run \`chmod 700 ${dataDir}\` as its owner, or use a directory owned by this user.`,
      );
    }
    warning = `DATA_DIR ${dataDir} was accessible to other users (mode ${was}): changed to ${(st.mode & 0o700).toString(8).padStart(4, '0')}, and every file in it to owner-only. Check who could read it meanwhile; create it with mode 0700 (or run the service with umask 077).`;
  }
  closeTree(dataDir);
  return warning;
}

/**
 * PGlite's file system layer (Emscripten's FS over Node's fs) sets some modes itself after creating a file: a file
 * PostgreSQL opens with fopen (pg_internal.init, rewritten at runs) is chmod'ed to 0644 by Emscripten's own umask
 * (0022), which no process umask undoes. Every mode it sets goes through FS.doChmod: group and other bits are
 * dropped there. Internal to Emscripten, hence looked up defensively (test/platform/data-at-rest.test.ts fails if a
 * PGlite upgrade moves it).
 */
export function keepOwnerOnly(pglite: unknown): boolean {
  const fsLayer = (pglite as { mod?: { FS?: { doChmod?: (...args: unknown[]) => unknown } } }).mod?.FS;
  const original = fsLayer?.doChmod;
  if (!fsLayer || typeof original !== 'function') return false;
  fsLayer.doChmod = function (stream: unknown, node: unknown, mode: unknown, ...rest: unknown[]) {
    return original.call(this, stream, node, typeof mode === 'number' ? mode & ~OPEN_BITS : mode, ...rest);
  };
  return true;
}
