import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
// `yaml` comes with @fastify/swagger (a dependency); no parser of our own is added for a test helper.
import { parse } from 'yaml';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * PortOne's published V2 OpenAPI document (src/schema/v2.openapi.yml of portone-io/developers.portone.io, stored at
 * /work/ref/portone-v2.openapi.yml, or PORTONE_OPENAPI) as JSON-Schema validators: the fake checks every request body
 * against the operation's request schema, and test/payments/portone-contract.test.ts checks every answer of the fake
 * against the response schema. The document is used as published, with one mechanical step: a `oneOf` with a
 * `discriminator` (Payment by `status`, PaymentCancellation by `status`, PaymentMethod by `type`, the `…Error` unions by
 * `type`) becomes an `anyOf` whose branches each require their mapped discriminator value, since the published branch
 * schemas declare the discriminator only as `type: string` (a PAID body would otherwise match several branches).
 */
export const PORTONE_OPENAPI_PATH = process.env.PORTONE_OPENAPI ?? '/work/ref/portone-v2.openapi.yml';

/**
 * PortOne's document is reference material, not ours to commit: it is read where it is kept on this machine (the path
 * above), or straight out of a local snapshot of PortOne's public repository (`git show HEAD:src/schema/v2.openapi.yml`
 * in PORTONE_DOCS_REPO, by default where the team's tooling keeps fetched repositories). Without either, the PortOne
 * tests fail with this message rather than pass against a fake that checks nothing.
 */
export function readPortOneOpenApi(): string {
  if (existsSync(PORTONE_OPENAPI_PATH)) return readFileSync(PORTONE_OPENAPI_PATH, 'utf8');
  const repo = process.env.PORTONE_DOCS_REPO ?? '/work/.mirror/portone-io+developers.portone.io/repo';
  if (existsSync(repo)) {
    const r = spawnSync('git', ['--git-dir', repo, 'show', 'HEAD:src/schema/v2.openapi.yml'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (r.status === 0) return r.stdout;
  }
  throw new Error(
    `PortOne's published OpenAPI is not on this machine: put src/schema/v2.openapi.yml of portone-io/developers.portone.io at ${PORTONE_OPENAPI_PATH} ` +
      '(or set PORTONE_OPENAPI), or a snapshot of that repository at PORTONE_DOCS_REPO. See test/fixtures/portone/README.md.',
  );
}

type Schema = Record<string, any>;
let cached: { ajv: Ajv; doc: Schema; unions: Map<string, Record<string, string>> } | null = null;

function prepare(): { ajv: Ajv; doc: Schema; unions: Map<string, Record<string, string>> } {
  if (cached) return cached;
  const doc = parse(readPortOneOpenApi(), { maxAliasCount: -1 }) as Schema;
  const schemas = doc.components.schemas as Record<string, Schema>;
  const unions = new Map<string, Record<string, string>>();
  for (const [name, s] of Object.entries(schemas)) {
    if (!s.oneOf || !s.discriminator?.mapping) continue;
    const prop: string = s.discriminator.propertyName;
    unions.set(name, s.discriminator.mapping);
    s.anyOf = Object.entries(s.discriminator.mapping as Record<string, string>).map(([value, ref]) => ({
      allOf: [{ $ref: ref }, { type: 'object', required: [prop], properties: { [prop]: { const: value } } }],
    }));
    delete s.oneOf;
    delete s.discriminator;
  }
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  for (const f of ['int32', 'int64', 'double', 'float']) ajv.addFormat(f, true);
  ajv.addSchema({ $id: 'portone', components: doc.components }, 'portone');
  cached = { ajv, doc, unions };
  return cached;
}

const validators = new Map<string, ValidateFunction>();

/** The errors of `value` against the named component schema (e.g. 'Payment', 'CancelPaymentBody'); [] when it fits. */
export function portoneSchemaErrors(schemaName: string, value: unknown): string[] {
  const { ajv, doc } = prepare();
  if (!doc.components.schemas[schemaName]) throw new Error(`no schema ${schemaName} in ${PORTONE_OPENAPI_PATH}`);
  let v = validators.get(schemaName);
  if (!v) {
    v = ajv.compile({ $ref: `portone#/components/schemas/${schemaName}` });
    validators.set(schemaName, v);
  }
  return v(value) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
}

/** The response schema name of an operation for an HTTP status (e.g. ('/payments/{paymentId}', 'get', 200) → 'Payment'). */
export function portoneResponseSchema(path: string, method: string, status: number): string | null {
  const { doc } = prepare();
  const ref: string | undefined = doc.paths[path]?.[method]?.responses?.[String(status)]?.content?.['application/json']?.schema?.$ref;
  return ref ? ref.split('/').pop()! : null;
}

/** The request body schema name of an operation (a GET's `requestBody` query parameter included). */
export function portoneRequestSchema(path: string, method: string): string | null {
  const { doc } = prepare();
  const ref: string | undefined = doc.paths[path]?.[method]?.requestBody?.content?.['application/json']?.schema?.$ref;
  return ref ? ref.split('/').pop()! : null;
}

/** The documented `x-portone-status-code` of an error schema (e.g. 'CancellableAmountConsistencyBrokenError' → 409). */
export function portoneErrorStatus(errorSchemaName: string): number | null {
  const { doc } = prepare();
  return doc.components.schemas[errorSchemaName]?.['x-portone-status-code'] ?? null;
}

/** The error schema of an operation's error union for a `type` value (e.g. ('CancelPaymentError', 'PAYMENT_NOT_FOUND') → 'PaymentNotFoundError'). */
export function portoneErrorSchemaFor(unionName: string, type: string): string | null {
  const ref = prepare().unions.get(unionName)?.[type];
  return ref ? ref.split('/').pop()! : null;
}
