import { Type, type StringOptions } from '@sinclair/typebox';

/**
 * Shared rules for text that people type and other people read.
 *
 * E-mail addresses: the HTML standard's "valid e-mail address" grammar
 * (https://html.spec.whatwg.org/#valid-e-mail-address), its regex with one restriction kept from before: the domain
 * has at least one dot (`a@b` is valid HTML but undeliverable on the internet), so every address accepted here is a
 * valid HTML e-mail address. No quoted local parts, no comments, no IP literals, no non-ASCII (so no bidi controls
 * either). The same regex backs the Ajv `email` format, so a schema's `format: 'email'` and the hand-written checks
 * of the hosted pages and the dashboard agree.
 *
 * Bidi controls (U+202A-U+202E embeddings/overrides, U+2066-U+2069 isolates, U+200E/U+200F marks, U+061C) can make
 * a name, a product or a reason read differently from what it is (e.g. "‮fdp.exe"), so free-text fields shown
 * to others refuse them: `NO_BIDI_PATTERN` in schemas (documented in OpenAPI), `hasBidiControl` in forms.
 */
export const EMAIL_RE = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

export const BIDI_CONTROLS = '\\u202A-\\u202E\\u2066-\\u2069\\u200E\\u200F\\u061C';
const BIDI_RE = new RegExp(`[${BIDI_CONTROLS}]`);
/** A JSON Schema pattern: the whole string holds no bidi control. */
export const NO_BIDI_PATTERN = `^[^${BIDI_CONTROLS}]*$`;

/** True for a valid e-mail address as the HTML standard defines it (and at most 254 characters). */
export function isValidEmail(s: string): boolean {
  if (s.length > 254 || !EMAIL_RE.test(s)) return false;
  // The local part is also an RFC 5321 dot-atom: no dot at its start or end, no two dots in a row (`a..b@`, `.a@`).
  // The HTML grammar lets those through; mail servers and JSON Schema's `format: email` refuse them.
  const local = s.slice(0, s.lastIndexOf('@'));
  return !local.startsWith('.') && !local.endsWith('.') && !local.includes('..');
}

export function hasBidiControl(s: string): boolean {
  return BIDI_RE.test(s);
}

/** Korean message naming the field, for VALIDATION_FAILED's `details.fields`. */
export const bidiMessage = (field: string): string => `${field}에는 글자 방향을 바꾸는 제어 문자(U+202A~U+202E, U+2066~U+2069, U+200E, U+200F, U+061C)를 쓸 수 없습니다.`;

/** A free-text string shown to other people: refuses bidi controls (the pattern shows in OpenAPI). */
export const PlainText = (opts: StringOptions = {}) =>
  Type.String({ ...opts, pattern: NO_BIDI_PATTERN, description: opts.description ? `${opts.description} (no bidi control characters)` : 'No bidi control characters' });

/** Control characters a one-line name never holds: all of C0 (tab, CR and LF included) and DEL. */
export const LINE_CONTROLS = '\\u0000-\\u001F\\u007F';
const LINE_CONTROL_RE = new RegExp(`[${LINE_CONTROLS}]`);
/** A JSON Schema pattern: one line of text with no control character and no bidi control. */
export const ONE_LINE_PATTERN = `^[^${LINE_CONTROLS}${BIDI_CONTROLS}]*$`;

export function hasLineControl(s: string): boolean {
  return LINE_CONTROL_RE.test(s);
}

/**
 * The rule of `OneLineText` for hand-read forms: why a one-line name is refused (`control`: NUL, tab, line breaks,
 * any C0 or DEL; `bidi`: a direction control), or null when it may be stored.
 */
export function oneLineProblem(s: string): 'control' | 'bidi' | null {
  return hasLineControl(s) ? 'control' : hasBidiControl(s) ? 'bidi' : null;
}

/** Korean message naming the field, for a one-line field given a control character. */
export const lineControlMessage = (field: string): string => `${field}에는 줄바꿈, 탭 등 제어 문자를 쓸 수 없습니다.`;

/** A one-line name shown to others (the store's name on pages, receipts and mails): no control or bidi character. */
export const OneLineText = (opts: StringOptions = {}) =>
  Type.String({ ...opts, pattern: ONE_LINE_PATTERN, description: opts.description ? `${opts.description} (one line: no control or bidi characters)` : 'One line: no control or bidi characters' });

/** An e-mail address as the HTML standard's grammar defines it. */
export const EmailText = (opts: StringOptions = {}) => Type.String({ maxLength: 254, ...opts, format: 'email' });
