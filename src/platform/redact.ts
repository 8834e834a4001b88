/**
 * What counts as secret in what the service writes about requests: traces (src/tracing.ts) and logs (the access and
 * slow-request log in src/platform/http/metrics.ts, pino's redaction in src/runtime.ts). One list for both (issue 30):
 * capabilities (portal and receipt tokens in paths and `t=`, Toss's `authKey` and billing keys, API keys, owner tokens,
 * session cookies) and personal data (e-mail, phone, name) never leave in a span attribute or a log line.
 *
 * The rule is by shape rather than by guessing each value: a request is named by its route template (`/portal/:token`,
 * never the token), query values are replaced (their names stay), and credential headers are dropped. Outgoing calls
 * to Toss are named by Toss's own path templates (`/v1/billing/{billingKey}`); an outgoing call to anyone else (a
 * seller's webhook endpoint, whose URL may itself hold a secret) shows its host only.
 */

export const REDACTED = '[redacted]';

/** Headers whose values are credentials or capabilities: never captured into a span, censored in log lines. */
export const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'x-csrf-token', 'tosspayments-webhook-signature', 'idempotency-key'] as const;

/**
 * Field names whose values are capabilities, credentials or personal data, wherever they appear one level down in a
 * log line's object (pino `*.name` paths) or as query parameters. Query values not named here are replaced as well in
 * traces (see redactQuery); the list says what must never pass, the shape rule what cannot be foreseen.
 */
export const SECRET_FIELDS = [
  // credentials and capabilities
  'secret',
  'password',
  'key',
  'apiKey',
  'ownerToken',
  'token',
  't',
  'authKey',
  'billingKey',
  'customerKey',
  'smtpUrl',
  'secretKey',
  'tossSecretKey',
  // personal data
  'email',
  'buyerEmail',
  'phone',
  'buyerPhone',
  'buyerName',
] as const;

/** Query parameters whose values say nothing about anyone and may be kept in traces (paging, filters by state). */
export const PUBLIC_QUERY_PARAMS = new Set(['limit', 'starting_after', 'ending_before', 'startingAfter', 'endingBefore', 'mode', 'status', 'lang', 'type', 'page', 'sort', 'startDate', 'endDate', 'from', 'to']);

/** pino redaction paths built from the lists above (src/runtime.ts). */
export const LOG_REDACT_PATHS: string[] = [
  ...SECRET_HEADERS.flatMap((h) => [`req.headers["${h}"]`, `headers["${h}"]`]),
  ...SECRET_FIELDS.filter((f) => f.length > 1).map((f) => `*.${f}`),
];

/** `a=1&t=secret` → `a=[redacted]&t=[redacted]`, keeping the values of PUBLIC_QUERY_PARAMS. Names stay (they are the route's). */
export function redactQuery(query: string): string {
  const q = query.startsWith('?') ? query.slice(1) : query;
  if (!q) return '';
  return q
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // keep it encoded
      }
      if (!/^[A-Za-z0-9_.\-[\]]{1,64}$/.test(decoded)) return REDACTED; // a name that is itself data
      if (eq < 0) return name;
      return PUBLIC_QUERY_PARAMS.has(decoded) ? pair : `${name}=${REDACTED}`;
    })
    .join('&');
}

/** Toss's API paths as Toss documents them; the parameters (billing keys, payment keys, order ids) become names. */
const TOSS_PATHS: Array<[RegExp, string]> = [
  [/^\/v1\/billing\/authorizations\/issue$/, '/v1/billing/authorizations/issue'],
  [/^\/v1\/billing\/authorizations\/[^/]+$/, '/v1/billing/authorizations/{authKey}'],
  [/^\/v1\/billing\/[^/]+$/, '/v1/billing/{billingKey}'],
  [/^\/v1\/payments\/confirm$/, '/v1/payments/confirm'],
  [/^\/v1\/payments\/orders\/[^/]+$/, '/v1/payments/orders/{orderId}'],
  [/^\/v1\/payments\/[^/]+\/cancel$/, '/v1/payments/{paymentKey}/cancel'],
  [/^\/v1\/payments\/[^/]+$/, '/v1/payments/{paymentKey}'],
  [/^\/v1\/transactions$/, '/v1/transactions'],
];

/** The template of an outgoing request's path: Toss's template, else nothing of the path (`/[redacted]`). */
export function outgoingPathTemplate(path: string): string {
  for (const [re, template] of TOSS_PATHS) if (re.test(path)) return template;
  return path === '/' || path === '' ? '/' : `/${REDACTED}`;
}

/** Where a server request's path is unknown (no route matched), it is not written either. */
export const UNMATCHED_ROUTE = 'unmatched';

type Attrs = Record<string, unknown>;

function splitUrl(full: string): { origin: string; path: string; query: string } | null {
  try {
    const u = new URL(full);
    return { origin: `${u.protocol}//${u.host}`, path: u.pathname, query: u.search.slice(1) };
  } catch {
    return null;
  }
}

/**
 * Rewrites a span's attributes in place so that none carries a path parameter, query value or credential header
 * (issue 30). `kind`: 'server' spans take the route template (`http.route`, set after routing) as their path,
 * 'client' spans (fetch/undici and http.request) Toss's path template or no path. Returns the span name to use.
 */
export function redactSpanAttributes(kind: 'server' | 'client' | 'internal', attributes: Attrs, name: string): string {
  for (const key of Object.keys(attributes)) {
    const m = /^http\.(request|response)\.header\.(.+)$/.exec(key);
    if (m && (SECRET_HEADERS as readonly string[]).includes(m[2]!.toLowerCase())) delete attributes[key];
  }
  const route = typeof attributes['http.route'] === 'string' ? (attributes['http.route'] as string) : null;
  const pathFor = (path: string) => (kind === 'server' ? (route ?? UNMATCHED_ROUTE) : outgoingPathTemplate(path));
  for (const key of ['url.path', 'http.target']) {
    const v = attributes[key];
    if (typeof v !== 'string') continue;
    const q = v.indexOf('?');
    const path = q < 0 ? v : v.slice(0, q);
    attributes[key] = kind === 'internal' ? REDACTED : pathFor(path) + (q < 0 ? '' : `?${redactQuery(v.slice(q + 1))}`);
  }
  if (typeof attributes['url.query'] === 'string') attributes['url.query'] = redactQuery(attributes['url.query'] as string);
  for (const key of ['url.full', 'http.url']) {
    const v = attributes[key];
    if (typeof v !== 'string') continue;
    const u = splitUrl(v);
    attributes[key] = u ? `${u.origin}${kind === 'internal' ? '' : pathFor(u.path)}${u.query ? `?${redactQuery(u.query)}` : ''}` : REDACTED;
  }
  // A span named after a raw path (an instrumentation's default `GET /x/y`) is renamed after the template.
  const sp = name.indexOf(' /');
  if (sp > 0 && kind !== 'internal') return `${name.slice(0, sp)} ${kind === 'server' ? (route ?? UNMATCHED_ROUTE) : outgoingPathTemplate(name.slice(sp + 1).split('?')[0]!)}`;
  return name;
}
