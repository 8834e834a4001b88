import { ERROR_CATALOG } from './errors';
import { bidiMessage, lineControlMessage } from './text';

/**
 * The API's specific Korean messages, in one place (STYLE.md habit 1). ERROR_CATALOG (errors.ts) holds each code's
 * default message; this catalog holds the more specific ones a call site gives instead: an ApiError's `message`, a
 * field's message in VALIDATION_FAILED `details.fields`, and the refusal texts services return and the API (or a
 * hosted page built on the same service) sends. Sellers may match on these strings: change one only on purpose.
 * Messages that carry values are small functions; their output must stay byte for byte what it was.
 */
export const MESSAGES = {
  // Request validation: Ajv keyword errors turned into `details.fields` messages, and the JSON depth guard.
  validation: {
    required: '필수 항목입니다.',
    fieldNotAllowed: '허용되지 않는 필드입니다.',
    /** `jsonTypes` is Ajv's `params.type`: one JSON type or several joined by commas. */
    wrongType: (jsonTypes: string): string => {
      const t: Record<string, string> = { string: '문자열', integer: '정수', number: '숫자', boolean: '참/거짓 값', object: '객체', array: '배열', null: 'null' };
      return `${jsonTypes.split(',').map((x) => t[x] ?? x).join(' 또는 ')} 형식이어야 합니다.`;
    },
    minLength: (limit: number): string => `${limit}자 이상이어야 합니다.`,
    maxLength: (limit: number): string => `${limit}자 이하여야 합니다.`,
    minimum: (limit: number): string => `${limit} 이상이어야 합니다.`,
    maximum: (limit: number): string => `${limit} 이하여야 합니다.`,
    exclusiveMinimum: (limit: number): string => `${limit}보다 커야 합니다.`,
    minItems: (limit: number): string => `항목이 ${limit}개 이상이어야 합니다.`,
    /** Also used for too many properties (maxProperties). */
    maxItems: (limit: number): string => `항목이 ${limit}개 이하여야 합니다.`,
    badFormat: (format: string, minYear: number, maxYear: number): string => {
      const f: Record<string, string> = { email: '이메일', uri: 'URL', 'date-time': `날짜-시간(ISO 8601, ${minYear}~${maxYear}년)` };
      return `${f[format] ?? format} 형식이 올바르지 않습니다.`;
    },
    patternMismatch: '형식이 올바르지 않습니다.',
    nulCharacter: '허용되지 않는 NUL 문자(U+0000)가 포함되어 있습니다.',
    controlCharacter: '허용되지 않는 제어 문자(U+0001~U+001F, U+007F; 탭과 줄바꿈 제외)가 포함되어 있습니다.',
    loneSurrogate: '올바르지 않은 유니코드 문자(짝이 없는 서로게이트)가 포함되어 있습니다.',
    /** `allowed` lists the allowed values (comma-joined), or is undefined when Ajv did not name them. */
    valueNotAllowed: (allowed: string | undefined): string => `허용된 값이 아닙니다${allowed !== undefined ? ` (${allowed})` : ''}.`,
    shapeNotAllowed: '허용된 형식이 아닙니다.',
    invalidValue: '값이 올바르지 않습니다.',
    jsonTooDeep: (maxDepth: number): string => `JSON 중첩 깊이는 ${maxDepth}단계 이하여야 합니다.`,
  },

  // Transport: requests refused before a route's own schema runs (content type, body, URL, raw HTTP, headers, paging).
  http: {
    contentTypeNotJson: 'Content-Type은 application/json이어야 합니다.',
    emptyBody: '요청 본문이 비어 있습니다.',
    invalidJson: 'JSON 형식이 올바르지 않습니다.',
    malformedRequest: '요청 형식이 올바르지 않습니다.',
    malformedUrl: '요청 주소의 형식이 올바르지 않습니다.',
    malformedHttp: 'HTTP 요청의 형식이 올바르지 않습니다 (요청 줄, 헤더 또는 본문 구분).',
    idempotencyKeyRequired: 'Idempotency-Key 헤더가 필요합니다 (공백 제외 1~255자).',
    pageOutOfRange: (maxPage: number): string => `1 이상 ${maxPage} 이하의 정수여야 합니다.`,
    limitOutOfRange: '1 이상 100 이하의 정수여야 합니다.',
  },

  // Stores: the seller console's store settings (return-URL domains, provider, API key IPs, verification flag).
  stores: {
    nameHasLineControl: lineControlMessage('상점 이름'),
    nameHasBidiControl: bidiMessage('상점 이름'),
    testMailRecipientNotMember: '상점 대시보드 멤버의 이메일만 테스트 메일을 받을 수 있습니다.',
    testMailRecipientsTooMany: '테스트 메일은 20곳까지 받을 수 있습니다.',
    publicContactOperatorOnly: '공개 연락처 인증 여부는 운영자만 변경할 수 있습니다.',
    tooManyReturnUrlDomains: '도메인은 50개까지 등록할 수 있습니다.',
    returnUrlDomainInvalid: '도메인 형식이 올바르지 않습니다 (예: shop.example.com, localhost:3000).',
    simulatorNotInLive: '라이브 모드에서는 시뮬레이터를 사용할 수 없습니다.',
    // Buyers abroad (issue 41): PayPal is charged in USD at the store's fixed rate.
    usdRateInvalid: 'PayPal 환율은 1달러당 100원에서 100,000원 사이의 정수로 입력해 주세요.',
    paypalNeedsRate: 'PayPal을 켜려면 1달러당 원화 환율(usdKrwRate)을 함께 입력해 주세요.',
    tossWidgetClientKey: '결제위젯 연동 키(gck)는 사용할 수 없습니다. 토스페이먼츠 개발자센터의 API 개별 연동 키에서 클라이언트 키(test_ck_ 또는 live_ck_로 시작)를 입력해 주세요.',
    tossWidgetSecretKey: '결제위젯 연동 키(gsk)는 사용할 수 없습니다. 토스페이먼츠 개발자센터의 API 개별 연동 키에서 시크릿 키(test_sk_ 또는 live_sk_로 시작)를 입력해 주세요.',
    ipAllowlistEntryInvalid: 'IP 주소 또는 CIDR 형식이 올바르지 않습니다. 표준 표기(예: 10.1.2.3, 10.0.0.0/8, 2001:db8::/32)로 입력하세요.',
    // Toss keys, checked before they are stored (issue 20)
    tossClientKeyShape: '토스페이먼츠 클라이언트 키가 아닙니다. 개발자센터의 클라이언트 키(test_ck_… 또는 live_ck_…)를 입력해 주세요.',
    tossSecretKeyShape: '토스페이먼츠 시크릿 키가 아닙니다. 개발자센터의 시크릿 키(test_sk_… 또는 live_sk_…)를 입력해 주세요.',
    tossKeyKindsDiffer: '클라이언트 키와 시크릿 키의 종류가 다릅니다. 둘 다 테스트 키(test_)이거나 둘 다 라이브 키(live_)여야 합니다.',
    tossLiveModeNeedsLiveKey: '라이브 모드에는 라이브 키(live_ck_…, live_sk_…)를 입력해 주세요. 테스트 키로는 실제 결제가 이루어지지 않습니다.',
    tossTestModeNeedsTestKey: '테스트 모드에는 테스트 키(test_ck_…, test_sk_…)를 입력해 주세요. 라이브 키로는 실제 돈이 결제됩니다.',
    tossSecretKeyRefused: (code: string): string =>
      `토스페이먼츠가 이 시크릿 키를 거부했습니다 (${code}). 개발자센터의 시크릿 키를 빠짐없이 복사했는지 확인해 주세요. 키는 저장되지 않았습니다.`,
    tossBillingKeysInUse: (n: number): string =>
      `이 자동결제 키로 카드를 등록한 구독 ${n}건이 아직 진행 중이라 자동결제 시크릿 키를 지울 수 없습니다. 빌링키는 발급한 상점아이디(MID)에서만 쓸 수 있습니다.`,
    tossUnreachable: '토스페이먼츠에 연결하지 못해 시크릿 키를 확인하지 못했습니다. 키는 저장되지 않았습니다. 잠시 후 다시 저장해 주세요.',
  },

  // Business details (전자상거래법 제10조·제13조): the seller's identity shown on every hosted page.
  businessDetails: {
    /** Field names as the messages below say them. */
    labels: {
      companyName: '상호',
      representative: '대표자',
      mailOrderNumber: '통신판매업 신고번호',
      address: '사업장 주소',
    },
    required: (label: string): string => `${label}을(를) 입력해 주세요.`,
    tooLong: (label: string, max: number): string => `${label}은(는) ${max}자 이하로 입력해 주세요.`,
    businessNumberInvalid: '사업자등록번호가 올바르지 않습니다. 숫자 10자리(예: 123-45-67891)를 확인해 주세요.',
    supportPhoneInvalid: '고객센터 전화번호 형식이 올바르지 않습니다. (예: 02-1234-5678, 1588-1234)',
    supportEmailInvalid: '고객센터 이메일 주소 형식이 올바르지 않습니다.',
    supportContactRequired: '고객센터 전화번호나 이메일 중 하나는 입력해 주세요.',
  },

  // Catalog: a product's pricing and sale window, and the plan/interval a checkout picks.
  catalog: {
    oneTimeNeedsPrice: '일회성 상품에는 가격이 필요합니다.',
    oneTimeNoPlans: '일회성 상품에는 요금제를 둘 수 없습니다.',
    subscriptionPriceInPlans: '구독 상품의 가격은 요금제(pricing.plans)에 둡니다.',
    subscriptionNeedsPlans: '구독 상품에는 요금제가 하나 이상 필요합니다.',
    planNeedsPrice: '월간 또는 연간 가격 중 하나는 있어야 합니다.',
    duplicatePlanId: '요금제 id가 중복되었습니다.',
    saleEndsBeforeStart: '판매 종료 시각은 시작 시각보다 뒤여야 합니다.',
    oneTimeNoPlanId: '일회성 상품에는 planId를 보낼 수 없습니다.',
    oneTimeNoInterval: '일회성 상품에는 interval을 보낼 수 없습니다.',
    subscriptionNeedsPlanAndInterval: '구독 상품에는 planId와 interval이 함께 필요합니다.',
    unknownPlanId: '상품의 요금제(pricing.plans[].id)에 없는 planId입니다.',
    intervalNotOffered: '이 요금제는 선택한 결제 주기를 제공하지 않습니다.',
  },

  // Coupons: the console's coupon rules, and why a buyer's coupon code is refused at checkout.
  coupons: {
    validUntilBeforeFrom: '사용 종료 시각은 시작 시각보다 뒤여야 합니다.',
    percentOutOfRange: '정률 할인은 1~100(%) 사이여야 합니다.',
    productNotInStore: '이 상점·모드에 없는 상품입니다.',
    unknownCode: '존재하지 않는 쿠폰 코드입니다.',
    inactive: '사용할 수 없는 쿠폰입니다.',
    notYetValid: '아직 사용 기간이 시작되지 않은 쿠폰입니다.',
    expired: '사용 기간이 지난 쿠폰입니다.',
    notForProduct: '이 상품에는 사용할 수 없는 쿠폰입니다.',
    exhausted: '사용 한도가 모두 소진된 쿠폰입니다.',
  },

  // Checkout: session creation (live setup, metadata) and the refusals of a payment attempt.
  checkout: {
    /** A method for buyers abroad the store has not enabled (or a subscription, which they cannot pay). */
    methodNotOffered: '이 상품은 선택한 결제 수단으로 결제할 수 없습니다. 다른 결제 수단을 선택해 주세요.',
    /** The hosted page's coupon field after too many applications (its own limit, apart from payment attempts). */
    couponTriesLimited: (minutes: number): string => `쿠폰 입력 시도가 너무 많습니다. ${minutes}분 뒤에 다시 입력해 주세요. 쿠폰 없이 결제할 수는 있습니다.`,
    /** The buyer's 가상계좌 refund account (Toss's refundReceiveAccount), checked field by field. */
    refundBankRequired: '환불받을 은행을 선택해 주세요.',
    refundAccountNumberInvalid: '계좌번호는 숫자 8~20자리로 입력해 주세요. (- 없이)',
    refundHolderInvalid: '예금주를 60자 이내로 입력해 주세요.',
    /** A 현금영수증 the seller issues afterwards (and the buyer's choice on the payment page): the number for its type. */
    cashReceiptIncomeRequired: '현금영수증(소득공제)을 받을 휴대폰 번호나 카드 번호를 입력해 주세요.',
    cashReceiptIncomeInvalid: '소득공제용 현금영수증은 휴대폰 번호(예: 010-1234-5678)나 카드 번호(13~19자리)로 받을 수 있습니다.',
    cashReceiptExpenseRequired: '현금영수증(지출증빙)을 받을 사업자등록번호를 입력해 주세요.',
    cashReceiptExpenseInvalid: '사업자등록번호 10자리를 입력해 주세요. (예: 123-45-67890)',
    cashReceiptTypeInvalid: '현금영수증 종류를 다시 선택해 주세요.',
    /** 세금계산서 recipient fields (the payment page, the receipt page, the console): what to type, in Korean. */
    taxInvoiceBrnRequired: '세금계산서를 받을 사업자등록번호 10자리를 입력해 주세요.',
    taxInvoiceBrnInvalid: '사업자등록번호 10자리를 입력해 주세요. (예: 123-45-67890)',
    taxInvoiceBrnCheckDigit: '사업자등록번호가 올바르지 않습니다. 숫자를 다시 확인해 주세요. (검증번호 불일치)',
    taxInvoiceNameRequired: '상호(회사 이름)를 200자 이내로 입력해 주세요.',
    taxInvoiceRepresentativeRequired: '대표자 성명을 100자 이내로 입력해 주세요.',
    taxInvoiceEmailInvalid: '세금계산서를 받을 이메일 주소를 올바르게 입력해 주세요.',
    taxInvoiceCardRefused: '카드·간편결제는 카드 매출전표가 증빙이 되어 세금계산서를 발급하지 않습니다. 세금계산서가 필요하면 계좌이체나 가상계좌로 결제해 주세요.',
    /** What a 세금계산서 records when nothing was sent (shown to the seller as the provider's answer). */
    taxInvoiceOriginalNotIssued: '원본 세금계산서가 발급되지 않아 수정세금계산서를 발급하지 않았습니다.',
    taxInvoiceSupplierMissing: '상점의 사업자 정보가 없어 발급하지 못했습니다.',
    taxInvoiceProviderNotConfigured: '라이브 모드의 세금계산서 발급 서비스(PortOne)가 설정되지 않았습니다.',
    taxInvoiceSimulatedRefusal: '시뮬레이터: 공급받는자 이메일이 fail.test라 발급을 거절했습니다.',
    taxInvoiceWithCashReceipt: '현금영수증과 세금계산서는 함께 받을 수 없습니다. 하나만 선택해 주세요.',
    /** The payment page's separate recurring-charge consent (전자상거래법 제13조⑥) was not ticked: nothing is charged. */
    recurringConsentRequired: '정기결제에 동의해 주세요. 자동 결제 금액과 주기, 다음 결제일을 확인하고 정기결제 동의에 체크해야 결제할 수 있습니다.',
    /** A free-trial checkout charges nothing, so a first-payment coupon has nothing to discount. */
    trialAlreadyUsed: '이 상품의 무료 체험은 이미 이용하셨습니다. 무료 체험은 구매자(이메일·전화번호·카드)마다 한 번만 제공되며, 이번 신청은 결제되지 않았습니다.',
    customerEmailLocked: '이 결제의 이메일은 판매자가 지정해 바꿀 수 없습니다.',
    trialNeedsCard: '무료 체험은 체험 종료 후 결제할 카드를 등록해야 시작할 수 있습니다. 신용·체크카드를 선택해 주세요.',
    subscriptionNeedsCard: '구독은 매 결제일에 등록한 카드로 자동결제됩니다. 계좌이체·가상계좌로는 구독할 수 없으니 신용·체크카드나 간편결제를 선택해 주세요.',
    trialNoCoupon: '무료 체험에는 쿠폰을 사용할 수 없습니다. 체험 기간에는 결제되지 않습니다.',
    liveNeedsBusinessDetails:
      '라이브 결제를 받으려면 먼저 판매자 사업자 정보(상호, 대표자, 사업자등록번호, 통신판매업 신고번호, 주소, 고객센터 연락처)를 등록해야 합니다.',
    metadataNotObject: 'metadata는 객체여야 합니다.',
    metadataTooManyKeys: (maxKeys: number): string => `키는 ${maxKeys}개까지 허용됩니다.`,
    metadataKeyLength: (maxKeyLength: number): string => `키는 1~${maxKeyLength}자여야 합니다.`,
    metadataValueNotString: (key: string): string => `값은 문자열이어야 합니다 (키: ${key}).`,
    metadataValueTooLong: (maxValueLength: number, key: string): string => `값은 ${maxValueLength}자까지 허용됩니다 (키: ${key}).`,
    billingKeyUnknown: '카드 등록 결과를 확인하지 못했습니다. 잠시 후 다시 시도해 주세요.',
    amountChanged: '결제 금액이 변경되었습니다. 금액을 확인한 뒤 다시 결제해 주세요.',
    attemptStale: '결제 상태가 바뀌었습니다. 다시 시도해 주세요.',
    paymentNotApproved: '결제가 승인되지 않았습니다.',
  },

  // Refunds: outcomes recorded on a refund (and shown by the API) when the gateway could not be asked or disagreed.
  refunds: {
    /** PayPal orders: a won refund so small its dollar share rounds to nothing (src/payments/foreign.ts). */
    presentmentTooSmall: (minimum: string): string => `PayPal 결제는 미국 달러로 환불됩니다. 이 금액은 ${minimum} 미만이라 환불할 수 없습니다. 금액을 늘려 주세요.`,
    providerNotConfigured: '이 주문의 결제대행사 설정을 찾을 수 없어 환불을 요청하지 못했습니다.',
    providerCallFailed: '결제대행사 호출 중 오류가 발생했습니다.',
    gatewayBalanceDiffers: (theirs: number, ours: number): string =>
      `결제대행사의 환불 가능 잔액(${theirs.toLocaleString('ko-KR')}원)이 주문 기록(${ours.toLocaleString('ko-KR')}원)과 다릅니다. 상점관리자에서 한 취소가 있는지 확인해 주세요.`,
    gatewayTotalMismatch: (canceled: number, ours: number, amount: number): string =>
      `결제대행사 취소 합계(${canceled}원)가 환불 기록(${ours}원 + 이 환불 ${amount}원)과 맞지 않습니다. 결제대행사 관리 화면에서 확인해 주세요.`,
    interruptedChecking: '환불 처리 중 서버가 중단되어 결과를 확인하고 있습니다.',
    // Issue 41: 휴대폰 결제 and 상품권 refund rules (src/refunds/method-rules.ts).
    partialNotAllowed: (methodName: string, left: number): string =>
      `${methodName} 결제는 부분 환불을 할 수 없습니다. 남은 금액 ${left.toLocaleString('ko-KR')}원 전액으로만 환불할 수 있습니다.`,
    gatewayNotPartialCancelable: '결제대행사가 이 결제는 전액 취소만 가능하다고 답했습니다. 전액으로 다시 환불해 주세요.',
    phoneAccountRequired:
      '휴대폰 결제는 결제한 달(한국 시간)이 지나면 결제 취소가 되지 않아, 구매자 본인 계좌로 환불합니다. 구매자에게 영수증 페이지에서 환불 계좌(은행, 계좌번호, 예금주)를 입력해 달라고 요청해 주세요.',
  },

  // Reconciliation with the payment gateway: refusals of the day asked for, and why a run failed.
  reconciliation: {
    dateInvalid: '날짜는 YYYY-MM-DD 형식의 실제 날짜여야 합니다.',
    dateInFuture: '오늘(한국 시간) 이후의 날짜는 대사할 수 없습니다.',
    providerMissing: '이 모드의 토스페이먼츠 설정을 찾을 수 없습니다.',
    /** A rail that took this day's payments whose keys the mode no longer holds (the seller switched and removed them). */
    railMissing: (label: string): string => `이날 ${label}(으)로 결제된 주문이 있지만 이 모드에 ${label} 키가 없어 ${label}의 거래를 조회하지 못했습니다. 키를 다시 저장한 뒤 대사를 실행해 주세요.`,
    gatewayFailed: (code: string, message: string): string => `토스페이먼츠 거래 조회가 실패했습니다 (${code}: ${message}).`,
    gatewayUnknown: (message: string): string => `토스페이먼츠 거래 조회에 응답이 없습니다: ${message}`,
  },

  // The 부가세 report's period: a 과세기간/quarter code, or a custom range of KST days.
  tax: {
    periodInvalid: '기간은 2026-1(1기), 2026-2(2기) 또는 2026-Q1~Q4(분기) 형식이어야 합니다.',
    dateInvalid: '날짜는 YYYY-MM-DD 형식의 실제 날짜여야 합니다.',
    periodOrRange: 'period 또는 from과 to 중 하나만 지정하세요.',
    rangeIncomplete: 'from과 to를 함께 지정하세요.',
    rangeOrder: '종료일(to)은 시작일(from)보다 뒤여야 합니다.',
    rangeTooLong: '기간은 최대 1년(366일)까지 조회할 수 있습니다.',
  },

  // Refund requests: the automatic approval's reason, and the buyer's receipt page refusals (filing, cancelling).
  refundRequests: {
    /** The buyer's reason carries a bidi control character (it would reorder what the seller reads). */
    reasonHasBidiControl: bidiMessage('사유'),
    autoApproved: '법정 청약철회 기간의 환불 요청이 3영업일 안에 처리되지 않아 자동으로 승인되었습니다.',
    fullyRefunded: '전액 환불된 주문입니다.',
    notPaid: '결제가 완료된 주문만 환불을 요청할 수 있습니다.',
    alreadyPending: '이미 처리 중인 환불 요청이 있습니다.',
    settled: '정산이 끝난 주문이라 이 페이지에서 환불을 요청할 수 없습니다. 판매자에게 직접 문의해 주세요.',
    refundInFlight: '이 주문의 환불이 처리 중입니다. 잠시 후 다시 확인해 주세요.',
    noneLeft: '환불 가능한 금액이 남아 있지 않습니다.',
    amountTooSmall: '환불 요청 금액은 1원 이상이어야 합니다.',
    amountAboveRefundable: (won: number): string => `환불 요청 금액은 환불 가능한 금액(${won.toLocaleString('ko-KR')}원) 이하여야 합니다.`,
    reasonTooLong: (max: number): string => `사유는 ${max}자 이하로 입력해 주세요.`,
    nothingToCancel: '취소할 환불 요청이 없습니다.',
    approvingCannotCancel: '판매자가 승인하여 환불이 처리 중이라 취소할 수 없습니다.',
  },

  // Subscriptions: card update, plan change, the buyer portal, immediate cancellation, renewals and the test clock.
  subscriptions: {
    cardRegistrationFailed: (gatewayMessage: string): string => `카드를 등록하지 못했습니다: ${gatewayMessage}`,
    planNotInProduct: '상품에 없는 플랜입니다.',
    intervalNotOffered: '이 플랜은 선택한 결제 주기를 제공하지 않습니다.',
    alreadyOnPlan: '이미 이용 중인 플랜입니다.',
    planOfferGone: '동의를 기다리는 요금제 변경 제안이 없거나 기한이 지났습니다.',
    trialConsentNotOpen: '체험 종료 30일 전부터 체험 종료 전까지 유료 전환에 동의할 수 있습니다.',
    paymentInProgress: '이 구독의 결제가 진행 중입니다. 잠시 후 다시 시도해 주세요.',
    portalIdentityRequired: 'buyerEmail 또는 subscriptionId 중 하나는 필요합니다.',
    buyerEmailInvalid: 'buyerEmail이 이메일 형식이 아닙니다.',
    noActiveSubscription: '이 구매자의 진행 중인 구독을 찾을 수 없습니다.',
    chargeInProgress: '이 구독의 결제가 처리 중입니다. 결제 결과가 확인된 뒤 다시 시도해 주세요.',
    /** Why an immediate cancellation with refund is blocked (the preview's `blockedReason`). */
    immediateBlocked: {
      ALREADY_ENDED: '이미 종료된 구독입니다.',
      REFUND_REQUEST_PENDING: '처리 중인 환불 요청 또는 환불이 있어 지금은 즉시 해지할 수 없습니다.',
      SUBSCRIPTION_REFUND_SETTLED: '환불 대상 주문이 정산에 포함되어 있어 즉시 해지 환불을 할 수 없습니다.',
    },
    checkoutNotConfigured: ERROR_CATALOG.CHECKOUT_NOT_CONFIGURED.message,
    noBillingKey: '등록된 결제 카드가 없습니다.',
    subscriptionEnded: '종료된 구독에는 결제하지 않습니다.',
    testClockRange: '0보다 크고 3,660일 이하만큼 앞으로 이동할 수 있습니다.',
  },

  // Plan price changes for existing subscribers (issue 21): the console's scheduling rules and the portal's consent.
  priceChanges: {
    noticeTooShort: '적용일은 지금부터 30일 이상 뒤여야 합니다 (전자상거래법 시행령: 정기결제 금액 인상은 30일 전에 알리고 동의를 받아야 합니다).',
    noPrice: 'monthlyPrice 또는 yearlyPrice 중 하나는 있어야 합니다.',
    notSubscription: '구독 상품의 요금제만 가격을 바꿀 수 있습니다.',
    unknownPlan: '상품의 요금제(pricing.plans[].id)에 없는 planId입니다.',
    intervalNotOffered: '이 요금제는 이 결제 주기를 제공하지 않습니다.',
    notOffered: '이 구독에 동의할 가격 변경이 없습니다.',
  },

  // Licenses: revoked licenses, and the license app's request nonce.
  licenses: {
    alreadyRevoked: '이미 폐기된 라이선스입니다.',
    revokedCannotReissue: '폐기된 라이선스는 재발급할 수 없습니다.',
    nonceInvalid:
      'nonce는 16바이트 이상을 담은 hex(짝수 자리, 32자 이상) 또는 base64/base64url(패딩 앞 22자 이상, `=` 최대 2개) 문자열이어야 합니다.',
  },

  // Webhooks: a refused endpoint URL, why an endpoint was disabled, and the delivery log's omitted loopback answer.
  webhooks: {
    /** A PortOne webhook whose Standard Webhooks signature does not verify with the mode's secret. */
    gatewaySignatureInvalid: '웹훅 서명을 확인할 수 없습니다.',
    descriptionHasBidiControl: bidiMessage('설명'),
    urlRefused:
      `${ERROR_CATALOG.WEBHOOK_URL_NOT_ALLOWED.message} 공개된 http(s) 주소만 받을 수 있습니다. ` +
      '개발 중 이 컴퓨터(localhost)에서 테스트 모드 웹훅을 받으려면 서버를 WEBHOOK_ALLOW_LOOPBACK=true 와 WEBHOOK_LOOPBACK_PORTS=<포트> 설정으로 시작하세요.',
    /** A loopback URL (localhost, 127.x, [::1]) on a port the operator did not list, in a mode that allows loopback. */
    loopbackPortNotListed: (port: number, listed: readonly number[]): string =>
      `${ERROR_CATALOG.WEBHOOK_URL_NOT_ALLOWED.message} 포트 ${port}은(는) WEBHOOK_LOOPBACK_PORTS(${listed.join(',')})에 없습니다. ` +
      `이 포트로 받으려면 서버를 WEBHOOK_LOOPBACK_PORTS=${[...listed, port].join(',')} 설정으로 다시 시작하세요.`,
    loopbackResponseOmitted: '(생략됨: 루프백 주소로 보낸 전달의 응답 본문은 기록하지 않습니다)',
    disabled: {
      manual: '판매자가 비활성화했습니다.',
      gone: '엔드포인트가 410 Gone으로 응답하여 자동으로 비활성화되었습니다.',
      failing: '5일 넘게 모든 전송이 실패하여 자동으로 비활성화되었습니다.',
    },
  },
} as const;
