import type { FastifyInstance } from 'fastify';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import { FAVICON_SVG, LOGO_SVG, PRODUCT_NAME } from './brand';
import { ApiErrorSchema } from './http/schemas';
import { SCOPES } from './http/route';
import { ERROR_CODES } from './errors';
import { HEADERS, SchemaRegistry, okDescription, responseHeaders } from './openapi-components';

type Doc = Record<string, any>;

const V1_INFO = {
  title: 'Commerce API',
  version: '1.0.0',
  summary: 'Payments, subscriptions, refunds and license keys for Korean sellers of digital products',
  contact: { name: 'Commerce API' },
  license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  description:
    'Payment and licensing backend for sellers of digital products and subscriptions in Korea. ' +
    'Server endpoints authenticate with `Authorization: Bearer svc_live_…|svc_test_…`; every POST except the license app API requires `Idempotency-Key`. ' +
    'Errors are ApiError bodies `{ statusCode, code, message, details? }` with Korean messages; `ApiError.code` lists the codes of this document\'s operations only, and `details` is one of the three shapes of the contract. ' +
    'Besides its own errors every operation declares the answers given before it runs: 408 REQUEST_TIMEOUT (the request did not arrive in time), 431 HEADERS_TOO_LARGE (headers over 16 KB), 413 PAYLOAD_TOO_LARGE (a body over the size limit, operations that take one), 500 INTERNAL_ERROR and 503 SERVICE_UNAVAILABLE (database unreachable or the server shutting down; `Retry-After`). ' +
    'Fields without a value are `null`, never omitted.',
};

const ADMIN_INFO = {
  title: 'Commerce API — seller console',
  version: '1.0.0',
  summary: "The seller's console API: store, keys, catalog, coupons, webhooks, events, licenses",
  contact: { name: 'Commerce API' },
  license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  description:
    'The seller side of the service: stores, API keys, settings, products, coupons, webhook endpoints, events, licenses. ' +
    'Authenticate with the store owner token `Authorization: Bearer own_…` (shown once when the store is created). ' +
    'Creating a store needs the operator token (`ADMIN_TOKEN`).',
};

/** Extra top-level OpenAPI sections contributed by modules (e.g. the `webhooks` section with event payloads). */
export const openapiExtras: { v1Webhooks: Record<string, unknown> } = { v1Webhooks: {} };

/** What each tag groups, shown as the sections of the reference. A tag used by a route must be described here. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Products: 'The catalog: one-time products with a price, subscriptions with monthly and yearly plans.',
  Checkout: 'Checkout sessions: create one on your server, send the buyer to its `url` (the hosted payment page), read its outcome.',
  Orders: 'Orders: one per successful payment (first purchases, renewals, plan-change differences), with coupon, refunds and licenses.',
  Refunds: 'Refunds of paid orders, full or partial, through the gateway that took the payment.',
  'Refund requests': "Buyers' refund and withdrawal requests from the portal, decided by the seller (approve, hold, reject).",
  Subscriptions: 'Subscriptions: periods, renewals, cancellation with a preview of the refund, the buyer portal.',
  'License app API': 'Called by your app on the buyer\'s device (no API key): activate, deactivate and verify a license key; answers are signed.',
  Licenses: 'License keys issued for paid orders, their activations and status.',
  Meta: 'This machine-readable description.',
  Store: 'The store, its owner token and its per-mode settings (return-URL allow-list, payment provider).',
  'API keys': 'Server API keys: scopes, IP allow-list, product range, rotation with a grace period.',
  Coupons: 'Coupons: fixed or percent discounts, limits and validity, per mode.',
  Settlement: 'Settlement rounds: what was paid out for which orders.',
  Tax: "The 부가세 신고 figures: a period's sales by evidence (세금계산서, 신용카드, 현금영수증, 기타, 해외) with 공급가액 and 세액, the lines behind them, and a CSV.",
  'Tax invoices': '세금계산서 for business buyers who paid by 계좌이체 or 가상계좌: the documents (and the 수정세금계산서 refunds cause) with the provider\'s answer, and issuing them.',
  Reconciliation: "Daily reconciliation with Toss Payments: a KST day of Toss's transactions against this store's orders and refunds, with each difference.",
  'Subscriptions (console)': "The seller's view of subscriptions: lists, plan changes, test clocks.",
  'License signing keys': 'The Ed25519 keys that sign license answers (operator token).',
  Webhooks: 'Webhook endpoints that receive signed events (Standard Webhooks), their secrets and test deliveries.',
  Events: 'The event log: every event with its deliveries and attempts; resend one.',
  Audit: "The store's audit log: every state-changing action of members (dashboard), the owner token (console) and the operator (CLI), with who, when, what and from where.",
};

/**
 * The contract's three shapes of `ApiError.details` (spec, Error body), mutually exclusive so exactly one matches:
 * VALIDATION_FAILED's `fields` (no `required` key), API_KEY_SCOPE_MISSING's `required` (no `fields` key), and a free
 * object holding neither (an empty object included). Documented only: the serializer keeps the loose object, so an
 * unexpected details value can never turn an answer into a 500 (test/platform/openapi-errors.test.ts checks the
 * bodies the service sends against these shapes).
 */
