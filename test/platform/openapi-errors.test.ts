import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { AddressInfo } from 'node:net';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct } from '../checkout/factory';
import { clientErrorHandler } from '../../src/platform/http/client-error';

// Issue 22 item 3: each served document's ApiError lists only the codes its own operations answer, `details` is a
// oneOf of the spec's three shapes (and the bodies the service sends match exactly one), every status the service
// can send is declared (408, 413, 431, 429, 5xx) and answered as an ApiError, and the documented shapes of
// `metadata` and the portal's `buyerEmail` accept exactly what the service accepts.

let t: TestApp;
let s: TestStore;
let v1: any;
let admin: any;
before(async () => {
  t = await createTestApp({ config: { bodyLimitBytes: 4096 } });
  s = await createTestStore(t);
  v1 = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  admin = (await t.app.inject({ url: '/admin/v1/openapi.json' })).json();
});
after(async () => {
  await t.close();
});

function* operations(doc: any): Generator<[string, string, any]> {
  for (const [path, item] of Object.entries<any>(doc.paths)) for (const [method, op] of Object.entries<any>(item)) yield [path, method, op];
}

/** Ajv over one document's components, validating a value against `#/components/schemas/<name>` (or an inline schema). */
function validatorOf(doc: any, schema: object): (value: unknown) => boolean {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'doc', components: doc.components });
  const rewrite = (node: any): any =>
    Array.isArray(node)
      ? node.map(rewrite)
      : node && typeof node === 'object'
        ? Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `doc${v}` : rewrite(v)]))
        : node;
  const fn = ajv.compile(rewrite(schema));
  return (value) => fn(value) as boolean;
}

test("each document's ApiError.code lists exactly the codes its operations declare; console-only codes are absent from /v1", () => {
  for (const doc of [v1, admin]) {
    const declared = new Set<string>();
    for (const [, , op] of operations(doc)) for (const c of op['x-error-codes']) declared.add(c);
    const listed: string[] = doc.components.schemas.ApiError.properties.code.enum;
    assert.deepEqual([...listed].sort(), [...declared].sort(), doc.info.title);
  }
  const v1Codes: string[] = v1.components.schemas.ApiError.properties.code.enum;
  for (const c of ['ADMIN_UNAUTHORIZED', 'ADMIN_FORBIDDEN', 'API_KEY_NOT_FOUND', 'COUPON_NOT_FOUND', 'WEBHOOK_URL_NOT_ALLOWED', 'SETTLEMENT_EMPTY', 'TEST_MODE_ONLY']) {
    assert.ok(!v1Codes.includes(c), `${c} is console-only`);
    assert.ok(admin.components.schemas.ApiError.properties.code.enum.includes(c), `${c} is in the console document`);
  }
  // Every code of the spec's error table that /v1 answers is there.
  for (const c of ['VALIDATION_FAILED', 'METADATA_INVALID', 'API_KEY_SCOPE_MISSING', 'MAX_ACTIVATIONS_REACHED', 'PG_REFUND_AMBIGUOUS', 'LICENSE_RATE_LIMITED']) assert.ok(v1Codes.includes(c), c);
});

test('every operation declares 408 and 431, and every operation whose method carries a body 413, each an ApiError', () => {
  for (const doc of [v1, admin]) {
    for (const [path, method, op] of operations(doc)) {
      const expected = [['408', 'REQUEST_TIMEOUT'], ['431', 'HEADERS_TOO_LARGE'], ['500', 'INTERNAL_ERROR'], ['503', 'SERVICE_UNAVAILABLE']];
      if (method !== 'get') expected.push(['413', 'PAYLOAD_TOO_LARGE']);
      if (op.security?.some((x: any) => 'apiKey' in x)) expected.push(['429', 'RATE_LIMITED']);
      for (const [status, code] of expected) {
        const r = op.responses[status];
        assert.ok(r, `${method.toUpperCase()} ${path} declares ${status}`);
        assert.deepEqual(r.content['application/json'].schema, { $ref: '#/components/schemas/ApiError' });
        assert.ok(r.description.split(', ').includes(code), `${method.toUpperCase()} ${path} ${status}: ${code}`);
        assert.ok(op['x-error-codes'].includes(code));
        // 408 and 431 are written on the raw socket before a request exists: no headers are declared for them.
        if (status === '408' || status === '431') assert.equal(r.headers, undefined, `${method.toUpperCase()} ${path} ${status}`);
      }
      if (method === 'get') assert.equal(op.responses['413'], undefined, `${path}: a GET is not refused for its body`);
    }
  }
});

