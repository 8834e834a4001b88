// @slow: generates a client and compiles typed calls to every /v1 operation with tsc (npm run test:slow)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import openapiTS, { astToString } from 'openapi-typescript';
import { createTestApp, type TestApp } from '../helpers/app';

// Issue 22 item 3: a client generated with openapi-typescript from the served /v1 document compiles (tsc --strict)
// a typed call to EVERY /v1 operation, each reading its error body as the document's ApiError. The calls are written
// from the document's own paths, so an operation added later is covered without touching this file. Compile-time
// assertions fail when a schema loosens: a request body field typed `unknown`/`any` (metadata once was), an answer
// typed `unknown`, an error body that is not ApiError, ApiError.code widened to `string` or holding a console-only
// code, or metadata accepting a non-string value.

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
type Doc = Record<string, any>;
let t: TestApp;
let v1: Doc;
let admin: Doc;
before(async () => {
  t = await createTestApp();
  v1 = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  admin = (await t.app.inject({ url: '/admin/v1/openapi.json' })).json();
});
after(async () => {
  await t.close();
});

/** A minimal value valid for `schema` (required properties only), as TypeScript source. */
function sample(doc: Doc, schema: Doc | undefined, depth = 0): string {
  if (!schema || depth > 12) return '{}';
  if (schema.$ref) return sample(doc, doc.components.schemas[schema.$ref.split('/').pop()], depth + 1);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return sample(doc, branches.find((b: Doc) => b.type !== 'null') ?? branches[0], depth + 1);
  if ('const' in schema) return JSON.stringify(schema.const);
  if (schema.enum) return JSON.stringify(schema.enum[0]);
  const type = Array.isArray(schema.type) ? schema.type.find((x: string) => x !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const props = (schema.required ?? []).map((k: string) => `${JSON.stringify(k)}: ${sample(doc, schema.properties?.[k], depth + 1)}`);
      return `{ ${props.join(', ')} }`;
    }
    case 'array':
      return schema.minItems ? `[${sample(doc, schema.items, depth + 1)}]` : '[]';
    case 'string':
      if (schema.format === 'email') return "'buyer@example.com'";
      if (schema.format === 'date-time') return "'2026-11-21T09:30:00.000Z'";
      return JSON.stringify('x'.repeat(Math.max(1, schema.minLength ?? 1)));
    case 'integer':
    case 'number':
      return String(schema.minimum ?? 1);
    case 'boolean':
      return 'true';
    case 'null':
      return 'null';
    default:
      return '{}';
  }
}

