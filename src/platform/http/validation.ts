import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { validationError, type FieldError } from '../errors';
import { MESSAGES } from '../messages';
import { NO_BIDI_PATTERN, ONE_LINE_PATTERN, bidiMessage, isValidEmail, lineControlMessage } from '../text';

/** Limits every request is held to before anything recursive or any SQL sees it (README, API conventions). */
export const MAX_JSON_DEPTH = 64;
export const MIN_DATE_YEAR = 1970;
export const MAX_DATE_YEAR = 9999;

/**
 * Two Ajv instances: query strings and path params are strings on the wire and get coerced to their declared
 * types; JSON bodies are taken exactly as sent (a "1000" string is not a number). Neither removes unknown
 * fields: they fail validation, and allErrors lets one answer list every failing field.
 */
function makeAjv(coerce: boolean): Ajv {
  // verbose: an error carries the schema it failed, so a union of literals (TypeBox's enum) can name its values.
  const ajv = new Ajv({ allErrors: true, verbose: true, removeAdditional: false, useDefaults: true, coerceTypes: coerce ? 'array' : false, strict: false });
  addFormats(ajv);
  // Dates must also be real instants PostgreSQL stores as given: years 1970..9999 (UTC), no `0000-01-01`.
  const base = ajv.formats['date-time'] as { validate: (s: string) => boolean; compare?: (a: string, b: string) => number | undefined };
  // `email` is the HTML standard's valid e-mail address (ajv-formats' own accepts forms the pages refuse); the length
  // is checked first, so the regex never runs on a long string.
  ajv.addFormat('email', { type: 'string', validate: isValidEmail });
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => base.validate(s) && dateInRange(s), compare: base.compare } as any);
  return ajv;
}

export function dateInRange(s: string): boolean {
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) return false;
  const year = new Date(ms).getUTCFullYear();
  return year >= MIN_DATE_YEAR && year <= MAX_DATE_YEAR;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Control characters no text field takes (issue 30): C0 except tab, line feed and carriage return, and DEL (C1 is left: a header read as latin1 holds it). */
