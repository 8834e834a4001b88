import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { openPGlite, DataDirLockedError } from '../../src/db';
import { seedEmbedded } from '../helpers/embedded-dir';

const tempDir = () => mkdtempSync(join(tmpdir(), 'commerce-lock-'));

/** The pid of a process that has already exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

test('a data directory opens in one place at a time: the second open fails at once and names the holder', async () => {
  const dir = tempDir();
  try {
    await seedEmbedded(dir);
    const first = await openPGlite(dir);
    assert.equal(readFileSync(join(dir, 'pglite.lock'), 'utf8').trim(), String(process.pid));
    await assert.rejects(openPGlite(dir), (e: unknown) => {
      assert.ok(e instanceof DataDirLockedError);
      assert.match(e.message, new RegExp(`in use by process ${process.pid}`));
      assert.match(e.message, /stop that process/);
      assert.match(e.message, /POST \/admin\/v1\/api-keys/);
      return true;
    });
    // The first handle is unaffected by the refused second open.
    await first.migrate();
    await first.ping();
    await first.close();
    assert.equal(existsSync(join(dir, 'pglite.lock')), false, 'close releases the lock');
    const again = await openPGlite(dir);
    await again.ping();
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock left by a process that is gone is taken over; one held by a live process is not', async () => {
  const dir = tempDir();
  const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  try {
    await seedEmbedded(dir);
    const lock = join(dir, 'pglite.lock');
    writeFileSync(lock, `${await deadPid()}\n`);
    const db = await openPGlite(dir);
    assert.equal(readFileSync(lock, 'utf8').trim(), String(process.pid), 'the stale lock now names this process');
    await db.close();

    // Our own pid in a lock this process does not hold: a leftover of an earlier process with the same pid (containers).
    writeFileSync(lock, `${process.pid}\n`);
    const db2 = await openPGlite(dir);
    await db2.close();

    // An empty lock file (a crash between creating and writing it).
    writeFileSync(lock, '');
    const db3 = await openPGlite(dir);
    await db3.close();

    writeFileSync(lock, `${sleeper.pid}\n`);
    await assert.rejects(openPGlite(dir), new RegExp(`in use by process ${sleeper.pid}`));
    assert.equal(readFileSync(lock, 'utf8').trim(), String(sleeper.pid), 'a live holder keeps its lock');
  } finally {
    sleeper.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

const BIN = join(process.cwd(), 'bin/commerce.js');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as any).port;
      srv.close(() => resolve(port));
    });
  });
}

test('`commerce key create` on the DATA_DIR of a running server fails at once with the lock message', async () => {
  const dir = tempDir();
  await seedEmbedded(dir);
  const env: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const port = await freePort();
  const server = spawn(process.execPath, [BIN, 'start', '--no-worker'], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 180_000);
      server.stdout.on('data', (d) => {
        out += d;
        if (out.includes('API docs:')) {
          clearTimeout(timer);
          resolve();
        }
      });
      server.stderr.on('data', (d) => (out += d));
      server.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const storeId = /store id\s*: (st_\S+)/.exec(out)?.[1] ?? 'st_unknown';
    const res = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [BIN, 'key', 'create', '--store', storeId, '--mode', 'test'], { env }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as any).code ?? 1) : 0, stdout, stderr }),
      );
    });
    assert.notEqual(res.code, 0, 'the CLI exits non-zero');
    assert.doesNotMatch(res.stdout, /svc_test_/, 'no key is printed');
    assert.match(res.stderr, new RegExp(`in use by process ${server.pid}`));
    assert.match(res.stderr, /stop that process/);
  } finally {
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
