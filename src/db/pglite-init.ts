import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Memory settings of the embedded PostgreSQL, on top of PGlite's own start parameters. PostgreSQL's defaults are
 * for a server with memory to spare (shared_buffers 128 MB, all of it resident once touched, inside a WebAssembly
 * memory that never shrinks); one process serving a small shop's data needs far less: 16 MB of shared buffers keeps
 * the idle process about 130 MB smaller and is many times the demo store's whole database.
 */
export const PGLITE_MEMORY_PARAMS = ['-c', 'shared_buffers=8MB', '-c', 'temp_buffers=1MB', '-c', 'wal_buffers=256kB', '-c', 'work_mem=2MB', '-c', 'maintenance_work_mem=8MB'];

/**
 * Creates a new embedded data directory (PostgreSQL's initdb) in a child process that then exits. initdb runs in its
 * own WebAssembly instance and leaves a few hundred MB resident in the process that ran it (a WebAssembly memory never
 * gives pages back, and neither does the allocator its buffers came from, even from a worker thread that ended); in
 * a process that exits, that memory goes with it, so a server started on a fresh directory idles as small as one
 * started on an existing one. Does nothing when the directory already holds a database.
 */
export async function createDataDirApart(dir: string): Promise<void> {
  if (existsSync(join(dir, 'PG_VERSION'))) return;
  const entry = pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href;
  const code = `const { PGlite } = await import(process.argv[1]); const db = new PGlite(process.argv[2]); await db.waitReady; await db.close();`;
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', code, entry, dir], { timeout: 300_000 }, (err, _out, stderr) =>
      err ? reject(new Error(`creating the embedded database in ${dir} failed: ${stderr.trim() || err.message}`)) : resolve(),
    );
  });
}