const CONTROL = /[\u0001-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/**
 * Why a string cannot be taken: PostgreSQL text refuses U+0000 and jsonb refuses unpaired surrogates; other control
 * characters (tab, line feed and carriage return aside) are never text anyone typed and can hide or garble what
 * others read (terminals, logs, mails).
 */
export function badChars(s: string): 'nul' | 'surrogate' | 'control' | null {
  if (s.includes('\u0000')) return 'nul';
  if (LONE_SURROGATE.test(s)) return 'surrogate';
  if (CONTROL.test(s)) return 'control';
  return null;
}

const escapePointer = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
const printable = (k: string) => k.replace(/\u0000/g, '\\u0000').replace(new RegExp(CONTROL.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).replace(new RegExp(LONE_SURROGATE.source, 'g'), '\ufffd');

/**
 * Finds the first string (value or object key) holding U+0000 or a lone surrogate, walking without
 * recursion. Returns an Ajv-shaped error so the usual `details.fields` mapping names the dotted field.
 */
export function findBadString(data: unknown): ErrorObject | null {
  const stack: Array<[unknown, string]> = [[data, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const why = badChars(v);
      if (why) return { keyword: 'x-chars', instancePath: path, schemaPath: '#', params: { reason: why } };
    } else if (v !== null && typeof v === 'object') {
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}/${i}`]);
      } else {
        const keys = Object.keys(v);
        for (let i = keys.length - 1; i >= 0; i--) {
          const k = keys[i];
          const why = badChars(k);
          if (why) return { keyword: 'x-chars', instancePath: `${path}/${escapePointer(printable(k))}`, schemaPath: '#', params: { reason: why } };
          stack.push([(v as Record<string, unknown>)[k], `${path}/${escapePointer(k)}`]);
        }
      }
    }
  }
  return null;
}

/** True when a parsed value nests arrays/objects deeper than `max` (checked without recursion). */
export function depthExceeds(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d + 1 > max) return true;
    for (const child of Object.values(v as object)) if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
  }
  return false;
}

/** The same limit on JSON text, before JSON.parse or anything recursive runs (strings are skipped). */
export function jsonTextDepthExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123 /* [ { */) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125 /* ] } */) depth--;
  }
  return false;
}

export const depthError = () => validationError([{ field: 'body', message: MESSAGES.validation.jsonTooDeep(MAX_JSON_DEPTH) }]);

type JsonParser = (req: any, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => void;

/** Wraps Fastify's JSON parser (proto-poisoning checks included) with the nesting limit. */
export function depthLimitedJsonParser(base: JsonParser): JsonParser {
  return (req, body, done) => {
    if (jsonTextDepthExceeds(typeof body === 'string' ? body : body.toString('utf8'))) return done(depthError(), undefined);
    base(req, body, done);
  };
}

const bodyAjv = makeAjv(false);
const queryAjv = makeAjv(true);

/** True when `s` is an `email` as JSON Schema's `format: email` is checked here (ajv-formats, full mode). */
export function isEmailFormat(s: string): boolean {
  const f = bodyAjv.formats.email as RegExp | { validate: RegExp | ((s: string) => boolean) };
  const v = f instanceof RegExp ? f : f.validate;
  return v instanceof RegExp ? v.test(s) : v(s);
}
const cache = new WeakMap<object, any>();

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  let fn = cache.get(schema as object)?.[httpPart ?? 'x'];
  if (!fn) {
    fn = guardStrings(() => ajv.compile(schema as object), schema);
    const entry = cache.get(schema as object) ?? {};
    entry[httpPart ?? 'x'] = fn;
    cache.set(schema as object, entry);
  }
  return fn;
};

let compiledValidators = 0;
/** How many validators ajv has compiled in this process so far (the lazy-compilers test reads it). */
export const validatorsCompiled = (): number => compiledValidators;

/**
 * Every validated part (body, query, params, headers) refuses NUL and lone surrogates before its schema runs. The
 * schema is compiled by ajv on the first request that reaches it, not at start: Fastify asks for a validator for
 * every part of every route (several hundred) when the server starts, and each compiled one stays in the heap (its
 * source and code) though most routes of a deployment are never called (idle memory, issue 43). Answers are the same.
 */
function guardStrings(compile: () => ValidateFunction, schema: unknown): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const guarded = ((data: unknown) => {
    const bad = findBadString(data);
    if (bad) {
      guarded.errors = [bad];
      return false;
    }
    if (!compiled) {
      compiled = compile();
      compiledValidators++;
    }
    const ok = compiled(data);
    guarded.errors = compiled.errors;
    return ok;
  }) as ValidateFunction;
  guarded.schema = schema as ValidateFunction['schema'];
  return guarded;
}

function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.join('.');
}

function koreanMessage(e: ErrorObject, field: string): string {
  const p = e.params as Record<string, any>;
  switch (e.keyword) {
    case 'required':
      return MESSAGES.validation.required;
    case 'additionalProperties':
      return MESSAGES.validation.fieldNotAllowed;
    case 'type':
      return MESSAGES.validation.wrongType(String(p.type));
    case 'minLength':
      return MESSAGES.validation.minLength(p.limit);
    case 'maxLength':
      return MESSAGES.validation.maxLength(p.limit);
    case 'minimum':
      return MESSAGES.validation.minimum(p.limit);
    case 'maximum':
      return MESSAGES.validation.maximum(p.limit);
    case 'exclusiveMinimum':
      return MESSAGES.validation.exclusiveMinimum(p.limit);
    case 'minItems':
      return MESSAGES.validation.minItems(p.limit);
    case 'maxItems':
    case 'maxProperties':
      return MESSAGES.validation.maxItems(p.limit);
    case 'format':
      return MESSAGES.validation.badFormat(p.format, MIN_DATE_YEAR, MAX_DATE_YEAR);
    case 'pattern':
      return p.pattern === NO_BIDI_PATTERN ? bidiMessage(field) : p.pattern === ONE_LINE_PATTERN ? lineControlMessage(field) : MESSAGES.validation.patternMismatch;
    case 'x-chars':
      return p.reason === 'nul' ? MESSAGES.validation.nulCharacter : p.reason === 'control' ? MESSAGES.validation.controlCharacter : MESSAGES.validation.loneSurrogate;
    case 'enum':
    case 'const':
      return MESSAGES.validation.valueNotAllowed(p.allowedValues ? p.allowedValues.join(', ') : p.allowedValue !== undefined ? `${p.allowedValue}` : undefined);
    case 'anyOf':
    case 'oneOf': {
      // A union whose every branch is a literal (TypeBox's Union of Literals, the usual enum) lists its values, so the
      // caller learns what to send instead of guessing; a union of shapes keeps the general message.
      const values = literalValues(e.schema);
      return values ? MESSAGES.validation.valueNotAllowed(values.join(', ')) : MESSAGES.validation.shapeNotAllowed;
    }
    default:
      return MESSAGES.validation.invalidValue;
  }
}

/** The values a union of literals allows (`const`, `enum`, `null` branches, nested unions flattened), else null. */
export function literalValues(branches: unknown): string[] | null {
  if (!Array.isArray(branches) || branches.length === 0) return null;
  const out: string[] = [];
  for (const b of branches as Array<Record<string, unknown>>) {
    if (b === null || typeof b !== 'object') return null;
    if ('const' in b) out.push(String(b.const));
    else if (Array.isArray(b.enum)) out.push(...b.enum.map(String));
    else if (b.type === 'null') out.push('null');
    else if (Array.isArray(b.anyOf)) {
      const inner = literalValues(b.anyOf);
      if (!inner) return null;
      out.push(...inner);
    } else return null;
  }
  return [...new Set(out)];
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
    out.push({ field, message: koreanMessage(e, field) });
  }
  return out;
}
