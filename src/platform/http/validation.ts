import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldError } from '../errors';

/**
 * Two Ajv instances: query strings and path params are strings on the wire and get coerced to their declared
 * types; JSON bodies are taken exactly as sent (a "1000" string is not a number). Neither removes unknown
 * fields: they fail validation, and allErrors lets one answer list every failing field.
 */
function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, removeAdditional: false, useDefaults: true, coerceTypes: coerce ? 'array' : false, strict: false });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const queryAjv = makeAjv(true);
const cache = new WeakMap<object, any>();

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  let fn = cache.get(schema as object)?.[httpPart ?? 'x'];
  if (!fn) {
    fn = ajv.compile(schema as object);
    const entry = cache.get(schema as object) ?? {};
    entry[httpPart ?? 'x'] = fn;
    cache.set(schema as object, entry);
  }
  return fn;
};

function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.join('.');
}

function koreanMessage(e: ErrorObject): string {
  const p = e.params as Record<string, any>;
  switch (e.keyword) {
    case 'required':
      return '필수 항목입니다.';
    case 'additionalProperties':
      return '허용되지 않는 필드입니다.';
    case 'type': {
      const t: Record<string, string> = { string: '문자열', integer: '정수', number: '숫자', boolean: '참/거짓 값', object: '객체', array: '배열', null: 'null' };
      const want = String(p.type).split(',').map((x) => t[x] ?? x).join(' 또는 ');
      return `${want} 형식이어야 합니다.`;
    }
    case 'minLength':
      return `${p.limit}자 이상이어야 합니다.`;
    case 'maxLength':
      return `${p.limit}자 이하여야 합니다.`;
    case 'minimum':
      return `${p.limit} 이상이어야 합니다.`;
    case 'maximum':
      return `${p.limit} 이하여야 합니다.`;
    case 'exclusiveMinimum':
      return `${p.limit}보다 커야 합니다.`;
    case 'minItems':
      return `항목이 ${p.limit}개 이상이어야 합니다.`;
    case 'maxItems':
      return `항목이 ${p.limit}개 이하여야 합니다.`;
    case 'maxProperties':
      return `항목이 ${p.limit}개 이하여야 합니다.`;
    case 'format': {
      const f: Record<string, string> = { email: '이메일', uri: 'URL', 'date-time': '날짜-시간(ISO 8601)' };
      return `${f[p.format] ?? p.format} 형식이 올바르지 않습니다.`;
    }
    case 'pattern':
      return '형식이 올바르지 않습니다.';
    case 'enum':
    case 'const':
      return `허용된 값이 아닙니다${p.allowedValues ? ` (${p.allowedValues.join(', ')})` : p.allowedValue !== undefined ? ` (${p.allowedValue})` : ''}.`;
    case 'anyOf':
    case 'oneOf':
      return '허용된 형식이 아닙니다.';
    default:
      return '값이 올바르지 않습니다.';
  }
}

/** Ajv errors → the contract's `details.fields`, one entry per failing field (union branches collapsed). */
export function ajvToFields(errors: ErrorObject[], part?: string): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  // A union (anyOf) reports each branch's failure plus its own; keep the most specific one per field.
  const unionPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  for (const e of errors) {
    const p = e.params as Record<string, any>;
    let field: string;
    if (e.keyword === 'required') field = fieldPath(e.instancePath, p.missingProperty);
    else if (e.keyword === 'additionalProperties') field = fieldPath(e.instancePath, p.additionalProperty);
    else field = fieldPath(e.instancePath);
    if (unionPaths.has(e.instancePath) && e.keyword !== 'anyOf' && e.keyword !== 'required' && e.keyword !== 'additionalProperties') {
      // Branch-level noise ("must be null", "must be string") for a union field: report the union once.
      continue;
    }
    if (!field) field = part === 'querystring' ? 'query' : part ?? 'body';
    const key = `${field}|${e.keyword}`;
    if (seen.has(field) || seen.has(key)) continue;
    seen.add(field);
    seen.add(key);
    out.push({ field, message: koreanMessage(e) });
  }
  return out;
}
