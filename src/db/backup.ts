import { createServer, createConnection, type Server } from 'node:net';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Database } from './database';
import { lockDataDir, DataDirLockedError } from './data-dir-lock';
import { openPGlite } from './pglite-open';
import { closeTree, keepOwnerOnly, ownerOnlyUmask } from './data-dir';
import { checkMasterKey } from './master-key-check';

/**
 * Backups of the embedded database (`commerce backup` / `commerce restore`).
 *
 * PGlite admits one process per data directory, so while the server runs the CLI cannot open it. The server therefore
 * listens on a control socket in the data directory (`control.sock`, mode 0600: only its owner can ask) and answers
 * `backup` with a consistent gzipped tarball of the database (PGlite's dumpDataDir, taken between transactions). With
 * no server running the CLI opens the directory itself. The master key (DATA_DIR/master.key or MASTER_KEY) is not in
 * the backup: it must be kept apart, and the same key is needed to read the secrets the restored database holds.
 */

export const CONTROL_SOCKET = 'control.sock';

export function controlSocketPath(dataDir: string): string {
  return join(dataDir, CONTROL_SOCKET);
}

/**
 * Serves backups of `database` on DATA_DIR/control.sock until the returned function is called. The caller holds the
 * data directory's lock, so a socket file already there is a leftover of a process that died.
 */
export async function serveControlSocket(database: Database, dataDir: string, log: { info: (o: object, m: string) => void; warn: (o: object, m: string) => void }): Promise<() => Promise<void>> {
  const path = controlSocketPath(dataDir);
  if (!database.dumpDataDir) return async () => {};
  try {
    unlinkSync(path);
  } catch {
    // none left over
  }
  const server: Server = createServer((socket) => {
    let line = '';
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      line += chunk;
      if (!line.includes('\n')) return;
      const command = line.slice(0, line.indexOf('\n')).trim();
      socket.removeAllListeners('data');
      if (command !== 'backup') {
        socket.end(`ERR unknown command ${JSON.stringify(command.slice(0, 40))}\n`);
        return;
      }
      const started = Date.now();
      database.dumpDataDir!()
        .then(async (blob) => {
          const bytes = Buffer.from(await blob.arrayBuffer());
          socket.write(`OK ${bytes.length}\n`);
          socket.end(bytes);
          log.info({ bytes: bytes.length, ms: Date.now() - started }, 'backup served on the control socket');
        })
        .catch((err) => {
          log.warn({ err: String(err) }, 'backup failed');
          socket.end(`ERR ${String(err).replace(/\n/g, ' ')}\n`);
        });
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    chmodSync(path, 0o600);
  } catch (err) {
    // E.g. a DATA_DIR path longer than a Unix socket path may be (about 100 bytes): serve anyway, without live backups.
    log.warn({ err: String(err), path }, 'control socket unavailable: `commerce backup` needs the server stopped');
    server.close();
    return async () => {};
  }
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      try {
        unlinkSync(path);
      } catch {
        // gone already
      }
    });
}

/** Asks the running server for a backup. null: no server answers on the control socket. */
export function requestBackup(dataDir: string): Promise<Buffer | null> {
  const path = controlSocketPath(dataDir);
  if (!existsSync(path)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = createConnection(path);
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') resolve(null);
      else reject(err);
    });
    socket.on('connect', () => socket.write('backup\n'));
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => {
      const all = Buffer.concat(chunks);
      const nl = all.indexOf(10);
      const head = all.subarray(0, nl < 0 ? all.length : nl).toString('utf8');
      const m = /^OK (\d+)$/.exec(head);
      if (!m) return reject(new Error(`the server refused the backup: ${head.replace(/^ERR /, '')}`));
      const body = all.subarray(nl + 1);
      if (body.length !== Number(m[1])) return reject(new Error(`backup cut short: ${body.length} of ${m[1]} bytes`));
      resolve(body);
    });
  });
}

/** A backup of the embedded database in `dataDir`: from the running server, else by opening the directory. */
export async function backupEmbedded(dataDir: string): Promise<{ bytes: Buffer; from: 'server' | 'directory' }> {
  const served = await requestBackup(dataDir);
  if (served) return { bytes: served, from: 'server' };
  if (!existsSync(join(dataDir, 'pglite', 'PG_VERSION'))) throw new Error(`no embedded database in ${dataDir} (DATA_DIR)`);
  const database = await openPGlite(dataDir);
  try {
    const blob = await database.dumpDataDir!();
    return { bytes: Buffer.from(await blob.arrayBuffer()), from: 'directory' };
  } finally {
    await database.close();
  }
}

/**
 * Restores a backup into `dataDir`: refuses while a process holds the directory, moves the current database aside
 * (DATA_DIR/pglite.before-restore-<time>), unpacks the backup, and checks that it opens. Returns where the old one went.
 * A refusal at any step (key mismatch, a backup that does not open, not this service's database) leaves `dataDir` as
 * it was found: the old database back in place, and whatever this run created (the unpacked `pglite/`, an empty
 * data directory made for it) removed, so "Nothing was changed" is true and a next start does not open the
 * refused backup as if it had been restored.
 */
