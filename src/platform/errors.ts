/**
 * The one closed list of error codes. Each code has exactly one HTTP status and one Korean message.
 * `satisfies Record<…>` makes the compiler reject a code without a status or message.
 * Codes marked "extension" are not in the public contract's list; they cover cases the contract leaves
 * open (oversized bodies, the seller console) and are documented in the OpenAPI documents.
 */
export const ERROR_CATALOG = {
  // ---- contract codes ----
  BAD_REQUEST: { status: 400, message: '요청 값이 올바르지 않습니다.' },
  VALIDATION_FAILED: { status: 400, message: '요청 형식이 올바르지 않습니다.' },
  CHECKOUT_URL_INVALID: { status: 400, message: '돌아갈 주소(URL)의 형식이 올바르지 않습니다. http 또는 https 절대 주소여야 합니다.' },
  METADATA_INVALID: { status: 400, message: 'metadata는 문자열 값만 가진 평평한 객체여야 하며 허용된 크기를 넘을 수 없습니다.' },
  REFUND_AMOUNT_EXCEEDS: { status: 400, message: '승인 금액이 현재 환불 가능한 금액보다 큽니다.' },
  REFUND_AMOUNT_INVALID: { status: 400, message: '환불 금액은 0보다 커야 합니다.' },
  REFUND_EXCEEDS: { status: 400, message: '환불 금액이 남은 환불 가능 금액보다 큽니다.' },
  REFUND_REASON_REQUIRED: { status: 400, message: '보류 또는 거절에는 사유가 필요합니다.' },
  RETURN_URL_NOT_ALLOWED: { status: 400, message: '돌아갈 주소의 도메인이 허용 목록에 없습니다.' },
  SUBSCRIPTION_REFUND_AMOUNT_INVALID: { status: 400, message: '구독 환불 승인 금액이 올바르지 않습니다.' },
  API_KEY_INVALID: { status: 401, message: 'API 키가 올바르지 않습니다.' },
  API_KEY_IP_NOT_ALLOWED: { status: 403, message: '이 API 키는 요청한 IP 주소에서 사용할 수 없습니다.' },
  API_KEY_SCOPE_MISSING: { status: 403, message: 'API 키에 필요한 권한(scope)이 없습니다.' },
  NOT_FOUND: { status: 404, message: '요청한 리소스를 찾을 수 없습니다.' },
  CHECKOUT_SESSION_NOT_FOUND: { status: 404, message: '결제 세션을 찾을 수 없습니다.' },
  LICENSE_NOT_FOUND: { status: 404, message: '라이선스를 찾을 수 없습니다.' },
  ORDER_NOT_FOUND: { status: 404, message: '주문을 찾을 수 없습니다.' },
  PRODUCT_NOT_FOUND: { status: 404, message: '상품을 찾을 수 없습니다.' },
  REFUND_REQUEST_NOT_FOUND: { status: 404, message: '환불 요청을 찾을 수 없습니다.' },
  SUBSCRIPTION_NOT_FOUND: { status: 404, message: '구독을 찾을 수 없습니다.' },
  ALREADY_CANCELED: { status: 409, message: '이미 기간 종료 시 해지가 예약되어 있습니다.' },
  ALREADY_ENDED: { status: 409, message: '이미 종료된 구독입니다.' },
  ENDED: { status: 409, message: '판매가 종료된 상품입니다.' },
  NOT_STARTED: { status: 409, message: '아직 판매가 시작되지 않은 상품입니다.' },
  PRODUCT_ARCHIVED: { status: 409, message: '보관 처리되어 판매하지 않는 상품입니다.' },
  SOLD_OUT: { status: 409, message: '품절된 상품입니다.' },
  PUBLIC_CONTACT_VERIFICATION_REQUIRED: { status: 409, message: '상점의 공개 연락처 인증이 필요합니다.' },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, message: '같은 Idempotency-Key의 요청이 아직 처리 중입니다. 잠시 후 같은 키와 같은 요청으로 다시 시도해 주세요.' },
  IDEMPOTENCY_KEY_CONFLICT: { status: 409, message: '같은 Idempotency-Key로 다른 요청이 이미 처리되었습니다.' },
  REFUND_AMOUNT_MISMATCH: { status: 409, message: '승인 금액이 요청 금액과 다릅니다. 차액을 명시적으로 승인해야 합니다.' },
  REFUND_IN_PROGRESS: { status: 409, message: '이 주문의 환불이 처리 중입니다.' },
  REFUND_NONE_LEFT: { status: 409, message: '환불 가능한 금액이 남아 있지 않습니다.' },
  REFUND_NOT_PAID: { status: 409, message: '결제 완료 상태의 주문만 환불할 수 있습니다.' },
  REFUND_REQUEST_NOT_ACTIONABLE: { status: 409, message: '현재 상태의 환불 요청은 승인, 보류 또는 거절할 수 없습니다.' },
  REFUND_REQUEST_PENDING: { status: 409, message: '처리 중인 환불 요청이 있습니다.' },
  REFUND_SETTLED: { status: 409, message: '정산에 포함된 주문은 환불할 수 없습니다.' },
  // extension (issue 32): a deposited 가상계좌 can only be refunded to the buyer's own account, which they give on the receipt page
  REFUND_ACCOUNT_REQUIRED: { status: 409, message: '가상계좌 결제는 구매자의 환불 계좌(은행, 계좌번호, 예금주)가 있어야 환불할 수 있습니다. 구매자에게 영수증 페이지에서 환불 계좌를 입력해 달라고 요청해 주세요.' },
  REFUND_PARTIAL_NOT_ALLOWED: { status: 409, message: '이 결제 수단은 부분 환불을 할 수 없습니다. 남은 금액 전액으로 환불해 주세요.' },
  REFUND_STATUTORY_LOCKED: { status: 409, message: '법정 청약철회 기간 중인 요청은 현재 운영자가 처리할 수 없습니다.' },
  SUBSCRIPTION_REFUND_NONE_LEFT: { status: 409, message: '구독 주문에 환불 가능한 금액이 남아 있지 않습니다.' },
  SUBSCRIPTION_REFUND_SETTLED: { status: 409, message: '즉시 해지 환불 대상 주문이 정산에 포함되어 있습니다.' },
  MAX_ACTIVATIONS_REACHED: { status: 409, message: '라이선스의 최대 활성화 수에 도달했습니다. 기존 기기를 먼저 비활성화해 주세요.' },
  RATE_LIMITED: { status: 429, message: '호출 한도를 초과했습니다. Retry-After 초 뒤에 다시 시도해 주세요.' },
  LICENSE_LOOKUP_BLOCKED: { status: 429, message: '라이선스 조회가 일시적으로 제한되었습니다. Retry-After 초 뒤에 다시 시도해 주세요.' },
  LICENSE_RATE_LIMITED: { status: 429, message: '라이선스 API 호출 한도를 초과했습니다. Retry-After 초 뒤에 다시 시도해 주세요.' },
  INTERNAL_ERROR: { status: 500, message: '요청을 처리하는 중 오류가 발생했습니다.' },
  CHECKOUT_NOT_CONFIGURED: { status: 500, message: '상점의 결제 설정이 완료되지 않았습니다.' },
  PG_REFUND_AMBIGUOUS: { status: 502, message: '결제대행사의 환불 결과를 알 수 없습니다. 환불되었을 수 있으니 상태를 확인한 뒤 다시 시도해 주세요.' },
  PG_REFUND_FAILED: { status: 502, message: '결제대행사가 환불을 처리하지 못했습니다.' },

  // ---- extensions: transport ----
  PAYLOAD_TOO_LARGE: { status: 413, message: '요청 본문이 너무 큽니다.' },
  NOT_IMPLEMENTED: { status: 501, message: '아직 제공되지 않는 기능입니다.' },
  SERVICE_UNAVAILABLE: { status: 503, message: '일시적으로 서비스를 이용할 수 없습니다. Retry-After 초 뒤에 다시 시도해 주세요.' },

  // ---- extensions: seller console (/admin/v1) ----
  ADMIN_UNAUTHORIZED: { status: 401, message: '관리자 인증 정보가 올바르지 않습니다.' },
  ADMIN_FORBIDDEN: { status: 403, message: '이 작업을 수행할 권한이 없습니다.' },
  API_KEY_NOT_FOUND: { status: 404, message: 'API 키를 찾을 수 없습니다.' },
  API_KEY_NOT_ACTIVE: { status: 409, message: '이미 폐기되었거나 교체된 API 키입니다.' },
  // refunds / settlement (issue 9)
  REFUND_NOT_FOUND: { status: 404, message: '환불 기록을 찾을 수 없습니다.' },
  REFUND_NOT_UNKNOWN: { status: 409, message: '결과를 알 수 없는(unknown) 환불만 직접 확정할 수 있습니다.' },
  SETTLEMENT_NOT_FOUND: { status: 404, message: '정산 회차를 찾을 수 없습니다.' },
  SETTLEMENT_EMPTY: { status: 409, message: '정산할 주문이 없습니다. 청약철회 기간이 지난 결제 완료 주문만 정산됩니다.' },
  // reconciliation with the payment gateway (issue 20)
  RECONCILIATION_NOT_FOUND: { status: 404, message: '대사 기록을 찾을 수 없습니다.' },
  RECONCILIATION_NOT_AVAILABLE: { status: 409, message: '이 모드에는 토스페이먼츠 시크릿 키가 설정되어 있지 않아 대사를 실행할 수 없습니다.' },
  RECONCILIATION_IN_PROGRESS: { status: 409, message: '같은 날짜의 대사가 이미 진행 중입니다. 끝난 뒤 다시 실행해 주세요.' },
  // catalog (issue 3)
  COUPON_NOT_FOUND: { status: 404, message: '쿠폰을 찾을 수 없습니다.' },
  COUPON_CODE_TAKEN: { status: 409, message: '이미 사용 중인 쿠폰 코드입니다.' },
  // webhooks (issue 4)
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, message: '웹훅 엔드포인트를 찾을 수 없습니다.' },
  WEBHOOK_URL_NOT_ALLOWED: { status: 400, message: '허용되지 않는 웹훅 주소입니다.' },
  EVENT_NOT_FOUND: { status: 404, message: '이벤트를 찾을 수 없습니다.' },
  WEBHOOK_ENDPOINT_DISABLED: { status: 409, message: '비활성화된 웹훅 엔드포인트입니다. 먼저 활성화해 주세요.' },
  WEBHOOK_MODE_MISMATCH: { status: 409, message: '이벤트와 웹훅 엔드포인트의 모드(live/test)가 다릅니다.' },
  WEBHOOK_EVENT_NOT_RESENDABLE: { status: 409, message: 'license.issue 이벤트는 라이선스 발급 과정에서만 전송되며 다시 보낼 수 없습니다.' },
  // licenses (issue 5)
  SIGNING_KEY_NOT_FOUND: { status: 404, message: '서명 키를 찾을 수 없습니다.' },
  LICENSE_NOT_ACTIVE: { status: 409, message: '활성 상태가 아닌 라이선스입니다.' },
  // subscriptions (issue 10): the portal's card update and plan change, the console's test clock
  CARD_UPDATE_FAILED: { status: 402, message: '카드를 등록하지 못했습니다. 카드 정보를 확인하거나 다른 카드로 다시 시도해 주세요.' },
  PLAN_CHANGE_INVALID: { status: 400, message: '변경할 수 없는 플랜입니다. 상품에 있는 다른 플랜과 결제 주기를 선택해 주세요.' },
  SUBSCRIPTION_PAYMENT_FAILED: { status: 402, message: '차액 결제가 승인되지 않았습니다. 플랜은 바뀌지 않았습니다.' },
  SUBSCRIPTION_PAYMENT_PENDING: { status: 502, message: '결제사의 결제 결과를 아직 알 수 없습니다. 결과가 확인되면 반영됩니다.' },
  SUBSCRIPTION_NOT_ACTIVE: { status: 409, message: '결제가 밀린 구독은 카드를 먼저 변경해 주세요.' },
  TEST_MODE_ONLY: { status: 409, message: '테스트 모드에서만 사용할 수 있는 기능입니다.' },
  CASH_RECEIPT_EXISTS: { status: 409, message: '이 주문에는 이미 현금영수증이 있습니다. 다시 발급할 수 없습니다.' },
  CASH_RECEIPT_NOT_ALLOWED: { status: 409, message: '현금영수증은 결제 완료된 계좌이체·가상계좌 주문에 환불되지 않은 금액이 남아 있을 때만 발급할 수 있습니다.' },
  PG_CASH_RECEIPT_FAILED: { status: 502, message: '결제대행사가 현금영수증을 발급하지 못했습니다.' },
  PG_CASH_RECEIPT_AMBIGUOUS: { status: 502, message: '현금영수증 발급 결과를 아직 알 수 없습니다. 같은 요청을 다시 보내면 같은 발급으로 확인하며, 두 번 발급되지 않습니다.' },
  // 세금계산서 for business buyers (src/tax/invoices/): one evidence per sale, only for bank payments, within the deadline
  TAX_INVOICE_NOT_FOUND: { status: 404, message: '세금계산서를 찾을 수 없습니다.' },
  TAX_INVOICE_CARD_PAYMENT: { status: 409, message: '카드·간편결제 주문에는 세금계산서를 발급하지 않습니다. 카드 매출전표가 증빙이 됩니다 (부가가치세법 제33조 ②).' },
  TAX_INVOICE_NOT_ALLOWED: { status: 409, message: '세금계산서는 결제 완료된(또는 입금 대기 중인) 계좌이체·가상계좌 주문에 환불되지 않은 금액이 남아 있을 때만 요청할 수 있습니다.' },
  TAX_INVOICE_EXISTS: { status: 409, message: '이 주문에는 이미 세금계산서가 요청되었거나 발급되었습니다.' },
  TAX_INVOICE_CASH_RECEIPT_EXISTS: { status: 409, message: '이 주문에는 현금영수증이 있어 세금계산서를 발급할 수 없습니다. 한 거래에는 둘 중 하나만 발급됩니다.' },
  CASH_RECEIPT_TAX_INVOICE_EXISTS: { status: 409, message: '이 주문에는 세금계산서가 요청되었거나 발급되어 현금영수증을 발급할 수 없습니다. 한 거래에는 둘 중 하나만 발급됩니다.' },
  TAX_INVOICE_DEADLINE_PASSED: { status: 409, message: '세금계산서 발급 기한(공급일이 속한 달의 다음 달 10일)이 지났습니다.' },
  TAX_INVOICE_SUPPLIER_MISSING: { status: 409, message: '상점의 사업자 정보(상호, 대표자, 사업자등록번호, 연락 이메일)가 없어 세금계산서를 발급할 수 없습니다.' },
  TAX_INVOICE_NOT_ISSUABLE: { status: 409, message: '요청 상태(requested) 또는 발급 실패(failed) 상태의 세금계산서만 발급할 수 있습니다.' },
  SUBSCRIPTION_CHARGE_NOT_FOUND: { status: 404, message: '구독 결제 기록을 찾을 수 없습니다.' },
  SUBSCRIPTION_CHARGE_NOT_UNKNOWN: { status: 409, message: '결과를 알 수 없어 확인이 필요한(needs_attention) 구독 결제만 직접 확정할 수 있습니다.' },
  // plan price changes for existing subscribers (issue 21)
  PRICE_CHANGE_NOT_FOUND: { status: 404, message: '가격 변경 예약을 찾을 수 없습니다.' },
  PRICE_CHANGE_PENDING: { status: 409, message: '이 요금제에는 아직 적용되지 않은 가격 변경 예약이 있습니다. 먼저 그 예약을 취소해 주세요.' },
  PRICE_CHANGE_NOT_CANCELABLE: { status: 409, message: '적용일이 지났거나 이미 취소된 가격 변경은 취소할 수 없습니다.' },
  // protocol-level refusals (issue 8): answered on the raw socket before any route runs
  HEADERS_TOO_LARGE: { status: 431, message: '요청 헤더가 너무 큽니다 (최대 16KB).' },
  REQUEST_TIMEOUT: { status: 408, message: '요청을 제시간에 다 받지 못했습니다. 다시 시도해 주세요.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

export type ErrorDetails = Record<string, unknown>;

export interface FieldError {
  field: string;
  message: string;
}

/**
 * A coded error. `message` is what the client sees (Korean, from the catalog unless overridden);
 * `internal` is for logs only and never reaches a client.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly details?: ErrorDetails;
  readonly headers?: Record<string, string>;
  readonly internal?: string;

  constructor(
    code: ErrorCode,
    opts: { message?: string; details?: ErrorDetails; headers?: Record<string, string>; internal?: string; cause?: unknown } = {},
  ) {
    super(opts.message ?? ERROR_CATALOG[code].message, { cause: opts.cause });
    this.name = 'ApiError';
    this.code = code;
    this.statusCode = ERROR_CATALOG[code].status;
    this.details = opts.details;
    this.headers = opts.headers;
    this.internal = opts.internal;
  }

  toBody(): { statusCode: number; code: ErrorCode; message: string; details?: ErrorDetails } {
    const body: { statusCode: number; code: ErrorCode; message: string; details?: ErrorDetails } = {
      statusCode: this.statusCode,
      code: this.code,
      message: this.message,
    };
    if (this.details !== undefined) body.details = this.details;
    return body;
  }
}

export function validationError(fields: FieldError[]): ApiError {
  return new ApiError('VALIDATION_FAILED', { details: { fields } });
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOG[code].status;
}
