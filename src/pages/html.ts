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

const KST = new Intl.DateTimeFormat('ko-KR', { timeZone: 'Asia/Seoul', year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit' });
export function kst(d: Date): string {
  return KST.format(d);
}
