/**
 * The master key that seals stored secrets (Toss secret keys): MASTER_KEY, else a key generated once and kept beside
 * the embedded database (DATA_DIR/master.key). With DATABASE_URL it must be given: a per-process key would be lost.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from './config-values';

/** The master key at hand without generating one: MASTER_KEY, else DATA_DIR/master.key; null when neither is there. */
export function readMasterKey(env: Env, dataDir: string): Buffer | null {
  const raw = env.MASTER_KEY;
  if (raw) {
    const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
    if (key.length !== 32) throw new Error('MASTER_KEY must be 32 bytes, as 64 hex characters or base64');
    return key;
  }
  const file = join(dataDir, 'master.key');
  return existsSync(file) ? Buffer.from(readFileSync(file, 'utf8').trim(), 'hex') : null;
}

/** `masterKey` is MASTER_KEY as config.ts read it; without it a key is generated once and kept (embedded mode only). */
export function loadMasterKey(masterKey: string | undefined, dataDir: string, persist: boolean): Buffer {
  if (masterKey) return readMasterKey({ MASTER_KEY: masterKey }, dataDir)!;
  if (!persist) {
    // Secrets sealed under a per-process random key would be unreadable after a restart or by a second process.
    throw new Error('MASTER_KEY is required when DATABASE_URL is set (32 bytes as 64 hex characters or base64)');
  }
  // Embedded mode convenience: keep a generated key beside the database so restarts can decrypt.
  const file = join(dataDir, 'master.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  // Owner-only, like everything in it (src/db/data-dir.ts).
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600 });
  return key;
}

