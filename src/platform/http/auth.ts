import type { TtlCache } from '../cache';
import ipaddr from 'ipaddr.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db';
import type { Clock } from '../clock';
import { ApiError } from '../errors';
import { safeEqualHex, sha256Hex, safeEqualString } from '../crypto';
import type { Mode } from '../tables';
import { parseApiKey } from '../api-key-format';
import type { Scope } from './route';
import { findApiKeyByHash, findStoreByOwnerTokenHash, touchApiKeyLastUsed, type ApiKeyAuthRow } from './auth-repo';

export interface ApiKeyAuth {
  kind: 'api_key';
  storeId: string;
  mode: Mode;
  keyId: string;
  scopes: string[];
  /** null: every product; else the only products this key may see (others answer *_NOT_FOUND). */
  productIds: string[] | null;
}

export interface OwnerAuth {
  kind: 'owner';
  storeId: string;
  /** Hash of the presented token, so a rotation replaces exactly this token. */
  tokenHash: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: ApiKeyAuth;
    owner?: OwnerAuth;
  }
}

/** Every reason a key is refused gives this same answer (same status, body and headers). */
const invalidKey = () => new ApiError('API_KEY_INVALID');

export function bearerToken(request: FastifyRequest): string | null {
  const h = request.headers.authorization;
  if (typeof h !== 'string') return null;
  // RFC 9110 §11.1: the scheme is case-insensitive and 1*SP separates it from the token.
  const m = /^Bearer +([^\s]+)$/i.exec(h.trim());
  return m ? m[1] : null;
}

export function ipAllowed(ip: string, allowlist: string[]): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip); // IPv4-mapped IPv6 becomes IPv4
  } catch {
    return false;
  }
  for (const entry of allowlist) {
    // Only canonical entries count: a legacy form such as 010.1.2.3 (which parsers read as octal) matches nothing.
    const canonical = canonicalAllowlistEntry(entry);
    if (!canonical) continue;
    try {
      const [range, bits] = canonical.includes('/') ? ipaddr.parseCIDR(canonical) : [ipaddr.parse(canonical), null];
      const mapped = range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress() && (bits === null || bits >= 96);
      const r = mapped ? (range as ipaddr.IPv6).toIPv4Address() : range;
      if (r.kind() !== addr.kind()) continue;
      const prefix = bits === null ? (r.kind() === 'ipv4' ? 32 : 128) : mapped ? bits - 96 : bits;
      if ((addr as any).match(r, prefix)) return true;
    } catch {
      // an unparsable entry matches nothing
    }
  }
  return false;
}

export function isValidCidr(entry: string): boolean {
  try {
    if (entry.includes('/')) ipaddr.parseCIDR(entry);
    else ipaddr.parse(entry);
    return true;
  } catch {
    return false;
  }
}

const V4_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
/** Dotted-decimal IPv4 only: four decimal octets without leading zeros (no octal, hex or short forms). */
const IPV4_CANONICAL = new RegExp(`^${V4_OCTET}(?:\\.${V4_OCTET}){3}$`);