const DETAILS_SCHEMAS: Record<string, Doc> = {
  ValidationErrorDetails: {
    type: 'object',
    description: 'With `VALIDATION_FAILED`: every failing field. A missing or invalid `Idempotency-Key` is the field `Idempotency-Key`.',
    required: ['fields'],
    additionalProperties: false,
    properties: {
      fields: {
        type: 'array',
        items: {
          type: 'object',
          required: ['field', 'message'],
          additionalProperties: false,
          properties: {
            field: { type: 'string', description: 'The field, dotted (`customer.email`), or the part (`body`, `query`, a header name)' },
            message: { type: 'string', description: 'Korean explanation for this field' },
          },
        },
      },
    },
  },
  ScopeErrorDetails: {
    type: 'object',
    description: 'With `API_KEY_SCOPE_MISSING`: the scopes the API key lacks for this operation.',
    required: ['required'],
    additionalProperties: false,
    properties: { required: { type: 'array', items: { type: 'string', enum: [...SCOPES] } } },
  },
  OtherErrorDetails: {
    type: 'object',
    description: 'With any other code: a free object without `fields` or `required` keys, possibly empty (e.g. `retryable`).',
    propertyNames: { not: { enum: ['fields', 'required'] } },
    properties: { retryable: { type: 'boolean', description: '`true` when retrying the same request later may succeed' } },
    additionalProperties: true,
  },
};

/**
 * The error body of one document: its `code` lists the codes its own operations declare (`x-error-codes`, from
 * each route's `errors` and the platform's), so a client of /v1 never sees the console's codes, and the reverse.
 */
function errorBody(codes: Set<string>): Doc {
  const { description: _d, ...schema } = JSON.parse(JSON.stringify(ApiErrorSchema));
  return {
    ...schema,
    description: "The one error body of every answer that is not a success. Branch on `code` together with the HTTP status; this document's `code` lists exactly the codes its operations can answer, each operation's own in its error responses' descriptions.",
    properties: {
      ...schema.properties,
      code: { ...schema.properties.code, enum: ERROR_CODES.filter((c) => codes.has(c)) },
      details: {
        description: 'Omitted, or one of three shapes (spec, Error body): `fields` for VALIDATION_FAILED, `required` for API_KEY_SCOPE_MISSING, a free object otherwise.',
        oneOf: Object.keys(DETAILS_SCHEMAS).map((name) => ({ $ref: `#/components/schemas/${name}` })),
      },
    },
  };
}
const ERROR_BODY = errorBody(new Set(ERROR_CODES));

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/**
 * Names the schemas, declares the headers and describes the responses of one document's paths (see
 * openapi-components.ts), and returns the components and tags the document needs.
 */
function finish(paths: Doc, registry: SchemaRegistry): { schemas: Doc; headers: Doc; tags: Doc[] } {
  const used = new Set<string>();
  const tags = new Set<string>();
  for (const [path, item] of Object.entries(paths) as [string, Doc][]) {
    for (const [method, operation] of Object.entries(item) as [string, Doc][]) {
      if (!HTTP_METHODS.has(method)) continue;
      for (const t of operation.tags ?? []) tags.add(t);
      if (operation.requestBody) operation.requestBody = registry.hoist(operation.requestBody, used);
      if (operation.parameters) operation.parameters = registry.hoist(operation.parameters, used);
      for (const [status, response] of Object.entries(operation.responses ?? {}) as [string, Doc][]) {
        const content = response.content?.['application/json'];
        if (Number(status) >= 400 && content?.schema?.title === 'ApiError') {
          // The codes this operation can answer with this status are the response's description.
          content.schema = { $ref: '#/components/schemas/ApiError' };
          used.add('ApiError');
        } else if (response.content) {
          response.content = registry.hoist(response.content, used);
        }
        if (response.description === 'Default Response') {
          response.description = okDescription(operation, status, response.content?.['application/json']?.schema, registry.components(used));
        }
        const headers = responseHeaders(operation, status, path);
        if (headers) response.headers = headers;
        else delete response.headers;
      }
    }
  }
  // Components referenced only from other components are already in `used`: hoisting records nested names too.
  const headers = Object.fromEntries(
    Object.entries(HEADERS).filter(([name]) => JSON.stringify(paths).includes(`"#/components/headers/${name}"`)),
  );
  const schemas = registry.components(used);
  if (used.has('ApiError')) {
    const codes = new Set<string>();
    for (const item of Object.values(paths) as Doc[]) {
      for (const [method, operation] of Object.entries(item) as [string, Doc][]) if (HTTP_METHODS.has(method)) for (const c of operation['x-error-codes'] ?? []) codes.add(c);
    }
    Object.assign(schemas, { ApiError: errorBody(codes) }, DETAILS_SCHEMAS);
  }
  return {
    schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    headers,
    tags: [...tags].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] })),
  };
}