/** The calls file: one typed call per operation of the document, plus the schema-tightness assertions. */
function callsSource(doc: Doc, consoleOnlyCodes: string[]): { source: string; operations: string[] } {
  const operations: string[] = [];
  const lines: string[] = [];
  let n = 0;
  for (const [path, item] of Object.entries<Doc>(doc.paths)) {
    for (const [method, op] of Object.entries<Doc>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      n++;
      operations.push(`${method.toUpperCase()} ${path}`);
      const params: Record<string, string[]> = { path: [], query: [], header: [] };
      for (const p of op.parameters ?? []) {
        if (p.in in params && (p.required || p.in === 'path')) params[p.in].push(`${JSON.stringify(p.name)}: ${sample(doc, p.schema)}`);
      }
      const init: string[] = [];
      const paramParts = Object.entries(params).filter(([, v]) => v.length).map(([k, v]) => `${k}: { ${v.join(', ')} }`);
      if (paramParts.length) init.push(`params: { ${paramParts.join(', ')} }`);
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      if (bodySchema) init.push(`body: ${sample(doc, bodySchema)}`);
      const M = method.toUpperCase();
      const P = JSON.stringify(path);
      lines.push(`
  {
    // ${M} ${path}
    const r${n} = await client.${M}(${P}, { ${init.join(', ')} });
    if (r${n}.error) {
      const e: ApiError = r${n}.error;
      const exact: Same<NonNullable<typeof r${n}.error>, ApiError> = true;
      const code: ApiError['code'] = e.code;
      const status: number = e.statusCode;
      void exact; void code; void status;
    } else {
      const tight: IsLoose<typeof r${n}.data> = false;
      void tight;
    }${bodySchema ? `
    type B${n} = NonNullable<paths[${P}][${JSON.stringify(method)}]['requestBody']>['content']['application/json'];
    const body${n}: HasLoose<B${n}> = false;
    void body${n};` : ''}
  }`);
    }
  }
  const consoleChecks = consoleOnlyCodes.map((c) => `  // @ts-expect-error ${c} is answered only by the seller console, not by /v1\n  const no_${c}: ApiError['code'] = '${c}';\n  void no_${c};`);
  const source = `
import createClient from 'openapi-fetch';
import type { paths, components } from './api.js';

type ApiError = components['schemas']['ApiError'];
/** Mutually assignable (openapi-fetch restates the error type structurally, so identity is too strict). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** any or unknown: a schema that says nothing. */
type IsLoose<T> = 0 extends 1 & T ? true : unknown extends T ? true : false;
/** Some field, at any depth, typed any or unknown. */
type HasLoose<T, D extends unknown[] = []> = D['length'] extends 8
  ? false
  : IsLoose<T> extends true
    ? true
    : T extends readonly (infer I)[]
      ? HasLoose<I, [...D, 0]>
      : T extends object
        ? true extends { [K in keyof T]-?: HasLoose<Exclude<T[K], undefined>, [...D, 0]> }[keyof T] ? true : false
        : false;

const client = createClient<paths>({ baseUrl: 'http://localhost:3000', headers: { Authorization: 'Bearer svc_test_x' } });

export async function everyOperation(): Promise<void> {${lines.join('')}
}

export function schemaTightness(): void {
  // ApiError.code is the closed list of this document's codes, not a string.
  const closed: string extends ApiError['code'] ? false : true = true;
  void closed;
${consoleChecks.join('\n')}
  // details: one of the spec's three shapes, each typed.
  const fields: NonNullable<ApiError['details']> = { fields: [{ field: 'Idempotency-Key', message: '필수 값입니다.' }] };
  const scopes: NonNullable<ApiError['details']> = { required: ['refunds:write'] };
  const free: NonNullable<ApiError['details']> = { retryable: true };
  void fields; void scopes; void free;
  // @ts-expect-error a field entry needs its message
  const badFields: components['schemas']['ValidationErrorDetails'] = { fields: [{ field: 'x' }] };
  // @ts-expect-error scopes are the contract's scope names
  const badScope: components['schemas']['ScopeErrorDetails'] = { required: ['everything'] };
  void badFields; void badScope;
  const detailsTyped: IsLoose<ApiError['details']> = false;
  void detailsTyped;

  // metadata: the flat map of strings.
  type Metadata = NonNullable<components['schemas']['CreateCheckoutSessionRequest']['metadata']>;
  const flat: Metadata = { orderRef: 'A-1', channel: 'web' };
  const asRecord: Record<string, string> = flat;
  void asRecord;
  // @ts-expect-error metadata values are strings, an object value is refused
  const nested: Metadata = { order: { id: 1 } };
  // @ts-expect-error metadata values are strings, a number is refused
  const numeric: Metadata = { quantity: 2 };
  void nested; void numeric;
}
`;
  return { source, operations };
}

test('a client generated from /v1/openapi.json compiles typed calls, error bodies included, to every /v1 operation; loosened schemas fail to compile', async () => {
  const v1Codes: string[] = v1.components.schemas.ApiError.properties.code.enum;
  const consoleOnly = (admin.components.schemas.ApiError.properties.code.enum as string[]).filter((c) => !v1Codes.includes(c));
  assert.ok(consoleOnly.includes('ADMIN_UNAUTHORIZED'), 'the console document has codes of its own');
  const { source, operations } = callsSource(v1, consoleOnly);
  assert.ok(operations.length >= 24, `every operation is called (${operations.length})`);
  assert.ok(operations.includes('POST /v1/checkout/sessions') && operations.includes('POST /v1/portal-sessions'));

  const dir = mkdtempSync(join(ROOT, '.generated-client-'));
  try {
    writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(v1 as any)));
    writeFileSync(join(dir, 'calls.ts'), source);
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const res = spawnSync(
      process.execPath,
      [tsc, '--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', join(dir, 'calls.ts')],
      { cwd: ROOT, encoding: 'utf8' },
    );
    assert.equal(res.status, 0, `the generated client does not compile the calls:\n${res.stdout}${res.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
