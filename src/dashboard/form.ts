/** Reading urlencoded form bodies: strings, repeated fields, lists typed one per line or comma-separated. */

export type FormBody = Record<string, unknown>;

export function field(body: unknown, name: string, max = 2000): string {
  const v = (body as FormBody | undefined)?.[name];
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' ? s.trim().slice(0, max) : '';
}

/** A field that may repeat (`scopes=a&scopes=b`, checkboxes, multi-selects). */
export function fields(body: unknown, name: string): string[] {
  const v = (body as FormBody | undefined)?.[name];
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim());
}

/** A textarea list: entries separated by newlines or commas, blanks dropped. */
export function lines(body: unknown, name: string): string[] {
  return field(body, name, 20_000)
    .split(/[\n,]+/)
    .map((x) => x.trim())
    .filter(Boolean);
}
