import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';
import { CommerceApiError } from './errors.js';
import { retryingFetch } from './retry.js';
import type {
  ApproveRefundRequestBody,
  CancelSubscriptionRequest,
  CreateCheckoutSessionRequest,
  CreatePortalSessionRequest,
  QueryOf,
  RefundOrderRequest,
  RefundRequestDecisionBody,
} from './types.js';

export interface CommerceClientOptions {
  /** A server API key, `svc_test_…` or `svc_live_…`. Never ship it to browsers or apps. */
  apiKey: string;
  /** Where the service runs, e.g. `https://pay.example.com` (no trailing path). */
  baseUrl: string;
  /** Retries after the first attempt on 429/503 and network errors (default 2). */
  maxRetries?: number;
  /** The longest `Retry-After` wait the client sleeps through before retrying (default 60 000 ms). */
  maxRetryDelayMs?: number;
  /** A fetch to use instead of the global one (tests, proxies, instrumentation). */
  fetch?: (req: Request) => Promise<Response>;
  /** Waits between retries (default: a timer). Tests pass a fake one to avoid real waits. */
  sleep?: (ms: number) => Promise<void>;
  /** The clock for `Retry-After` given as an HTTP date (default `Date.now`). */
  now?: () => number;
  /** Makes the `Idempotency-Key` of a POST that has none (default `crypto.randomUUID()`). */
  newIdempotencyKey?: () => string;
}

/** Per-call options of a POST: your own `Idempotency-Key` (e.g. your order id) instead of a random one. */
export interface PostOptions {
  idempotencyKey?: string;
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/**
 * A typed client of the public API (`/v1`). Methods return the documented resource or throw `CommerceApiError`.
 * Every POST carries an `Idempotency-Key` (yours or a UUID) that is reused by the client's own retries, so a
 * retried call never charges, refunds or cancels twice. `api` is the underlying openapi-fetch client, typed from the
 * same document, for anything the shortcuts do not cover.
 */
export class CommerceClient {
  readonly api: Client<paths>;
  private readonly newKey: () => string;

  constructor(options: CommerceClientOptions) {
    const base = options.fetch ?? ((req: Request) => globalThis.fetch(req));
    this.newKey = options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID());
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { Authorization: `Bearer ${options.apiKey}` },
      fetch: retryingFetch(base, {
        maxRetries: options.maxRetries ?? 2,
        maxDelayMs: options.maxRetryDelayMs ?? 60_000,
        sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
        now: options.now ?? (() => Date.now()),
        newIdempotencyKey: this.newKey,
      }),
    });
  }

  private async unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
    const { data, error, response } = await call;
    if (response.ok) return data as T;
    throw new CommerceApiError(response.status, error, response.headers.get('request-id'));
  }

  private idem(o: PostOptions = {}) {
    return { 'Idempotency-Key': o.idempotencyKey ?? this.newKey() };
  }

  readonly products = {
    list: (query: QueryOf<'/v1/products'> = {}) => this.unwrap(this.api.GET('/v1/products', { params: { query } })),
    get: (id: string) => this.unwrap(this.api.GET('/v1/products/{id}', { params: { path: { id } } })),
  };

  readonly checkout = {
    /** Creates a checkout session; send the buyer to its `url`. */
    createSession: (body: CreateCheckoutSessionRequest, o?: PostOptions) =>
      this.unwrap(this.api.POST('/v1/checkout/sessions', { params: { header: this.idem(o) }, body })),
    getSession: (id: string) => this.unwrap(this.api.GET('/v1/checkout/sessions/{id}', { params: { path: { id } } })),
  };

  readonly orders = {
    list: (query: QueryOf<'/v1/orders'> = {}) => this.unwrap(this.api.GET('/v1/orders', { params: { query } })),
    get: (id: string) => this.unwrap(this.api.GET('/v1/orders/{id}', { params: { path: { id } } })),
    /** Refunds all (no `amount`) or part of a paid order. */
    refund: (id: string, body: RefundOrderRequest = {}, o?: PostOptions) =>
      this.unwrap(this.api.POST('/v1/orders/{id}/refund', { params: { path: { id }, header: this.idem(o) }, body })),
  };

  readonly refundRequests = {
    list: (query: QueryOf<'/v1/refund-requests'> = {}) => this.unwrap(this.api.GET('/v1/refund-requests', { params: { query } })),
    get: (id: string) => this.unwrap(this.api.GET('/v1/refund-requests/{id}', { params: { path: { id } } })),
    approve: (id: string, body: ApproveRefundRequestBody = {}, o?: PostOptions) =>
      this.unwrap(this.api.POST('/v1/refund-requests/{id}/approve', { params: { path: { id }, header: this.idem(o) }, body })),
    hold: (id: string, body: RefundRequestDecisionBody, o?: PostOptions) =>
      this.unwrap(this.api.POST('/v1/refund-requests/{id}/hold', { params: { path: { id }, header: this.idem(o) }, body })),
    reject: (id: string, body: RefundRequestDecisionBody, o?: PostOptions) =>
      this.unwrap(this.api.POST('/v1/refund-requests/{id}/reject', { params: { path: { id }, header: this.idem(o) }, body })),
  };

  readonly subscriptions = {
    list: (query: QueryOf<'/v1/subscriptions'> = {}) => this.unwrap(this.api.GET('/v1/subscriptions', { params: { query } })),
    get: (id: string) => this.unwrap(this.api.GET('/v1/subscriptions/{id}', { params: { path: { id } } })),
    cancelPreview: (id: string) => this.unwrap(this.api.GET('/v1/subscriptions/{id}/cancel-preview', { params: { path: { id } } })),
    cancel: (id: string, body: CancelSubscriptionRequest, o?: PostOptions) =>
      this.unwrap(this.api.POST('/v1/subscriptions/{id}/cancel', { params: { path: { id }, header: this.idem(o) }, body })),
  };

  readonly portalSessions = {
    /** A link to the buyer portal for one buyer (and optionally one subscription). */
    create: (body: CreatePortalSessionRequest, o?: PostOptions) => this.unwrap(this.api.POST('/v1/portal-sessions', { params: { header: this.idem(o) }, body })),
  };

  readonly licenses = {
    list: (query: QueryOf<'/v1/licenses'> = {}) => this.unwrap(this.api.GET('/v1/licenses', { params: { query } })),
    get: (id: string) => this.unwrap(this.api.GET('/v1/licenses/{id}', { params: { path: { id } } })),
    signingKeys: () => this.unwrap(this.api.GET('/v1/licenses/signing-keys')),
  };
}