export async function restoreEmbedded(dataDir: string, backup: Buffer, masterKey: Buffer): Promise<{ movedAside: string | null; migrations: number; keyChecked: boolean }> {
  if (backup.length < 2 || backup[0] !== 0x1f || backup[1] !== 0x8b) throw new Error('not a backup made by `commerce backup` (expected a gzipped tarball)');
  // A truncated or corrupt file is refused here, before anything in DATA_DIR is touched (PGlite's own unpacking
  // fails on it from inside a stream, later and less clearly).
  try {
    gunzipSync(backup);
  } catch {
    throw new Error('restore refused: the backup file is truncated or damaged (its compressed data does not read to the end). Nothing was changed.');
  }
  // Owner-only, whatever the umask: the restored files are the database's (src/db/data-dir.ts).
  ownerOnlyUmask();
  const dataDirExisted = existsSync(dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let release: () => void;
  try {
    release = lockDataDir(dataDir);
  } catch (e) {
    if (e instanceof DataDirLockedError) {
      throw new Error(`restore refused: the embedded database in ${dataDir} is in use by process ${e.pid} (the server?). Stop it first, then run restore again.`);
    }
    throw e;
  }
  const dir = join(dataDir, 'pglite');
  const dirExisted = existsSync(dir);
  let movedAside: string | null = null;
  let refused = false;
  try {
    if (existsSync(dir) && readdirSync(dir).length > 0) {
      movedAside = `${dir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      renameSync(dir, movedAside);
    }
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { PGlite } = await import('@electric-sql/pglite');
    const pg = new PGlite(dir, { loadDataDir: new Blob([new Uint8Array(backup)]) });
    try {
      await pg.waitReady;
      keepOwnerOnly(pg);
      const { rows } = await pg.query<{ n: number }>('select count(*)::int as n from schema_migrations');
      // The backup's key check value (or a secret sealed in it) against the master key at hand.
      const key = await checkMasterKey(async (text) => (await pg.query<Record<string, unknown>>(text)).rows, masterKey);
      if (key === 'mismatch') {
        throw new Error(
          'restore refused: the master key at hand (MASTER_KEY or DATA_DIR/master.key) is not the key of this backup, so its secrets (Toss secret keys, ' +
            'webhook secrets, billing keys, license keys) could not be read. Set MASTER_KEY to the key in use when the backup was taken (or copy its master.key ' +
            'into DATA_DIR), then run restore again. Nothing was changed.',
        );
      }
      return { movedAside, migrations: rows[0].n, keyChecked: key === 'match' };
    } finally {
      await pg.close();
    }
  } catch (e) {
    // Put the old database back, or take away what was unpacked into an empty place: a refused restore leaves
    // things as they were.
    refused = true;
    rmSync(dir, { recursive: true, force: true });
    if (movedAside) {
      renameSync(movedAside, dir);
      movedAside = null;
    } else if (dirExisted) {
      mkdirSync(dir, { mode: 0o700 });
    }
    throw e;
  } finally {
    release();
    // A data directory made only for this restore goes too (it holds nothing but what the refused restore put there).
    if (refused && !dataDirExisted) rmSync(dataDir, { recursive: true, force: true });
    else closeTree(dataDir);
  }
}

/** PostgreSQL: `pg_dump --format=custom` when pg_dump is installed. Returns false when it is not. */
export function backupPostgres(url: string, file: string): boolean {
  const probe = spawnSync('pg_dump', ['--version'], { encoding: 'utf8' });
  if (probe.error) return false;
  const res = spawnSync('pg_dump', ['--format=custom', '--no-owner', `--file=${file}`, `--dbname=${url}`], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (res.status !== 0) throw new Error(`pg_dump failed (exit ${res.status})`);
  return true;
}

export const POSTGRES_BACKUP_HELP = `PostgreSQL backups are PostgreSQL's own tools (see docs/manual/14-production-deployment.md):
  logical:  pg_dump --format=custom --no-owner --file=commerce.dump "$DATABASE_URL"
  restore:  createdb commerce_restored && pg_restore --no-owner --dbname=postgres://…/commerce_restored commerce.dump
            then point DATABASE_URL at it (stop the servers and workers first when restoring over the live database)
  point in time: continuous WAL archiving (archive_command, or pgBackRest / WAL-G / your provider's PITR)
The same MASTER_KEY is needed after a restore: it decrypts the stored secrets (gateway and webhook secrets, license keys).`;

/** Reads a backup file. */
export function readBackup(file: string): Buffer {
  return readFileSync(file);
}

/** Writes a backup file through a temporary name, so a half-written file never carries the final name. */
export function writeBackup(file: string, bytes: Buffer): void {
  const tmp = `${file}.partial`;
  // Owner-only whatever the umask (a file left by an earlier attempt keeps its mode otherwise).
  writeFileSync(tmp, bytes, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}
