/**
 * The store's API keys: creating one (its secret shown once), listing, rotating with a grace period, revoking. A
 * changed key is announced so every process drops its cached copy. The store's own settings are in `service.ts`.
 */
import type { Selectable } from 'kysely';
import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { notify } from '../db';
import { API_KEY_CHANGED, changeFeed } from '../platform/changes';
import { ApiError, validationError } from '../platform/errors';
import { newId } from '../platform/ids';
import { canonicalAllowlistEntry } from '../platform/http/auth';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { Mode, ApiKeysTable } from '../platform/tables';
import { generateApiKey } from '../platform/api-key-format';
import { SCOPES, type Scope } from '../platform/http/route';
import type { Clock } from '../platform/clock';
import { MESSAGES } from '../platform/messages';
import type { ApiKeyView } from './schemas';
import * as keysRepo from './api-keys-repo';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'> & Partial<Pick<AppDeps, 'database'>>;

/**
 * A key's row changed (rotated, revoked): other processes drop their cached copy when the transaction commits
 * (the notification), this one right after it (`keyChangedHere`), so the next request reads the new row.
 */
function announceKeyChange(trx: Db, keyHash: string): Promise<void> {
  return notify(trx, API_KEY_CHANGED, keyHash);
}
function keyChangedHere(deps: Deps, keyHash: string): void {
  if (deps.database) changeFeed(deps.database).local(API_KEY_CHANGED, keyHash);
}

export function apiKeyView(k: Selectable<ApiKeysTable>, now: Date): ApiKeyView {
  const status = k.revoked_at && k.revoked_at <= now ? 'revoked' : k.expires_at ? (k.expires_at <= now ? 'expired' : 'rotating') : 'active';
  return {
    id: k.id,
    mode: k.mode,
    name: k.name,
    keyHint: k.key_hint,
    scopes: k.scopes as Scope[],
    ipAllowlist: k.ip_allowlist,
    productIds: k.product_ids,
    status,
    createdAt: k.created_at.toISOString(),
    expiresAt: k.expires_at ? k.expires_at.toISOString() : null,
    revokedAt: k.revoked_at ? k.revoked_at.toISOString() : null,
    rotatedTo: k.rotated_to,
    lastUsedAt: k.last_used_at ? k.last_used_at.toISOString() : null,
  };
}

export interface CreateApiKeyInput {
  mode: Mode;
  name: string;
  scopes: Scope[];
  ipAllowlist?: string[] | null;
  productIds?: string[] | null;
}

/**
 * Allow-list entries in canonical form: IPv4 only as dotted decimal without leading zeros (010.1.2.3 would be read as
 * octal somewhere and shown as typed here), IPv6 stored in the RFC 5952 form; anything else is refused.
 */
function canonicalIpAllowlist(list: string[] | null | undefined): string[] | null {
  if (!list) return null;
  const out = list.map((e) => canonicalAllowlistEntry(e));
  const bad = out.map((c, i) => ({ c, i })).filter(({ c }) => c === null);
  if (bad.length) {
    throw validationError(
      bad.map(({ i }) => ({ field: `ipAllowlist.${i}`, message: MESSAGES.stores.ipAllowlistEntryInvalid })),
    );
  }
  return out as string[];
}

async function insertKey(trx: Db, clock: Clock, storeId: string, input: CreateApiKeyInput) {
  const gen = generateApiKey(input.mode);
  const row = await keysRepo.insertApiKey(trx, {
    id: newId('key', clock),
    store_id: storeId,
    mode: input.mode,
    name: input.name,
    key_hash: gen.hash,
    key_hint: gen.hint,
    scopes: input.scopes,
    ip_allowlist: input.ipAllowlist && input.ipAllowlist.length ? input.ipAllowlist : null,
    product_ids: input.productIds && input.productIds.length ? input.productIds : null,
    created_at: clock.now(),
    last_used_at: null,
    expires_at: null,
    rotated_to: null,
    revoked_at: null,
  });
  return { row, secret: gen.plaintext };
}

export async function createApiKey(deps: Deps, storeId: string, input: CreateApiKeyInput): Promise<{ apiKey: ApiKeyView; secret: string }> {
  const ipAllowlist = canonicalIpAllowlist(input.ipAllowlist);
  const { row, secret } = await insertKey(deps.db, deps.clock, storeId, { ...input, ipAllowlist });
  return { apiKey: apiKeyView(row, deps.clock.now()), secret };
}

export const ALL_SCOPES: Scope[] = [...SCOPES];

export async function listApiKeys(deps: Deps, storeId: string, q: { mode?: Mode } & PageParams) {
  const now = deps.clock.now();
  return listPage(
    q,
    () => keysRepo.countApiKeys(deps.db, storeId, q.mode),
    (offset, limit) => keysRepo.pageApiKeys(deps.db, storeId, q.mode, offset, limit),
    (r) => apiKeyView(r, now),
  );
}

async function lockActiveKey(trx: Db, storeId: string, id: string, now: Date) {
  const key = await keysRepo.lockApiKey(trx, storeId, id);
  if (!key) throw new ApiError('API_KEY_NOT_FOUND');
  if ((key.revoked_at && key.revoked_at <= now) || key.expires_at) throw new ApiError('API_KEY_NOT_ACTIVE');
  return key;
}

/** Rotation: a new key with the same settings; the old one keeps working for the grace period. */
export async function rotateApiKey(deps: Deps, storeId: string, id: string, graceHours?: number) {
  const now = deps.clock.now();
  const grace = graceHours ?? deps.config.apiKeyGraceHours;
  const result = await deps.db.transaction().execute(async (trx) => {
    const old = await lockActiveKey(trx, storeId, id, now);
    await announceKeyChange(trx, old.key_hash);
    const { row, secret } = await insertKey(trx, deps.clock, storeId, {
      mode: old.mode,
      name: old.name,
      scopes: old.scopes as Scope[],
      ipAllowlist: old.ip_allowlist,
      productIds: old.product_ids,
    });
    const prev = await keysRepo.markApiKeyRotated(trx, id, new Date(now.getTime() + grace * 3_600_000), row.id);
    return { apiKey: apiKeyView(row, now), secret, previous: apiKeyView(prev, now), keyHash: old.key_hash };
  });
  keyChangedHere(deps, result.keyHash);
  return { apiKey: result.apiKey, secret: result.secret, previous: result.previous };
}

export async function revokeApiKey(deps: Deps, storeId: string, id: string): Promise<ApiKeyView> {
  const now = deps.clock.now();
  const row = await deps.db.transaction().execute(async (trx) => {
    const r = await keysRepo.revokeApiKeyRow(trx, storeId, id, now);
    if (r) await announceKeyChange(trx, r.key_hash);
    return r;
  });
  if (row) {
    keyChangedHere(deps, row.key_hash);
    return apiKeyView(row, now);
  }
  const existing = await keysRepo.findApiKey(deps.db, storeId, id);
  if (!existing) throw new ApiError('API_KEY_NOT_FOUND');
  return apiKeyView(existing, now);
}

/** One API key of the store (the dashboard checks its mode before acting on it). */
export async function getApiKey(deps: Deps, storeId: string, id: string): Promise<ApiKeyView> {
  const row = await keysRepo.findApiKey(deps.db, storeId, id);
  if (!row) throw new ApiError('API_KEY_NOT_FOUND');
  return apiKeyView(row, deps.clock.now());
}
