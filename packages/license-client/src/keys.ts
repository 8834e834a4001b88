import { base64ToBytes } from './encoding.js';
import { LicenseApiError } from './errors.js';
import { importEd25519PublicKey } from './signature.js';
import { decodeStoredKeys, safeGet, safeSet, type LicenseStorage } from './storage.js';

export interface SigningKeyInput {
  kid: string;
  /** base64 of the raw 32-byte Ed25519 public key, as the signing-keys list gives it. */
  publicKey: string;
}

type KeyMap = Map<string, CryptoKey>;

/** Parses the signing-keys response. Keys that do not decode to 32 bytes are skipped rather than failing the list. */
async function importKeyList(list: readonly unknown[]): Promise<KeyMap> {
  const out: KeyMap = new Map();
  for (const item of list) {
    if (typeof item !== 'object' || item === null) continue;
    const { kid, publicKey } = item as Record<string, unknown>;
    if (typeof kid !== 'string' || kid === '' || typeof publicKey !== 'string') continue;
    const raw = base64ToBytes(publicKey);
    if (!raw || raw.length !== 32) continue;
    try {
      out.set(kid, await importEd25519PublicKey(raw));
    } catch {
      // not a valid curve point: unusable, so never matches a kid
    }
  }
  return out;
}

function parseKeysBody(text: string): unknown[] | null {
  try {
    const v = JSON.parse(text) as { keys?: unknown };
    return Array.isArray(v?.keys) ? v.keys : null;
  } catch {
    return null;
  }
}

export interface SigningKeysOptions {
  /** Keys shipped inside the app. When set, the list is never fetched (see README: pinning). */
  pinned?: readonly SigningKeyInput[];
  /** GETs the signing-keys list and returns the body text; throws LicenseNetworkError / LicenseApiError. */
  fetchList: () => Promise<{ text: string; status: number }>;
  storage: LicenseStorage;
  storageKey: string;
  now: () => number;
  maxAgeMs: number;
}

/**
 * The public keys answers are checked against. Fetched lazily and cached; refetched when older than maxAgeMs (so a
 * key the service withdrew stops being trusted) and once when an answer names a kid we do not know (rotation).
 * The last list is persisted so a restarted app can still re-verify its cached answer while offline.
 */
export class SigningKeys {
  private keys: KeyMap | null = null;
  private loadedAt = 0;
  private inflight: Promise<void> | null = null;
  private pinned: Promise<KeyMap> | null;

  constructor(private readonly opts: SigningKeysOptions) {
    this.pinned = opts.pinned ? importKeyList(opts.pinned) : null;
  }

  /** The key for an answer that just arrived from the service. null = unknown even after a refetch. */
  async forLiveAnswer(kid: string): Promise<CryptoKey | null> {
    if (this.pinned) return (await this.pinned).get(kid) ?? null;
    let refreshed = false;
    if (!this.keys || this.opts.now() - this.loadedAt > this.opts.maxAgeMs) {
      await this.refresh(true);
      refreshed = true;
    }
    const known = this.keys!.get(kid);
    if (known || refreshed) return known ?? null;
    // A kid we have not seen: the service publishes a new key before signing with it, so one refetch finds it.
    await this.refresh(false);
    return this.keys!.get(kid) ?? null;
  }

  /** The key for a stored answer, without touching the network (used while offline). */
  async forStoredAnswer(kid: string): Promise<CryptoKey | null> {
    if (this.pinned) return (await this.pinned).get(kid) ?? null;
    const fromMemory = this.keys?.get(kid);
    if (fromMemory) return fromMemory;
    const stored = await this.loadStored();
    return stored?.keys.get(kid) ?? null;
  }

  /**
   * Fetches the list. With `tolerateFailure`, a failed fetch falls back to the keys already held (memory, then
   * storage) and only throws when there are none; the unknown-kid refetch does not tolerate failure because the
   * keys we hold already lack that kid.
   */
  private async refresh(tolerateFailure: boolean): Promise<void> {
    this.inflight ??= this.fetchAndStore().finally(() => {
      this.inflight = null;
    });
    try {
      await this.inflight;
    } catch (err) {
      if (!tolerateFailure) throw err;
      if (this.keys) return;
      const stored = await this.loadStored();
      if (!stored) throw err;
      this.keys = stored.keys;
      this.loadedAt = stored.fetchedAt;
    }
  }

  private async fetchAndStore(): Promise<void> {
    const { text, status } = await this.opts.fetchList();
    const list = parseKeysBody(text);
    if (!list) throw new LicenseApiError(status, 'INVALID_SIGNING_KEYS', 'the signing-keys list is not { keys: [...] }', null, null);
    this.keys = await importKeyList(list);
    this.loadedAt = this.opts.now();
    await safeSet(this.opts.storage, this.opts.storageKey, JSON.stringify({ v: 1, fetchedAt: this.loadedAt, body: text }));
  }

  private async loadStored(): Promise<{ keys: KeyMap; fetchedAt: number } | null> {
    const stored = decodeStoredKeys(await safeGet(this.opts.storage, this.opts.storageKey));
    const list = stored && parseKeysBody(stored.body);
    if (!stored || !list) return null;
    return { keys: await importKeyList(list), fetchedAt: stored.fetchedAt };
  }
}
