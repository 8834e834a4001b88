/**
 * The fetch the client hands to openapi-fetch: it gives every server POST an `Idempotency-Key` (a UUID) unless the
 * caller set one, and retries with that same key, so a retried payment or refund is done once:
 *  - 429 and 503 answers, after `Retry-After` (seconds or an HTTP date), when that wait is within `maxDelayMs`;
 *  - network errors (no answer at all), for GETs and for requests that carry an `Idempotency-Key`.
 * The license app API (`/v1/licenses/activate|deactivate|verify`) takes no key and is retried only on 429/503.
 */
export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  maxRetries: number;
  /** The longest wait the client accepts before a retry (default 60 000 ms); a longer Retry-After is returned as is. */
  maxDelayMs: number;
  sleep: (ms: number) => Promise<void>;
  /** Milliseconds since the epoch, for `Retry-After` given as an HTTP date. */
  now: () => number;
  newIdempotencyKey: () => string;
}

const KEYLESS = /\/v1\/licenses\/(activate|deactivate|verify)$/;

export function retryingFetch(base: (req: Request) => Promise<Response>, o: RetryOptions): (req: Request) => Promise<Response> {
  return async (input) => {
    let request = input;
    const path = new URL(input.url).pathname;
    if (input.method === 'POST' && !KEYLESS.test(path) && !input.headers.has('idempotency-key')) {
      const headers = new Headers(input.headers);
      headers.set('Idempotency-Key', o.newIdempotencyKey());
      request = new Request(input, { headers });
    }
    const safeToResend = request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await base(request.clone());
      } catch (err) {
        if (!safeToResend || attempt >= o.maxRetries) throw err;
        await o.sleep(backoff(attempt));
        continue;
      }
      if ((res.status === 429 || res.status === 503) && attempt < o.maxRetries) {
        const wait = retryAfterMs(res.headers.get('retry-after'), o.now()) ?? backoff(attempt);
        if (wait <= o.maxDelayMs) {
          // Not awaited: cancelling one branch of a teed body (a cloned Response) settles only with the other.
          res.body?.cancel().catch(() => undefined);
          await o.sleep(wait);
          continue;
        }
      }
      return res;
    }
  };
}

/** 0.5 s, 1 s, 2 s, … when the answer says nothing (network errors, a 503 without Retry-After). */
const backoff = (attempt: number) => 500 * 2 ** attempt;

export function retryAfterMs(value: string | null, now: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
