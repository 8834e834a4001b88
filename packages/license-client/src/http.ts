import { LicenseApiError, LicenseNetworkError } from './errors.js';
import { decodeUtf8 } from './encoding.js';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface RawResponse {
  status: number;
  ok: boolean;
  headers: Headers;
  /** The body exactly as received: signatures are checked over these bytes, before any JSON parsing. */
  bytes: Uint8Array<ArrayBuffer>;
}

/**
 * One HTTP exchange with a deadline that also covers reading the body. Anything that keeps us from getting the
 * whole answer becomes LicenseNetworkError, which is what offline grace keys on.
 */
export async function exchange(fetchFn: FetchLike, url: string, init: RequestInit, timeoutMs: number): Promise<RawResponse> {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), timeoutMs);
  try {
    let res: Response;
    try {
      res = await fetchFn(url, { ...init, signal: ctrl.signal });
    } catch (err) {
      throw new LicenseNetworkError(ctrl.signal.aborted ? `no answer from ${url} within ${timeoutMs} ms` : `could not reach ${url}`, { cause: err });
    }
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = new Uint8Array(await res.arrayBuffer());
    } catch (err) {
      throw new LicenseNetworkError(`the answer from ${url} was cut off`, { cause: err });
    }
    return { status: res.status, ok: res.ok, headers: res.headers, bytes };
  } finally {
    clearTimeout(timer);
  }
}

/** Retry-After is delta-seconds or an HTTP date; both become whole seconds from now (never negative). */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (value == null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/** Maps an error answer (`{ statusCode, code, message, details? }`, unsigned) to LicenseApiError. */
export function toApiError(res: RawResponse, now: Date): LicenseApiError {
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(decodeUtf8(res.bytes) ?? '');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    // not JSON (a proxy's HTML page, say): keep the HTTP status, invent nothing else
  }
  const code = typeof body.code === 'string' ? body.code : `HTTP_${res.status}`;
  const message = typeof body.message === 'string' ? body.message : `HTTP ${res.status}`;
  const details = body.details && typeof body.details === 'object' && !Array.isArray(body.details) ? (body.details as Record<string, unknown>) : null;
  return new LicenseApiError(res.status, code, message, parseRetryAfter(res.headers.get('retry-after'), now), details);
}
