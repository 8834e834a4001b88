import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import type { Mode } from '../platform/tables';
import { MESSAGES } from '../platform/messages';

/**
 * SSRF guard for webhook targets. A seller controls the URL, so without this a webhook could reach the service's own
 * network (databases, cloud metadata at 169.254.169.254, admin ports). Only public unicast addresses pass; the DNS
 * name is resolved here and the connection is later made to the exact address that passed, so a second DNS answer
 * (rebinding) cannot redirect it.
 */

export type GuardResult =
  | { ok: true; url: URL; hostname: string; address: string; family: 4 | 6; loopback: boolean }
  | { ok: false; reason: string };

/**
 * What a refused URL tells the seller (registration answer, delivery log): only that the address is not allowed, in
 * the same words for every refusal. The guard's `reason` (how a name resolved, which range refused it) is for the
 * operator's log only: echoed to a seller it would map the service's internal DNS and network. The hint names the
 * development setting only, for the developer pointing a test webhook at localhost; it is given for every refusal,
 * so it says nothing about where this URL led.
 */
export const URL_REFUSED_MESSAGE = MESSAGES.webhooks.urlRefused;

export interface GuardOptions {
  /**
   * Loopback ports the URL may target (see loopbackPorts()): empty, the production default, refuses every loopback
   * address. Private, link-local and other special ranges are refused whatever this says.
   */
  loopbackPorts: readonly number[];
  /** Injected for tests; defaults to the system resolver. */
  resolve?: (hostname: string) => Promise<Array<{ address: string; family: number }>>;
  dnsTimeoutMs?: number;
}

/**
 * The loopback ports a webhook of this mode may reach: the operator's WEBHOOK_LOOPBACK_PORTS when
 * WEBHOOK_ALLOW_LOOPBACK is on and the mode is test; none otherwise (live mode never gets the exception).
 */
export function loopbackPorts(config: { webhookAllowLoopback: boolean; webhookLoopbackPorts: readonly number[] }, mode: Mode): readonly number[] {
  return config.webhookAllowLoopback && mode === 'test' ? config.webhookLoopbackPorts : [];
}

/** The TCP port a URL connects to (the scheme's default when none is written). */
export function urlPort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

function isLoopback(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  return addr.range() === 'loopback';
}

/**
 * Whether a stored URL names a loopback host by itself (an IP literal or `localhost`). Used when showing attempts
 * logged before loopback answers were omitted at delivery; names that only resolve to loopback are caught there.
 */
export function namesLoopback(raw: string): boolean {
  const parsed = parseWebhookUrl(raw);
  if (!parsed.ok) return false;
  const host = stripBrackets(parsed.url.hostname).toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || isLoopback(host);
}

/** Whether one IP address may receive webhooks. Returns the refusal reason, or null when allowed. */
export function refusedAddressReason(ip: string, allowLoopback: boolean): string | null {
  if (!ipaddr.isValid(ip)) return 'not an IP address';
  let addr = ipaddr.parse(ip);
  // ::ffff:127.0.0.1 reaches 127.0.0.1: judge the IPv4 address it carries.
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  const range = addr.range();
  if (range === 'loopback') return allowLoopback ? null : 'loopback address';
  if (addr.kind() === 'ipv4') return range === 'unicast' ? null : `${range} address`;
  // IPv6: only global unicast (2000::/3) outside every special-purpose block (6to4, Teredo, NAT64 and the like can
  // tunnel to private IPv4 space).
  if (range !== 'unicast') return `${range} address`;
  const first = (addr as ipaddr.IPv6).parts[0];
  return (first & 0xe000) === 0x2000 ? null : 'reserved address';
}

function stripBrackets(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Parses and checks the URL shape only (scheme, credentials, host present); no DNS. */
export function parseWebhookUrl(raw: string): { ok: true; url: URL } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'invalid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'only http and https URLs are allowed' };
  if (url.username || url.password) return { ok: false, reason: 'credentials in the URL are not allowed' };
  if (!url.hostname) return { ok: false, reason: 'missing host' };
  return { ok: true, url };
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

const systemResolve = (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Resolves the URL's host and checks every address it resolves to: one bad address refuses the whole name, because
 * which one a client picks is not ours to predict. Loopback passes only on a listed port. Never throws. A refusal's
 * `reason` is for the operator's log, never for the seller (see URL_REFUSED_MESSAGE).
 */
export async function guardWebhookUrl(raw: string, opts: GuardOptions): Promise<GuardResult> {
  const parsed = parseWebhookUrl(raw);
  if (!parsed.ok) return parsed;
  const url = parsed.url;
  const hostname = stripBrackets(url.hostname);
  let addresses: Array<{ address: string; family: number }>;
  if (ipaddr.isValid(hostname)) {
    addresses = [{ address: hostname, family: hostname.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await withTimeout((opts.resolve ?? systemResolve)(hostname), opts.dnsTimeoutMs ?? 5_000, 'DNS lookup');
    } catch (err) {
      return { ok: false, reason: `DNS lookup failed: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (addresses.length === 0) return { ok: false, reason: 'DNS lookup returned no address' };
  }
  const port = urlPort(url);
  const portListed = opts.loopbackPorts.includes(port);
  for (const a of addresses) {
    const why = refusedAddressReason(a.address, portListed);
    if (why) return { ok: false, reason: `${hostname} → ${a.address}: ${why}${isLoopback(a.address) && opts.loopbackPorts.length ? ` (port ${port} not in WEBHOOK_LOOPBACK_PORTS)` : ''}` };
  }
  const first = addresses[0];
  return { ok: true, url, hostname, address: first.address, family: first.family === 6 ? 6 : 4, loopback: isLoopback(first.address) };
}
