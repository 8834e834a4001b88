import type { ApiError, ErrorCode } from './types.js';

/**
 * A non-2xx answer of the Commerce API. `code` is the API's error code (branch on it together with `status`);
 * `message` is the Korean explanation the API wrote; `details` carries field errors and the like. An answer that is
 * not an ApiError body (a proxy's HTML page, say) has the code `UNEXPECTED_RESPONSE`.
 */
export class CommerceApiError extends Error {
  override readonly name = 'CommerceApiError';
  readonly status: number;
  readonly code: ErrorCode | 'UNEXPECTED_RESPONSE';
  readonly details: Record<string, unknown> | undefined;
  /** The `Request-Id` of the answer: quote it when asking for support. */
  readonly requestId: string | null;

  constructor(status: number, body: unknown, requestId: string | null) {
    const api = isApiErrorBody(body) ? body : null;
    super(api?.message ?? `Unexpected answer from the Commerce API (HTTP ${status})`);
    this.status = status;
    this.code = api?.code ?? 'UNEXPECTED_RESPONSE';
    this.details = api?.details as Record<string, unknown> | undefined;
    this.requestId = requestId;
  }
}

function isApiErrorBody(body: unknown): body is ApiError {
  const b = body as Partial<ApiError> | null;
  return !!b && typeof b === 'object' && typeof b.code === 'string' && typeof b.message === 'string';
}
