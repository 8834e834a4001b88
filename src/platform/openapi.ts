import type { FastifyInstance } from 'fastify';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import { FAVICON_SVG, LOGO_SVG, PRODUCT_NAME } from './brand';

type Doc = Record<string, any>;

const V1_INFO = {
  title: 'Commerce API',
  version: '1.0.0',
  license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  description:
    'Payment and licensing backend for sellers of digital products and subscriptions in Korea. ' +
    'Server endpoints authenticate with `Authorization: Bearer svc_live_…|svc_test_…`; every POST except the license app API requires `Idempotency-Key`. ' +
    'Errors are ApiError bodies `{ statusCode, code, message, details? }` with Korean messages. Fields without a value are `null`, never omitted.',
};

const ADMIN_INFO = {
  title: 'Commerce API — seller console',
  version: '1.0.0',
  license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  description:
    'The seller side of the service: stores, API keys, settings, products, coupons, webhook endpoints, events, licenses. ' +
    'Authenticate with the store owner token `Authorization: Bearer own_…` (shown once when the store is created). ' +
    'Creating a store needs the operator token (`ADMIN_TOKEN`).',
};

/** Extra top-level OpenAPI sections contributed by modules (e.g. the `webhooks` section with event payloads). */
export const openapiExtras: { v1Webhooks: Record<string, unknown> } = { v1Webhooks: {} };

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
  const securitySchemes = {
    apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'svc_live_… | svc_test_…', description: 'Server-only API key' },
    ownerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'own_…', description: 'Store owner token (seller console)' },
    operatorToken: { type: 'http', scheme: 'bearer', description: 'Operator token (ADMIN_TOKEN)' },
  };
  const base = { openapi: '3.1.0', components: { ...(full.components ?? {}), securitySchemes } };
  // Webhook deliveries are authenticated by their signature headers, not by an OpenAPI security scheme.
  const webhooks = Object.fromEntries(
    Object.entries(openapiExtras.v1Webhooks).map(([name, item]) => [
      name,
      Object.fromEntries(Object.entries(item as Doc).map(([m, o]) => [m, { security: [], ...(o as Doc) }])),
    ]),
  );
  const v1: Doc = {
    ...base,
    info: V1_INFO,
    servers: [{ url: '/' }],
    paths: v1Paths,
    webhooks,
  };
  v1.components = { ...v1.components, securitySchemes: { apiKey: securitySchemes.apiKey } };
  const admin: Doc = { ...base, info: ADMIN_INFO, servers: [{ url: '/' }], paths: adminPaths };
  admin.components = { ...admin.components, securitySchemes: { ownerToken: securitySchemes.ownerToken, operatorToken: securitySchemes.operatorToken } };
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