/** Splits the one generated document into the public `/v1` document and the seller console's `/admin/v1` one. */
export function buildDocs(app: FastifyInstance): { v1: Doc; admin: Doc } {
  const full = app.swagger() as Doc;
  const pick = (prefix: string) => Object.fromEntries(Object.entries(full.paths ?? {}).filter(([p]) => p.startsWith(prefix)));
  const v1Paths = pick('/v1/');
  const adminPaths = pick('/admin/v1/');
  for (const paths of [v1Paths, adminPaths]) {
    for (const item of Object.values(paths) as Doc[]) {
      for (const operation of Object.values(item) as Doc[]) {
        if (operation?.['x-idempotent']) {
          operation.parameters = [
            ...(operation.parameters ?? []),
            {
              in: 'header',
              name: 'Idempotency-Key',
              required: true,
              description: 'Unique key for this request, 1 to 255 characters after trimming. Retried requests with the same key and body replay the stored answer (`Idempotent-Replayed: true`).',
              schema: { type: 'string', minLength: 1, maxLength: 255 },
            },
          ];
        }
      }
    }
  }
  const registry = new SchemaRegistry();
  registry.define(ERROR_BODY);
  const v1Parts = finish(v1Paths, registry);
  const adminParts = finish(adminPaths, registry);
  const securitySchemes = {
    apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'svc_live_… | svc_test_…', description: 'Server-only API key' },
    ownerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'own_…', description: 'Store owner token (seller console)' },
    operatorToken: { type: 'http', scheme: 'bearer', description: 'Operator token (ADMIN_TOKEN)' },
  };
  // Webhook deliveries are authenticated by their signature headers, not by an OpenAPI security scheme.
  const webhooks = Object.fromEntries(
    Object.entries(openapiExtras.v1Webhooks).map(([name, item]) => [
      name,
      Object.fromEntries(Object.entries(item as Doc).map(([m, o]) => [m, { security: [], ...(o as Doc) }])),
    ]),
  );
  const v1: Doc = {
    openapi: '3.1.0',
    info: V1_INFO,
    servers: [{ url: '/' }],
    tags: v1Parts.tags,
    paths: v1Paths,
    webhooks,
    components: { schemas: v1Parts.schemas, headers: v1Parts.headers, securitySchemes: { apiKey: securitySchemes.apiKey } },
  };
  const admin: Doc = {
    openapi: '3.1.0',
    info: ADMIN_INFO,
    servers: [{ url: '/' }],
    tags: adminParts.tags,
    paths: adminPaths,
    components: {
      schemas: adminParts.schemas,
      headers: adminParts.headers,
      securitySchemes: { ownerToken: securitySchemes.ownerToken, operatorToken: securitySchemes.operatorToken },
    },
  };
  return { v1, admin };
}

/**
 * Swagger UI options of a reference page: the product's name, logo and favicon instead of Swagger's, a way back to the
 * guides, and the document it shows. `/docs/reference` is the public API, `/admin/docs` the seller console.
 */
export function swaggerUiOptions(which: 'v1' | 'admin', routePrefix: string, getDocs: () => { v1: Doc; admin: Doc }): FastifySwaggerUiOptions {
  const title = which === 'v1' ? `${PRODUCT_NAME} — API 레퍼런스` : `${PRODUCT_NAME} — 판매자 콘솔 API 레퍼런스`;
  return {
    routePrefix,
    uiConfig: { docExpansion: 'list', deepLinking: true },
    logo: { type: 'image/svg+xml', content: Buffer.from(LOGO_SVG), href: '/docs', target: '_self' },
    theme: {
      title,
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(FAVICON_SVG) }],
      // Swagger UI's page has no viewport meta, so phones drew it as a shrunken desktop page.
      js: [{ filename: 'viewport.js', content: "(function(){var m=document.createElement('meta');m.name='viewport';m.content='width=device-width, initial-scale=1';document.head.appendChild(m);})();" }],
      css: [{ filename: 'brand.css', content: '.swagger-ui .topbar { background-color: #1c2434; } .swagger-ui .topbar .download-url-wrapper { display: none; }' }],
    },
    transformSpecification: () => getDocs()[which],
    transformSpecificationClone: false,
  };
}
