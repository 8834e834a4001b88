/**
 * Turns the document @fastify/swagger generates from the route schemas (every schema inline) into one with named
 * `components.schemas`, declared response headers and real response descriptions. The TypeBox schemas stay the one
 * source: a schema's `title` is its component name. Done on the generated document rather than with `app.addSchema`
 * and `$ref` in the routes, so validation and serialization keep compiling exactly the schemas they did before.
 */
type Doc = Record<string, any>;

/** Keys whose values are data (examples, defaults, enum members), not schemas: never walked for titles. */
const DATA_KEYS = new Set(['examples', 'example', 'default', 'const', 'enum']);

/** A stable serialization (sorted keys) to tell identical schemas from different ones bearing the same title. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Doc).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * Keyword of a request field the service checks itself, because the contract answers its refusal with its own code
 * (METADATA_INVALID, BAD_REQUEST) rather than VALIDATION_FAILED: request validation applies the field's schema, the
 * OpenAPI document shows the schema under this keyword instead, the shape the service's check enforces. See
 * `CheckedByService` in src/platform/http/schemas.ts.
 */
export const DOCUMENTED_AS = 'x-documented-as';

/** A node carrying DOCUMENTED_AS, as the document shows it (its own description kept). */
function documentedShape(node: Doc): Doc {
  const { [DOCUMENTED_AS]: documented, ...rest } = node;
  const description = rest.description ?? documented.description;
  return description === undefined ? documented : { ...documented, description };
}

/**
 * Named schemas shared by both documents, so `Order` means the same shape in the public API and the seller console.
 * Two different schemas with one title are a mistake in the TypeBox definitions and stop the document from building.
 */
export class SchemaRegistry {
  private readonly byName = new Map<string, { schema: Doc; key: string }>();

  /** Replaces every titled schema under `node` (deepest first) by a `$ref`, recording the names `used` by this document. */
  hoist(node: unknown, used: Set<string>): unknown {
    if (Array.isArray(node)) return node.map((n) => this.hoist(n, used));
    if (!node || typeof node !== 'object') return node;
    if (DOCUMENTED_AS in (node as Doc)) return this.hoist(documentedShape(node as Doc), used);
    const out: Doc = {};
    for (const [k, v] of Object.entries(node as Doc)) out[k] = DATA_KEYS.has(k) ? v : this.hoist(v, used);
    const title = out.title;
    if (typeof title !== 'string' || !('type' in out || 'anyOf' in out || 'oneOf' in out || 'allOf' in out)) return out;
    const { description, ...shape } = out;
    const key = canonical(shape);
    const known = this.byName.get(title);
    if (!known) this.byName.set(title, { schema: out, key });
    else if (known.key !== key) throw new Error(`OpenAPI: two different schemas are titled "${title}"; give one of them another title`);
    used.add(title);
    const registered = this.byName.get(title)!.schema.description;
    return description !== undefined && description !== registered ? { ...ref(title), description } : ref(title);
  }

  /** The schemas this document uses, by name, sorted (components referenced only from other components included). */
  components(used: Set<string>): Record<string, Doc> {
    return Object.fromEntries([...used].sort().map((name) => [name, this.byName.get(name)!.schema]));
  }

  /** Registers a schema under its title without a use site (the error body, referenced by every error response). */
  define(schema: Doc): void {
    const { description: _d, ...shape } = schema;
    this.byName.set(schema.title, { schema, key: canonical(shape) });
  }
}

