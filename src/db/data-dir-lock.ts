/**
 * Who may open an embedded data directory: one process at a time (`DATA_DIR/pglite.lock`, a leftover of a dead
 * process taken over), and only a directory of the PostgreSQL major version this build embeds.
 */
import { readFileSync, openSync, writeSync, closeSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A second process (or a second open in this one) wants a data directory another one holds. */
export class DataDirLockedError extends Error {
  constructor(
    readonly lockFile: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dirname(lockFile)} is in use by process ${pid} (lock file ${lockFile}). ` +
        `Only one process can open it: stop that process (the running server) first, or use the running server's ` +
        `console API instead of the CLI (POST /admin/v1/stores with ADMIN_TOKEN, POST /admin/v1/api-keys with the ` +
        `owner token). If no such process is running, delete the lock file.`,
    );
    this.name = 'DataDirLockedError';
  }
}

/** Lock files this process holds: a lock naming our own pid that is not here is a leftover of an earlier process. */
const HELD_LOCKS = new Set<string>();

function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `DATA_DIR/pglite.lock` (created exclusively, holding our pid) so only one process opens the embedded
 * database. A lock whose process is gone is taken over. Returns the release function (also run on exit).
 */
export function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, 'pglite.lock');
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder = NaN;
      try {
        holder = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
      } catch {
        // Vanished (released meanwhile) or unreadable: try again.
      }
      if (!Number.isInteger(holder) && attempt === 0) {
        // Empty: its owner may be between creating and writing it. Look again shortly; still empty → a crash leftover.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
        continue;
      }
      const heldHere = holder === process.pid && HELD_LOCKS.has(file);
      const stale = !heldHere && (holder === process.pid || !pidAlive(holder));
      if (!stale || attempt >= 2) throw new DataDirLockedError(file, Number.isInteger(holder) ? holder : -1);
      try {
        unlinkSync(file);
      } catch {
        // Someone else took it over first; the next attempt sees their lock.
      }
    }
  }
  HELD_LOCKS.add(file);
  const release = () => {
    if (!HELD_LOCKS.delete(file)) return;
    process.removeListener('exit', release);
    try {
      if (Number.parseInt(readFileSync(file, 'utf8').trim(), 10) === process.pid) unlinkSync(file);
    } catch {
      // Already gone.
    }
  };
  process.on('exit', release);
  return release;
}

/** The PostgreSQL major version of the embedded database this build ships (PGlite 0.5.x). */
export const EMBEDDED_PG_MAJOR = '18';

/**
 * An embedded database directory written by another PostgreSQL major version (PGlite 0.3.x wrote 17) cannot be
 * opened by this one: PGlite would fail with an opaque initialization error, or worse. Refuse it up front, saying
 * what to do. The check reads PG_VERSION, which PostgreSQL writes when it creates a data directory.
 */
export function refuseOtherMajorVersion(dir: string): void {
  let version: string;
  try {
    version = readFileSync(join(dir, 'PG_VERSION'), 'utf8').trim();
  } catch {
    return; // new or empty directory
  }
  if (version === EMBEDDED_PG_MAJOR) return;
  throw new Error(
    `The embedded database in ${dir} was created by PostgreSQL ${version} (an earlier release of this service, PGlite 0.3) ` +
      `and this release embeds PostgreSQL ${EMBEDDED_PG_MAJOR} (PGlite 0.5), which cannot open it. Nothing was changed. ` +
      `To keep its data, start the earlier release on it and move the data to a PostgreSQL server (pg_dump through ` +
      `@electric-sql/pglite-socket), then run this release with DATABASE_URL, as recommended for production anyway; ` +
      `to start empty instead, move the directory aside (mv ${dir} ${dir}.pg${version}) and start again.`,
  );
}
