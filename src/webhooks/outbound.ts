import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { systemClock } from '../platform/clock';
import type { EventEnvelope } from '../platform/events';
import type { Mode } from '../platform/tables';
import { guardWebhookUrl, loopbackPorts, URL_REFUSED_MESSAGE } from './ssrf';
import type { StoredSecret } from './tables';
import { openSecret } from './model';
import { enabledEndpointsForEvent } from './repo';

/**
 * The one way anything in the service calls a seller's endpoint: the delivery worker and the licenses module
 * (license.issue, which reads the answer) both go through sendSigned, so signing and the SSRF guard cannot diverge.
 */

export interface OutboundEndpoint {
  id: string;
  url: string;
  /** whsec_… active signing secrets, newest first. */
  secrets: string[];
}

export interface SendResult {
  /** true for any 2xx answer. */
  ok: boolean;
  status: number | null;
  /** First 64 KiB of the response body (UTF-8). */
  body: string;
  error: string | null;
  durationMs: number;
  /**
   * The request went to a loopback address (the WEBHOOK_ALLOW_LOOPBACK development exception). Its answer comes from
   * a service on the operator's machine, so callers that show answers to sellers (the delivery log) must not show it.
   */
  loopback: boolean;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;
const USER_AGENT = 'CommerceAPI-Webhooks/1.0';

/** Secrets that still sign at `now`, newest first. Without `now`, every stored secret (expired ones are pruned). */
export function activeSecrets(secrets: StoredSecret[], now?: Date): string[] {
  return secrets.filter((s) => !now || s.expiresAt === null || new Date(s.expiresAt).getTime() > now.getTime()).map((s) => s.secret);
}

/**
 * Enabled endpoints of the store+mode subscribed to `eventType`, oldest first. Pass `now` (deps.clock.now()) so a
 * rotated-out secret stops signing exactly at its expiry; without it expired secrets linger until the prune task.
 */
export async function findEndpointsFor(
  db: Db,
  masterKey: Buffer,
  storeId: string,
  mode: Mode,
  eventType: string,
  now?: Date,
): Promise<OutboundEndpoint[]> {
  const rows = await enabledEndpointsForEvent(db, storeId, mode, eventType);
  return rows.map((r) => ({ id: r.id, url: r.url, secrets: activeSecrets(r.secrets, now).map((x) => openSecret(masterKey, x)) }));
}

/** The standard-webhooks signature header: one `v1,<base64>` per secret, space-separated. */
export function signatureHeader(secrets: string[], msgId: string, timestamp: Date, payload: string): string {
  return secrets.map((s) => signer(s).sign(msgId, timestamp, payload)).join(' ');
}

/** One Webhook object per secret (it decodes the secret when built); bounded, since secrets rotate. */
const signers = new Map<string, Webhook>();
function signer(secret: string): Webhook {
  let w = signers.get(secret);
  if (!w) {
    if (signers.size >= 1000) signers.clear();
    signers.set(secret, (w = new Webhook(secret)));
  }
  return w;
}

/**
 * Connections to receivers are kept alive and reused (a delivery burst to one endpoint costs one TCP and TLS setup, not
 * one per delivery). A pooled socket is reused only for the same address the SSRF guard passed (the pool name carries
 * it), so a host that now resolves elsewhere gets a new, checked connection. Idle sockets close after a few seconds.
 */
class PinnedAgent extends http.Agent {
  override getName(options: http.ClientRequestArgs & { pinnedAddress?: string }): string {
    return `${super.getName(options)}|${options.pinnedAddress ?? ''}`;
  }
}
class PinnedHttpsAgent extends https.Agent {
  override getName(options: https.RequestOptions & { pinnedAddress?: string }): string {
    return `${super.getName(options)}|${options.pinnedAddress ?? ''}`;
  }
}
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 64, maxFreeSockets: 64, scheduling: 'lifo' as const, timeout: 4_000 };
const httpAgent = new PinnedAgent(AGENT_OPTIONS);
const httpsAgent = new PinnedHttpsAgent(AGENT_OPTIONS);