/** Response headers the service sends, declared once and referenced by the responses that carry them. */
export const HEADERS: Record<string, Doc> = {
  RequestId: {
    description: 'The id of this request, also in the service logs; quote it when asking for support. Sent on every answer, errors included. A valid `X-Request-Id` sent by the caller (8 to 128 of `A-Z a-z 0-9 . _ : -`) is used as is.',
    schema: { type: 'string', examples: ['req_0f9a4c2e8b7d4e1a9c3b5d7f1e2a4c6b'] },
  },
  RateLimitLimit: { description: 'Requests this API key may make per minute.', schema: { type: 'integer', minimum: 0 } },
  RateLimitRemaining: { description: 'Requests left in the current minute.', schema: { type: 'integer', minimum: 0 } },
  RateLimitReset: { description: 'When the current minute ends and the budget refills, in Unix seconds.', schema: { type: 'integer', minimum: 0 } },
  RetryAfter: { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } },
  IdempotentReplayed: {
    description: '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key` and body (nothing was done again); absent otherwise.',
    schema: { type: 'string', enum: ['true'] },
  },
  ServiceKeyDeprecated: {
    description: 'The API key used was rotated and stops working at this time (ISO 8601); switch to its successor before then. Absent for current keys.',
    schema: { type: 'string', format: 'date-time' },
  },
  ServiceSignature: {
    description: 'kid="<kid>", alg="ed25519", sig="<base64 of the 64-byte Ed25519 signature over the exact response body bytes>". Verify the bytes as received, before parsing, with the key `kid` from `GET /v1/licenses/signing-keys`.',
    schema: { type: 'string', examples: ['kid="lsk_01jd8x0c4e7w2k3m5n6p7q8r9s", alg="ed25519", sig="3q2+7w…=="'] },
  },
};
const h = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * The headers of one response of an operation, from what the operation declares (auth, idempotency) and the status.
 * Once an API key is identified, every answer counts against its budget and says so, errors included; only a 401
 * (no key identified) goes without. A stored answer (any status the handler produced) can be replayed. 408 and 431
 * (refused by Node's HTTP parser, src/platform/http/client-error.ts) carry none.
 */
export function responseHeaders(operation: Doc, status: string, path: string): Doc | undefined {
  // 408 and 431 are written on the socket by Node's parser refusal handler before any request exists: no headers.
  if (status === '408' || status === '431') return undefined;
  const ok = status.startsWith('2');
  const apiKey = (operation.security ?? []).some((s: Doc) => 'apiKey' in s);
  const headers: Doc = { 'Request-Id': h('RequestId') };
  if (apiKey && status !== '401') {
    Object.assign(headers, {
      'X-RateLimit-Limit': h('RateLimitLimit'),
      'X-RateLimit-Remaining': h('RateLimitRemaining'),
      'X-RateLimit-Reset': h('RateLimitReset'),
      'Service-Key-Deprecated': h('ServiceKeyDeprecated'),
    });
  }
  if (operation['x-idempotent'] && !['401', '403', '429', '503'].includes(status)) headers['Idempotent-Replayed'] = h('IdempotentReplayed');
  if (status === '429' || status === '503') headers['Retry-After'] = h('RetryAfter');
  if (ok && /^\/v1\/licenses\/(activate|deactivate|verify)$/.test(path)) headers['Service-Signature'] = h('ServiceSignature');
  return headers;
}

/** "CheckoutSession" → "checkout session". */
const words = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/\bapi\b/g, 'API');

/** A response description for the ones @fastify/swagger leaves as "Default Response": said from the schema it returns. */
export function okDescription(operation: Doc, status: string, schema: Doc | undefined, components: Record<string, Doc>): string {
  const name = typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop()! : undefined;
  const target = name ? components[name] : schema;
  const summary = String(operation.summary ?? '').replace(/\.$/, '');
  if (!target) return `${summary}: done, no body.`;
  const item = target.properties?.data?.items?.$ref?.split('/').pop();
  const parts: string[] = [];
  if (item) parts.push(`One page of ${words(item)}s (\`data\`), with \`total\`, \`page\` and \`limit\`.`);
  else if (name) parts.push(status === '201' ? `Created: the ${words(name)}.` : status === '202' ? `Accepted: the ${words(name)}.` : `The ${words(name)}.`);
  else parts.push(`${summary}.`);
  if (!item && target.description) parts.push(target.description);
  if (operation['x-idempotent']) parts.push('A retry with the same `Idempotency-Key` and body answers this again, with `Idempotent-Replayed: true`.');
  return parts.join(' ');
}
