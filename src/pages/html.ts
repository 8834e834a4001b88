/**
 * A tiny auto-escaping template: every interpolated value is HTML-escaped unless it is already SafeHtml (the result
 * of another `html` template or of `raw`). Arrays render each item; null, undefined and false render nothing.
 * Escaping covers text and quoted attribute values; URLs placed in href are only ever our own paths or return URLs
 * already checked to be http(s).
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => ESCAPES[c]);
}

function render(v: unknown): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/** Trusted markup only (constants written in this module). */
export const raw = (s: string): SafeHtml => new SafeHtml(s);

/** JSON for an inline <script>: `<`, U+2028 and U+2029 escaped so the data can never end the script element. */
export function scriptJson(value: unknown): SafeHtml {
  return new SafeHtml(JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029'));
}

export function won(n: number): string {
  return `${n.toLocaleString('ko-KR')}원`;
}

const KST_OFFSET_MS = 9 * 3_600_000; // Korea has no daylight saving time

/** `오후 3:05`: the 12-hour clock with 오전/오후 as Korean buyers read it (ICU builds without Korean data print "PM"). */
export function kstTime(d: Date): string {
  const k = new Date(d.getTime() + KST_OFFSET_MS);
  const h = k.getUTCHours();
  return `${h < 12 ? '오전' : '오후'} ${h % 12 === 0 ? 12 : h % 12}:${String(k.getUTCMinutes()).padStart(2, '0')}`;
}

/** `2026년 11월 1일 오후 3:05` in Korea time, whatever the server's time zone and ICU data. */
export function kst(d: Date): string {
  const k = new Date(d.getTime() + KST_OFFSET_MS);
  return `${k.getUTCFullYear()}년 ${k.getUTCMonth() + 1}월 ${k.getUTCDate()}일 ${kstTime(d)}`;
}

/** A phone number in the usual hyphenated form (`010-1234-5678`, `02-123-4567`); anything else unchanged. */
export function displayPhone(p: string): string {
  const d = p.replace(/\D/g, '');
  if (/^02\d{7,8}$/.test(d)) return `02-${d.slice(2, d.length - 4)}-${d.slice(-4)}`;
  if (/^0\d{9,10}$/.test(d)) return `${d.slice(0, 3)}-${d.slice(3, d.length - 4)}-${d.slice(-4)}`;
  return p;
}