test('ApiError.details is a oneOf of the three spec shapes and each body the service sends matches exactly one', async () => {
  const details = v1.components.schemas.ApiError.properties.details;
  assert.deepEqual(details.oneOf.map((r: any) => r.$ref.split('/').pop()), ['ValidationErrorDetails', 'ScopeErrorDetails', 'OtherErrorDetails']);
  const errorBody = validatorOf(v1, { $ref: '#/components/schemas/ApiError' });
  const shapes = details.oneOf.map((r: any) => validatorOf(v1, r));
  const matching = (d: unknown) => shapes.filter((f: (v: unknown) => boolean) => f(d)).length;
  // The three spec shapes, an empty object, and what is not allowed.
  assert.equal(matching({ fields: [{ field: 'a', message: 'b' }] }), 1);
  assert.equal(matching({ required: ['refunds:write'] }), 1);
  assert.equal(matching({ retryable: true }), 1);
  assert.equal(matching({}), 1);
  assert.equal(matching({ fields: [{ field: 'a', message: 'b' }], required: ['refunds:write'] }), 0);
  assert.equal(matching({ retryable: true, fields: 'x' }), 0);

  const product = await createProduct(t, s);
  const scoped = await s.newKey({ scopes: ['orders:read'] });
  const answers = [
    // VALIDATION_FAILED: no Idempotency-Key → details.fields
    await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: bearer(s.key), payload: { productId: product.id } }),
    // API_KEY_SCOPE_MISSING → details.required
    await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(scoped.key), payload: { productId: product.id } }),
    // METADATA_INVALID → free details
    await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(s.key), payload: { productId: product.id, metadata: { a: 1 } } }),
    // ORDER_NOT_FOUND → no details
    await t.app.inject({ url: '/v1/orders/ord_missing', headers: bearer(s.key) }),
    // API_KEY_INVALID
    await t.app.inject({ url: '/v1/orders', headers: bearer('svc_test_nope') }),
  ];
  assert.deepEqual(answers.map((a) => a.json().code), ['VALIDATION_FAILED', 'API_KEY_SCOPE_MISSING', 'METADATA_INVALID', 'ORDER_NOT_FOUND', 'API_KEY_INVALID']);
  for (const a of answers) {
    const body = a.json();
    assert.ok(errorBody(body), `${body.code}: ${a.body}`);
    if (body.details !== undefined) assert.equal(matching(body.details), 1, a.body);
  }
});

test('413, 408 and 431 are answered as ApiError bodies with their codes; a server shutting down still serves a request that reached it, and closes its connection', async () => {
  const errorBody = validatorOf(v1, { $ref: '#/components/schemas/ApiError' });
  const big = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { ...post(s.key), 'content-type': 'application/json' }, payload: JSON.stringify({ productId: 'p', pad: 'x'.repeat(5000) }) });
  assert.equal(big.statusCode, 413);
  assert.equal(big.json().code, 'PAYLOAD_TOO_LARGE');
  assert.ok(errorBody(big.json()));

  // Node's parser refusals reach clientErrorHandler, which writes the ApiError on the socket.
  for (const [code, expected, status] of [['ERR_HTTP_REQUEST_TIMEOUT', 'REQUEST_TIMEOUT', 408], ['HPE_HEADER_OVERFLOW', 'HEADERS_TOO_LARGE', 431]] as const) {
    const socket = new PassThrough() as any;
    let written = '';
    socket.end = (chunk: string) => {
      written += chunk;
    };
    clientErrorHandler(Object.assign(new Error('x'), { code }), socket);
    assert.match(written, new RegExp(`^HTTP/1.1 ${status} `));
    const body = JSON.parse(written.slice(written.indexOf('\r\n\r\n') + 4));
    assert.equal(body.code, expected);
    assert.equal(body.statusCode, status);
    assert.ok(errorBody(body), written);
  }

  // Closing: a request still arriving is served as usual (here: the bad key's 401, an ApiError), and its connection
  // closes after the answer; never Fastify's own 503. A module's preClose hook holds the close open while a request
  // arrives on the still-listening server.
  let release!: () => void;
  let closingStarted!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const started = new Promise<void>((resolve) => (closingStarted = resolve));
  const other = await createTestApp({
    extraModules: [
      async (app) => {
        app.addHook('preClose', async () => {
          closingStarted();
          await held;
        });
      },
    ],
  });
  try {
    await other.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = other.app.server.address() as AddressInfo;
    const closing = other.app.close();
    await started;
    const res = await fetch(`http://127.0.0.1:${port}/v1/orders`, { headers: bearer('svc_test_x') });
    const body = await res.json();
    release();
    await closing;
    assert.equal(res.status, 401, JSON.stringify(body));
    assert.equal(body.code, 'API_KEY_INVALID');
    assert.equal(res.headers.get('connection'), 'close', 'the connection closes after the answer');
    assert.ok(res.headers.get('request-id'), 'the declared Request-Id is sent');
    assert.ok(errorBody(body));
  } finally {
    release();
    await other.close().catch(() => {});
  }
});

