/**
 * One HTTP exchange with Toss Payments and how its reply is read before any business meaning: secret-key Basic
 * auth, the Idempotency-Key, deadlines (normal and slow), timing and tracing per operation, and the sorting of every
 * answer into ok, Toss's coded refusal, or unknown (5xx, timeouts, broken connections, unparsable bodies, and codes
 * that say the request may still take effect). The secret key lives only in a private field and the header.
 */
import type { Clock } from '../platform/clock';
import { histogram, LATENCY_BUCKETS } from '../platform/metrics-registry';
import { withSpan } from '../platform/telemetry';
import type { Outcome } from './provider';
import { inMinorUnits, isPayment, TOSS_AMBIGUOUS_CODES, tossError, type TossPayment } from './toss-model';

/** How one HTTP exchange with Toss ended, before it is read as a business outcome. */
export type Reply =
  | { kind: 'ok'; body: unknown }
  | { kind: 'error'; httpStatus: number; code: string; message: string }
  | { kind: 'unknown'; message: string };

export const UNKNOWN = '결제사 응답을 확인하지 못했습니다. 결제 상태를 조회한 뒤 다시 시도해 주세요.';

/** Toss documents that billing charges and transaction listings may take up to 60 s: never give up on them sooner. */
export const TOSS_SLOW_CALL_MIN_MS = 60_000;

/** Toss call latency by operation and how the exchange ended (ok, error: Toss's coded refusal, unknown: no usable answer). */
const gatewayDuration = histogram({
  name: 'commerce_gateway_request_duration_seconds',
  help: 'Toss Payments API calls: latency by operation and outcome (ok, error, unknown)',
  labelNames: ['gateway', 'operation', 'outcome'],
  buckets: LATENCY_BUCKETS,
});

/** The operation a Toss API request performs, named for metrics and traces (never the key or id in its path). */
export function tossOperation(method: 'GET' | 'POST' | 'DELETE', path: string): string {
  if (path.startsWith('/v1/transactions')) return 'transactions';
  if (path.startsWith('/v1/settlements')) return 'settlements';
  if (path.startsWith('/v1/billing/')) {
    if (method === 'DELETE') return 'billing_delete';
    return path === '/v1/billing/authorizations/issue' ? 'billing_issue' : 'billing_charge';
  }
  if (path.startsWith('/v1/cash-receipts')) return path.endsWith('/cancel') ? 'cash_receipt_cancel' : 'cash_receipt_issue';
  if (path === '/v1/payments/confirm') return 'confirm';
  if (method === 'POST' && path.endsWith('/cancel')) return 'cancel';
  if (path.startsWith('/v1/payments/orders/keycheck_')) return 'verify_credentials';
  return method === 'GET' ? 'lookup' : 'other';
}

/** setTimeout/clearTimeout, injectable so tests drive deadlines with fake timers instead of waiting. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
export const realTimers: Timers = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) };

/** The HTTP side of the Toss adapter: what each topic (payments, billing, cash receipts, reconciliation) calls. */
export class TossClient {
  readonly #authorization: string;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #slowTimeoutMs: number;
  readonly #timers: Timers;
  readonly clock: Clock;

  constructor(opts: { secretKey: string; baseUrl: string; timeoutMs: number; slowTimeoutMs: number; clock: Clock; timers: Timers }) {
    this.#authorization = `Basic ${Buffer.from(`${opts.secretKey}:`).toString('base64')}`;
    this.#baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.#timeoutMs = opts.timeoutMs;
    this.#slowTimeoutMs = opts.slowTimeoutMs;
    this.clock = opts.clock;
    this.#timers = opts.timers;
  }

  /** One Toss request, timed (commerce_gateway_request_duration_seconds) and, with tracing on, in its own span. */
  async call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, idempotencyKey?: string, slow = false): Promise<Reply> {
    const operation = tossOperation(method, path);
    return withSpan(
      `toss ${operation}`,
      { 'gateway.name': 'toss', 'gateway.operation': operation, 'http.request.method': method },
      async (span) => {
        const started = performance.now();
        const reply = await this.#exchange(method, path, body, idempotencyKey, slow);
        gatewayDuration.labels('toss', operation, reply.kind).observe((performance.now() - started) / 1000);
        span.setAttributes({ 'gateway.outcome': reply.kind, 'gateway.error_code': reply.kind === 'error' ? reply.code : undefined });
        if (reply.kind !== 'ok') span.fail(reply.kind === 'error' ? reply.code : 'no usable answer');
        return reply;
      },
      'client',
    );
  }

  async #exchange(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, idempotencyKey?: string, slow = false): Promise<Reply> {
    const headers: Record<string, string> = { Authorization: this.#authorization, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    const controller = new AbortController();
    const timer = this.#timers.setTimeout(() => controller.abort(), slow ? this.#slowTimeoutMs : this.#timeoutMs);
    let status: number;
    let text: string;
    try {
      const res = await fetch(`${this.#baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
        // A redirect is not part of the API; following one could replay a POST elsewhere. It reads as unknown.
        redirect: 'manual',
      });
      status = res.status;
      // The body is read under the same deadline: a gateway that sends headers and then stalls is a timeout too.
      text = await res.text();
    } catch (err) {
      const timedOut = controller.signal.aborted;
      return { kind: 'unknown', message: timedOut ? `${UNKNOWN} (응답 시간 초과)` : `${UNKNOWN} (연결 오류: ${(err as Error).message})` };
    } finally {
      this.#timers.clearTimeout(timer);
    }
    // DELETE answers may carry no body; an empty 2xx is a plain success.
    if (status >= 200 && status < 300 && text.trim() === '') return { kind: 'ok', body: null };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { kind: 'unknown', message: `${UNKNOWN} (HTTP ${status}, 해석할 수 없는 응답)` };
    }
    // USD answers (PayPal) in cents from here on, like every amount of this service.
    if (status >= 200 && status < 300) return { kind: 'ok', body: inMinorUnits(parsed) };
    const err = tossError(parsed);
    if (status >= 500 || !err || status < 400 || TOSS_AMBIGUOUS_CODES.has(err.code)) {
      return { kind: 'unknown', message: `${UNKNOWN} (HTTP ${status}${err ? ` ${err.code}: ${err.message}` : ''})` };
    }
    return { kind: 'error', httpStatus: status, code: err.code, message: err.message };
  }

  /** GET of a Payment object (by payment key or order id). */
  async getPayment(path: string): Promise<Outcome<TossPayment>> {
    const reply = await this.call('GET', path);
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'error') return { status: 'failed', code: reply.code, message: reply.message };
    return isPayment(reply.body) ? { status: 'succeeded', value: reply.body } : { status: 'unknown', message: `${UNKNOWN} (결제 정보 형식 오류)` };
  }
}
