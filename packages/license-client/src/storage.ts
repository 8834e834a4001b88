/**
 * Where the client keeps the last good signed answer and the signing-keys list, so offline grace survives an app
 * restart. Anything string-keyed works: an in-memory map, localStorage, a file, the OS keychain.
 */
export interface LicenseStorage {
  get(key: string): Promise<string | null> | string | null;
  set(key: string, value: string): Promise<void> | void;
}

/** The Web Storage shape (`localStorage`, `sessionStorage`), accepted as is. */
export interface WebStorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export function adaptStorage(storage: LicenseStorage | WebStorageLike): LicenseStorage {
  if ('get' in storage && typeof storage.get === 'function') return storage as LicenseStorage;
  const web = storage as WebStorageLike;
  return { get: (k) => web.getItem(k), set: (k, v) => web.setItem(k, v) };
}

/** Default storage: lives as long as the client object, so offline grace only covers the running process. */
export class MemoryStorage implements LicenseStorage {
  private readonly map = new Map<string, string>();
  get(key: string): string | null {
    return this.map.get(key) ?? null;
  }
  set(key: string, value: string): void {
    this.map.set(key, value);
  }
}

/**
 * A stored answer is the raw signed bytes and the header, never the parsed object: re-verifying them on use means
 * an edited entry is refused instead of trusted.
 */
export interface StoredAnswer {
  v: 1;
  body: string; // base64 of the exact response body bytes
  signature: string; // the Service-Signature header value
}

export function decodeStoredAnswer(text: string | null): StoredAnswer | null {
  if (text == null) return null;
  try {
    const v = JSON.parse(text) as Partial<StoredAnswer>;
    if (v && v.v === 1 && typeof v.body === 'string' && typeof v.signature === 'string') return { v: 1, body: v.body, signature: v.signature };
  } catch {
    // fall through: unreadable entries are treated like absent ones by the caller
  }
  return null;
}

export interface StoredKeys {
  v: 1;
  fetchedAt: number; // ms since epoch, from the client's clock
  body: string; // the signing-keys response text
}

export function decodeStoredKeys(text: string | null): StoredKeys | null {
  if (text == null) return null;
  try {
    const v = JSON.parse(text) as Partial<StoredKeys>;
    if (v && v.v === 1 && typeof v.fetchedAt === 'number' && typeof v.body === 'string') return { v: 1, fetchedAt: v.fetchedAt, body: v.body };
  } catch {
    // unreadable: same as absent
  }
  return null;
}

/** Storage failures never fail a verification that already succeeded: offline grace is best effort. */
export async function safeGet(storage: LicenseStorage, key: string): Promise<string | null> {
  try {
    return (await storage.get(key)) ?? null;
  } catch {
    return null;
  }
}

export async function safeSet(storage: LicenseStorage, key: string, value: string): Promise<void> {
  try {
    await storage.set(key, value);
  } catch {
    // e.g. localStorage quota or a read-only profile: the live answer is still valid, only the offline copy is lost.
  }
}