test("the documented metadata shape accepts exactly what the service accepts (else 400 METADATA_INVALID)", async () => {
  const product = await createProduct(t, s);
  const documented = validatorOf(v1, v1.components.schemas.CreateCheckoutSessionRequest.properties.metadata);
  const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
  const cases: [string, unknown][] = [
    ['a flat map', { orderRef: 'A-1', channel: 'web' }],
    ['null', null],
    ['empty', {}],
    ['50 keys', many(50)],
    ['51 keys', many(51)],
    ['a 40-character key', { ['k'.repeat(40)]: 'v' }],
    ['a 41-character key', { ['k'.repeat(41)]: 'v' }],
    ['an empty key', { '': 'v' }],
    ['a 500-character value', { k: 'v'.repeat(500) }],
    ['a 501-character value', { k: 'v'.repeat(501) }],
    ['500 astral characters (1000 UTF-16 units)', { k: '😀'.repeat(500) }],
    ['40 astral characters in a key', { ['😀'.repeat(40)]: 'v' }],
    ['a number value', { k: 1 }],
    ['an object value', { k: { nested: 'x' } }],
    ['an array', ['a']],
    ['a string', 'x'],
  ];
  for (const [name, metadata] of cases) {
    const res = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(s.key), payload: { productId: product.id, metadata } });
    const docOk = documented(metadata);
    if (docOk) assert.equal(res.statusCode, 200, `${name}: the document accepts it, so must the service: ${res.body}`);
    else assert.equal(res.json().code, 'METADATA_INVALID', `${name}: the document refuses it, so must the service: ${res.body}`);
  }
  // Both verdicts occur.
  assert.ok(cases.some(([, m]) => documented(m)) && cases.some(([, m]) => !documented(m)));
});

test('the portal request documents buyerEmail as format email and the service refuses exactly what that format refuses (400 BAD_REQUEST)', async () => {
  const schema = v1.components.schemas.CreatePortalSessionRequest.properties.buyerEmail;
  assert.equal(schema.format, 'email');
  const documented = validatorOf(v1, schema);
  const emails = ['buyer@example.com', 'first.last+tag@sub.example.co.kr', 'not-an-email', 'a@b', 'a@@example.com', 'a b@example.com', 'a..b@example.com', '.a@example.com', 'a@-example.com', '구매자@example.com', 'a@example.com.'];
  let refused = 0;
  for (const email of emails) {
    const res = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { buyerEmail: email } });
    if (documented(email)) {
      // A valid address: the buyer has no subscription here, so the next check answers.
      assert.equal(res.json().code, 'NOT_FOUND', `${email}: ${res.body}`);
    } else {
      refused++;
      assert.equal(res.statusCode, 400, `${email}: ${res.body}`);
      assert.equal(res.json().code, 'BAD_REQUEST', `${email}: ${res.body}`);
    }
  }
  assert.ok(refused >= 5 && refused < emails.length);
});
