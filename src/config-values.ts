/**
 * How each environment value is read and checked: integers, booleans, schedules, SMTP, proxies and ports, metrics,
 * log format, the Redis key prefix. Each refuses a bad value at start with a message naming the variable (and never
 * echoing a secret). `loadConfig` (config.ts) puts them together.
 */
import ipaddr from 'ipaddr.js';

export type Env = Record<string, string | undefined>;

export function reconciliationSchedule(value: string | undefined): 'daily' | 'off' {
  const raw = value ?? 'daily';
  if (raw !== 'daily' && raw !== 'off') throw new Error(`RECONCILIATION_SCHEDULE must be daily or off, got "${raw}"`);
  return raw;
}

export function settlementSchedule(value: string | undefined): 'weekly' | 'off' {
  const raw = value ?? 'weekly';
  if (raw !== 'weekly' && raw !== 'off') throw new Error(`SETTLEMENT_SCHEDULE must be weekly or off, got "${raw}"`);
  return raw;
}

/** SMTP_URL and MAIL_FROM. Messages never echo the URL: it may carry the SMTP password. */
export function smtp(smtpUrl: string | undefined, mailFrom: string | undefined): { smtpUrl: string | null; mailFrom: string | null } {
  const raw = smtpUrl?.trim() || '';
  const from = mailFrom?.trim() || '';
  if (!raw) return { smtpUrl: null, mailFrom: from || null };
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) {
    throw new Error('SMTP_URL must look like smtp://user:password@host:587 or smtps://user:password@host:465 (value not shown: it may hold a password)');
  }
  if (!from) throw new Error('MAIL_FROM is required when SMTP_URL is set (e.g. MAIL_FROM="My Store <no-reply@example.com>")');
  if (!/^[^\s@<>]+@[^\s@<>]+$|<[^\s@<>]+@[^\s@<>]+>$/.test(from)) throw new Error(`MAIL_FROM must be an e-mail address or "Name <address>", got "${from}"`);
  return { smtpUrl: raw, mailFrom: from };
}

export function int(env: Env, name: string, def: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

export function atMost(n: number, max: number, name: string): number {
  if (n > max) throw new Error(`${name} must be at most ${max}, got "${n}"`);
  return n;
}

export function bool(env: Env, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

/**
 * Fastify's `trustProxy` for a hop count: the peer and the next N-1 X-Forwarded-For entries (from the right) are proxies,
 * the entry before them is the client. Fastify 5.12 reads a bare number as "trust no one", so the count is given as
 * this function. Only sound when the service cannot be reached except through those proxies.
 */
export function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/** proxy-addr's named ranges, which Fastify accepts beside addresses. */
const PROXY_PRESETS = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrCidr(x: string): boolean {
  try {
    if (x.includes('/')) ipaddr.parseCIDR(x);
    else ipaddr.parse(x);
    return true;
  } catch {
    return false;
  }
}

export function parseTrustProxy(raw: string | undefined): false | number | string[] {
  const v = raw?.trim() ?? '';
  if (v === '' || /^(0|false|no|off)$/i.test(v)) return false;
  if (/^(true|yes|on)$/i.test(v)) {
    throw new Error(
      `TRUST_PROXY=${v} is refused: it would trust the client-written left-most X-Forwarded-For entry. ` +
        'Set TRUST_PROXY to the number of proxies in front of the service (e.g. 1) or to their addresses/CIDRs (e.g. 10.0.0.0/8,192.168.1.5)',
    );
  }
  if (/^\d+$/.test(v)) return Number(v);
  const list = v.split(',').map((x) => x.trim()).filter(Boolean);
  const bad = list.filter((x) => !PROXY_PRESETS.has(x) && !isAddressOrCidr(x));
  if (bad.length) throw new Error(`TRUST_PROXY must be a hop count or a comma-separated list of proxy addresses/CIDRs, got "${bad.join(', ')}"`);
  return list;
}

export function parsePorts(raw: string | undefined, name: string): number[] {
  const list = (raw ?? '').split(',').map((x) => x.trim()).filter(Boolean);
  const bad = list.filter((x) => !/^\d{1,5}$/.test(x) || Number(x) < 1 || Number(x) > 65535);
  if (bad.length) throw new Error(`${name} must be a comma-separated list of TCP ports (1 to 65535), got "${bad.join(', ')}"`);
  return [...new Set(list.map(Number))];
}

export function metricsToken(raw: string | undefined): string | null {
  if (!raw) return null;
  if (raw.length < 16 || /\s/.test(raw)) throw new Error('METRICS_TOKEN must be at least 16 characters without spaces (e.g. `openssl rand -hex 24`)');
  return raw;
}

export function metricsListen(raw: string | undefined): { host: string; port: number } | null {
  if (!raw) return null;
  const m = /^(?:\[?([^\]]*?)\]?:)?(\d{1,5})$/.exec(raw.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < 1 || port > 65535) throw new Error(`METRICS_LISTEN must be host:port or a port (bound to 127.0.0.1), got "${raw}"`);
  return { host: m[1] || '127.0.0.1', port };
}

export function logFormat(raw: string | undefined): 'json' | 'pretty' {
  if (raw === undefined || raw === '') return process.stdout.isTTY ? 'pretty' : 'json';
  if (raw === 'json' || raw === 'pretty') return raw;
  throw new Error(`LOG_FORMAT must be json or pretty, got "${raw}"`);
}

/** REDIS_KEY_PREFIX: up to 64 visible ASCII characters without spaces (it starts every key name), or empty. */
export function redisKeyPrefix(value: string | undefined): string {
  const v = value ?? '';
  if (v !== '' && !/^[\x21-\x7e]{1,64}$/.test(v)) throw new Error('REDIS_KEY_PREFIX must be 1-64 visible ASCII characters without spaces, e.g. "shop-a:"');
  return v;
}