function canonicalIPv6(text: string): string | null {
  if (!/^[0-9A-Fa-f:.]+$/.test(text)) return null; // no zone ids, no spaces
  let hex = text;
  if (text.includes('.')) {
    // An embedded IPv4 tail (RFC 4291 2.2 form 3) must itself be canonical dotted decimal; convert it to two groups.
    const colon = text.lastIndexOf(':');
    const v4 = text.slice(colon + 1);
    if (!IPV4_CANONICAL.test(v4)) return null;
    const o = v4.split('.').map(Number);
    hex = `${text.slice(0, colon + 1)}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  if (!ipaddr.IPv6.isValid(hex)) return null;
  const a = ipaddr.IPv6.parse(hex);
  // RFC 5952 section 5: IPv4-mapped addresses keep the dotted tail.
  if (a.isIPv4MappedAddress()) return `::ffff:${a.toIPv4Address().toString()}`;
  return a.toRFC5952String();
}

/**
 * The canonical text of an IP allow-list entry (address, or address/prefix with the prefix in range), or null when the
 * entry is not one: IPv4 must be canonical dotted decimal; IPv6 may be any RFC 4291 text form and comes back in the
 * RFC 5952 form.
 */
export function canonicalAllowlistEntry(entry: string): string | null {
  const m = /^([^/]+)(?:\/(0|[1-9][0-9]{0,2}))?$/.exec(entry);
  if (!m) return null;
  const [, addr, bits] = m;
  let text: string | null;
  let max: number;
  if (IPV4_CANONICAL.test(addr)) {
    text = addr;
    max = 32;
  } else if (addr.includes(':')) {
    text = canonicalIPv6(addr);
    max = 128;
  } else {
    return null;
  }
  if (text === null || (bits !== undefined && Number(bits) > max)) return null;
  return bits === undefined ? text : `${text}/${bits}`;
}

/**
 * The columns authentication reads. Rows are cached by key hash for a few seconds (API_KEY_CACHE_MS); rotation and
 * revocation drop the entry in every process at once (src/platform/changes.ts), and expiry and revocation times are
 * compared with the clock on every request, so a cached row never outlives them.
 */
export type ApiKeyRow = ApiKeyAuthRow;

/**
 * API key → store, mode, scopes; then `onIdentified` (the key's rate limit: a refused call is still a call), then
 * source IP, then scope. Sets `request.auth`.
 */
export async function authenticateApiKey(
  db: Db,
  clock: Clock,
  request: FastifyRequest,
  reply: FastifyReply,
  scope: Scope | undefined,
  onIdentified?: (keyId: string) => Promise<void>,
  cache?: TtlCache<ApiKeyRow>,
): Promise<ApiKeyAuth> {
  const token = bearerToken(request);
  if (!token) throw invalidKey();
  const parsed = parseApiKey(token);
  if (!parsed) throw invalidKey();
  let row = cache?.get(parsed.hash);
  if (!row) {
    row = await findApiKeyByHash(db, parsed.hash);
    if (row) cache?.set(parsed.hash, row);
  }
  // The lookup is by a hash of the secret, so its timing reveals nothing an attacker controls;
  // the constant-time comparison keeps the check itself from doing so either.
  if (!row || !safeEqualHex(row.key_hash, parsed.hash) || row.mode !== parsed.mode) throw invalidKey();
  const now = clock.now();
  if (row.revoked_at && row.revoked_at <= now) throw invalidKey();
  if (row.expires_at && row.expires_at <= now) throw invalidKey();
  if (row.expires_at) reply.header('Service-Key-Deprecated', row.expires_at.toISOString());
  if (onIdentified) await onIdentified(row.id);
  if (row.ip_allowlist && row.ip_allowlist.length > 0 && !ipAllowed(request.ip, row.ip_allowlist)) {
    throw new ApiError('API_KEY_IP_NOT_ALLOWED');
  }
  if (scope && !row.scopes.includes(scope)) {
    throw new ApiError('API_KEY_SCOPE_MISSING', { details: { required: [scope] } });
  }
  // Sellers see when a key was last used (to find unused keys before revoking). Written at most once a minute per
  // key and off the request path, so it costs nothing measurable.
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() >= 60_000) {
    row.last_used_at = now;
    touchApiKeyLastUsed(db, row.id, now).catch((err) => request.log.warn({ err }, 'last_used_at update failed'));
  }
  const auth: ApiKeyAuth = {
    kind: 'api_key',
    storeId: row.store_id,
    mode: row.mode,
    keyId: row.id,
    scopes: row.scopes,
    productIds: row.product_ids && row.product_ids.length > 0 ? row.product_ids : null,
  };
  request.auth = auth;
  return auth;
}

/** Seller console: `Authorization: Bearer own_…`, the store owner's token. */
export async function authenticateOwner(db: Db, request: FastifyRequest): Promise<OwnerAuth> {
  const token = bearerToken(request);
  if (!token || !/^own_[A-Za-z0-9]{40}$/.test(token)) throw new ApiError('ADMIN_UNAUTHORIZED');
  const hash = sha256Hex(token);
  const row = await findStoreByOwnerTokenHash(db, hash);
  if (!row || !row.owner_token_hash || !safeEqualHex(row.owner_token_hash, hash)) throw new ApiError('ADMIN_UNAUTHORIZED');
  request.owner = { kind: 'owner', storeId: row.id, tokenHash: hash };
  return request.owner;
}

export function authenticateOperator(adminToken: string | null, request: FastifyRequest): void {
  const token = bearerToken(request);
  if (!adminToken || !token || !safeEqualString(token, adminToken)) throw new ApiError('ADMIN_UNAUTHORIZED');
}

/** Product range of a key: true when the key may see the product. */
export function productInRange(auth: { productIds: string[] | null }, productId: string): boolean {
  return auth.productIds === null || auth.productIds.includes(productId);
}
