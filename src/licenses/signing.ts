import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { AppDeps } from '../deps';
import { decryptSecret, encryptSecret } from '../platform/crypto';
import { newId } from '../platform/ids';
import type { SigningKeysTable } from './tables';
import type { SigningKeyAdminView } from './schemas';
import { findLastGeneration, insertFirstSigningKey, insertSigningKey, listSigningKeys } from './signing-repo';

/**
 * Rotation schedule. A new key is listed at once but signs only ROTATION_LEAD_MS later, so clients that refresh
 * the list (or fetch it on an unknown kid) know it before any answer carries it. A key that stopped signing stays
 * listed LISTED_AFTER_RETIRE_MS: an answer is good for 5 minutes, and clients with offline grace may keep a signed
 * answer longer, so a day leaves room for both.
 */
export const ROTATION_LEAD_MS = 5 * 60_000;
export const LISTED_AFTER_RETIRE_MS = 24 * 3_600_000;
/** How long one process trusts its copy of the key list before reading it again (another process may have rotated). */
const CACHE_MS = 60_000;

type KeyRow = Selectable<SigningKeysTable>;

export interface KeySchedule {
  row: KeyRow;
  /** When the next key takes over (null: none yet). */
  stopsSigningAt: Date | null;
}

/** Orders keys by generation and works out when each stops signing. Pure, so listing and signing agree. */
export function schedule(rows: KeyRow[]): KeySchedule[] {
  const sorted = [...rows].sort((a, b) => a.generation - b.generation);
  return sorted.map((row, i) => ({ row, stopsSigningAt: i + 1 < sorted.length ? sorted[i + 1].signs_from : null }));
}

/** The key that signs at `now`: the newest whose signs_from has come. */
export function signingKeyAt(rows: KeyRow[], now: Date): KeyRow | null {
  let best: KeyRow | null = null;
  for (const r of rows) if (r.signs_from.getTime() <= now.getTime() && (!best || r.generation > best.generation)) best = r;
  return best;
}

export function isListed(s: KeySchedule, now: Date): boolean {
  if (s.row.created_at.getTime() > now.getTime()) return false;
  return s.stopsSigningAt === null || s.stopsSigningAt.getTime() + LISTED_AFTER_RETIRE_MS > now.getTime();
}

function newKeyRow(masterKey: Buffer, kid: string, generation: number, createdAt: Date, signsFrom: Date): KeyRow {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
  return { kid, generation, public_key: raw.toString('base64'), private_key_sealed: encryptSecret(masterKey, pkcs8), created_at: createdAt, signs_from: signsFrom };
}

function isUniqueViolation(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: string }).code === '23505';
}

export interface SignedBody {
  body: string;
  header: string;
}

/**
 * The service's Ed25519 signing keys: stored with the private half sealed under the master key, cached per process
 * (list for a minute, decrypted private keys by kid), created on first use, rotated on request.
 */
export class LicenseSigner {
  #rows: KeyRow[] | null = null;
  #loadedAt = 0;
  #privateKeys = new Map<string, KeyObject>();

  constructor(private readonly deps: Pick<AppDeps, 'db' | 'clock' | 'config'>) {}

  /** Forget the cached list (after a rotation in this process). */
  invalidate(): void {
    this.#rows = null;
  }

  async #load(): Promise<KeyRow[]> {
    const now = this.deps.clock.now().getTime();
    if (this.#rows && now - this.#loadedAt < CACHE_MS && now >= this.#loadedAt) return this.#rows;
    let rows = await listSigningKeys(this.deps.db);
    if (rows.length === 0) {
      await this.#createFirst();
      rows = await listSigningKeys(this.deps.db);
    }
    this.#rows = rows;
    this.#loadedAt = now;
    return rows;
  }

  async #createFirst(): Promise<void> {
    const now = this.deps.clock.now();
    const row = newKeyRow(this.deps.config.masterKey, newId('lsk', this.deps.clock), 1, now, now);
    // Two processes starting together both try generation 1; the unique index lets exactly one in.
    await insertFirstSigningKey(this.deps.db, row);
  }

  #privateKey(row: KeyRow): KeyObject {
    let k = this.#privateKeys.get(row.kid);
    if (!k) {
      k = createPrivateKey({ key: decryptSecret(this.deps.config.masterKey, row.private_key_sealed), format: 'der', type: 'pkcs8' });
      this.#privateKeys.set(row.kid, k);
    }
    return k;
  }

  /**
   * Serializes `value` once and signs those exact bytes; the caller sends `body` unchanged.
   * Header: `Service-Signature: kid="<kid>", alg="ed25519", sig="<base64 of the 64-byte signature>"`.
   */
  async sign(value: unknown): Promise<SignedBody> {
    const rows = await this.#load();
    const now = this.deps.clock.now();
    // A clock behind the first key's creation (tests moving time back) still signs with the oldest key.
    const row = signingKeyAt(rows, now) ?? rows[0];
    const body = JSON.stringify(value);
    const sig = sign(null, Buffer.from(body, 'utf8'), this.#privateKey(row)).toString('base64');
    return { body, header: `kid="${row.kid}", alg="ed25519", sig="${sig}"` };
  }

  /** The public list: every key published and not yet 24 hours past the end of its signing, newest first. */
  async publicKeys(): Promise<Array<{ kid: string; publicKey: string; createdAt: string }>> {
    const rows = await this.#load();
    const now = this.deps.clock.now();
    return schedule(rows)
      .filter((s) => isListed(s, now))
      .reverse()
      .map((s) => ({ kid: s.row.kid, publicKey: s.row.public_key, createdAt: s.row.created_at.toISOString() }));
  }

  /** Every key with its schedule, for the operator. Reads the database, not the cache. */
  async adminList(): Promise<SigningKeyAdminView[]> {
    this.invalidate();
    const rows = await this.#load();
    const now = this.deps.clock.now();
    const active = signingKeyAt(rows, now);
    return schedule(rows)
      .reverse()
      .map((s) => ({
        kid: s.row.kid,
        publicKey: s.row.public_key,
        createdAt: s.row.created_at.toISOString(),
        signsFrom: s.row.signs_from.toISOString(),
        stopsSigningAt: s.stopsSigningAt ? s.stopsSigningAt.toISOString() : null,
        listedUntil: s.stopsSigningAt ? new Date(s.stopsSigningAt.getTime() + LISTED_AFTER_RETIRE_MS).toISOString() : null,
        state: active?.kid === s.row.kid ? 'active' : s.row.signs_from.getTime() > now.getTime() ? 'scheduled' : 'retired',
        listed: isListed(s, now),
      }));
  }

  /** Publishes a new key now that signs from now + 5 minutes; the current key signs until then. */
  async rotate(): Promise<SigningKeyAdminView> {
    await this.#load(); // makes sure generation 1 exists
    const { db, clock, config } = this.deps;
    let kid = '';
    for (let attempt = 0; attempt < 3 && !kid; attempt++) {
      const now = clock.now();
      const last = await findLastGeneration(db);
      const row = newKeyRow(config.masterKey, newId('lsk', clock), (last?.generation ?? 0) + 1, now, new Date(now.getTime() + ROTATION_LEAD_MS));
      try {
        await insertSigningKey(db, row);
        kid = row.kid;
      } catch (e) {
        // Another rotation took this generation at the same moment: take the next one.
        if (!isUniqueViolation(e)) throw e;
      }
    }
    if (!kid) throw new Error('could not rotate the signing key');
    const list = await this.adminList();
    return list.find((k) => k.kid === kid)!;
  }
}