function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  // Connect to the address the guard checked, whatever DNS says now (no rebinding between check and connect).
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

/**
 * Signs (standard-webhooks, webhook-id = envelope.id) and POSTs the exact bytes of JSON.stringify(envelope), after
 * the SSRF guard. No redirects are followed (a 3xx is a failure). Never throws for network problems.
 */
export async function sendSigned(
  deps: Pick<AppDeps, 'config' | 'clock'>,
  endpoint: OutboundEndpoint,
  envelope: EventEnvelope,
  opts: { timeoutMs?: number } = {},
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let loopback = false;
  const fail = (error: string, status: number | null = null, body = ''): SendResult => ({ ok: false, status, body, error, durationMs: elapsed(), loopback });

  if (endpoint.secrets.length === 0) return fail('endpoint has no active signing secret');
  const target = await guardWebhookUrl(endpoint.url, {
    loopbackPorts: loopbackPorts(deps.config, envelope.mode),
    dnsTimeoutMs: timeoutMs,
  });
  // The attempt log is the seller's to read: it says only that the address is not allowed (see URL_REFUSED_MESSAGE).
  if (!target.ok) return fail(URL_REFUSED_MESSAGE);
  loopback = target.loopback;

  const payload = JSON.stringify(envelope);
  const body = Buffer.from(payload, 'utf8');
  // The receiver checks webhook-timestamp against its own real clock (5-minute tolerance), so this is wall-clock
  // transport time, not business time: a test-mode or manual clock must not make every signature stale.
  const timestamp = systemClock.now();
  const headers = {
    'content-type': 'application/json',
    'content-length': String(body.length),
    'user-agent': USER_AGENT,
    'webhook-id': envelope.id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatureHeader(endpoint.secrets, envelope.id, timestamp, payload),
  };

  const remaining = Math.max(1, timeoutMs - elapsed());
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let current: http.ClientRequest | null = null;
    const finish = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(() => {
      finish(fail(`timeout after ${timeoutMs} ms`));
      current?.destroy();
    }, remaining);
    const https_ = target.url.protocol === 'https:';
    const send = (retried: boolean) => {
      const req = (https_ ? https : http).request(target.url, {
        method: 'POST',
        headers,
        // The retry after a stale kept-alive socket takes a connection of its own (the pool may hold more stale ones).
        agent: retried ? false : https_ ? httpsAgent : httpAgent,
        pinnedAddress: target.address,
        lookup: pinnedLookup(target.address, target.family),
        // Certificates are checked against the seller's host name, not the pinned address (SNI takes names only).
        ...(https_ && !isIP(target.hostname) ? { servername: target.hostname } : {}),
      } as http.RequestOptions);
      current = req;
      // The code alone (ECONNRESET, ECONNREFUSED…): Node's message names the address the host resolved to.
      req.on('error', (err: NodeJS.ErrnoException) => {
        // A kept-alive socket the receiver closed while it sat idle fails before anything reached the receiver: send
        // once more on a new connection rather than record a failure the receiver never saw.
        if (!retried && !settled && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) return send(true);
        finish(fail(err.code ?? err.message));
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const text = Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8');
          const status = res.statusCode ?? null;
          const ok = status !== null && status >= 200 && status < 300;
          finish({ ok, status, body: text, error: ok ? null : `HTTP ${status}`, durationMs: elapsed(), loopback });
        };
        res.on('data', (c: Buffer) => {
          if (size < MAX_RESPONSE_BYTES) chunks.push(c);
          size += c.length;
          // The answer is judged by its status; the rest of an oversized body is not worth waiting for.
          if (size >= MAX_RESPONSE_BYTES) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', () => done());
        res.on('aborted', () => done());
      });
      req.end(body);
    };
    send(false);
  });
}
