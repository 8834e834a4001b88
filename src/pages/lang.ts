/**
 * The buyer pages' one way to choose a language (payment page, receipt, portal, buyer page, status pages):
 * 1. `?lang=en|ko` in the address: the visible switch on every page links there (the rest of the address kept), and
 *    the choice is remembered in the `lang` cookie;
 * 2. the language the seller fixed on the checkout session (`locale` sent at creation), on that session's pages;
 * 3. the `lang` cookie the switch set;
 * 4. `Accept-Language`: English when the browser prefers English over Korean;
 * 5. Korean.
 * Korean and English only; both copy objects of a page have the same shape (compiler-checked).
 */
import { kstDate } from '../platform/calendar';
import { html, type SafeHtml } from './html';

export type Lang = 'ko' | 'en';
export const LANGS: readonly Lang[] = ['ko', 'en'];
export const LANG_COOKIE = 'lang';
/** A year: the buyer chose a language, not a session. */
const COOKIE_MAX_AGE = 365 * 24 * 3600;

export const isLang = (v: unknown): v is Lang => v === 'ko' || v === 'en';
const first = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);

/**
 * `Accept-Language` read by its q-values: 'en' when an English tag ranks above every Korean one, 'ko' when Korean
 * ranks first, null when it names neither (then the default applies).
 */
export function fromAcceptLanguage(header: string | undefined): Lang | null {
  if (!header) return null;
  let best: { lang: Lang; q: number; pos: number } | null = null;
  header.split(',').slice(0, 20).forEach((part, pos) => {
    const [tag, ...params] = part.trim().toLowerCase().split(';');
    const base = tag.split('-')[0];
    if (base !== 'en' && base !== 'ko') return;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qp ? Number(qp.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) return;
    if (!best || q > best.q || (q === best.q && pos < best.pos)) best = { lang: base, q, pos };
  });
  return (best as { lang: Lang } | null)?.lang ?? null;
}

/** The `lang` cookie's value from a raw Cookie header (the pages do not all register a cookie plugin). */
export function cookieLang(cookieHeader: string | undefined): Lang | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const [k, v] = part.trim().split('=');
    if (k === LANG_COOKIE && isLang(v)) return v;
  }
  return null;
}

export interface LangRequest {
  query?: unknown;
  headers: Record<string, string | string[] | undefined>;
}

export interface LangChoice {
  lang: Lang;
  /** A Set-Cookie value to send when the address chose the language (the switch was used). */
  setCookie: string | null;
}

/** The page's language for a request (see the order above); `fixed` is the session's language when the seller set one. */
export function chooseLang(req: LangRequest, fixed: Lang | null = null): LangChoice {
  const q = first((req.query as Record<string, unknown> | undefined)?.lang);
  if (isLang(q)) return { lang: q, setCookie: `${LANG_COOKIE}=${q}; Path=/; Max-Age=${COOKIE_MAX_AGE}; SameSite=Lax` };
  if (fixed) return { lang: fixed, setCookie: null };
  const header = (k: string) => {
    const v = req.headers[k];
    return Array.isArray(v) ? v.join(',') : v;
  };
  return { lang: cookieLang(header('cookie')) ?? fromAcceptLanguage(header('accept-language')) ?? 'ko', setCookie: null };
}

/** The address of this page in the other language: the same path and query, `lang` replaced. */
export function switchHref(here: string, to: Lang): string {
  const u = new URL(here, 'http://x');
  u.searchParams.set('lang', to);
  return `${u.pathname}${u.search}`;
}

const SWITCH_LABEL: Record<Lang, string> = { ko: '한국어', en: 'English' };

/** The visible switch: a link to the same page in the other language, labelled in that language. */
export function langSwitch(here: string, current: Lang): SafeHtml {
  const to: Lang = current === 'en' ? 'ko' : 'en';
  return html`<a class="lang" id="lang-switch" href="${switchHref(here, to)}" hreflang="${to}" lang="${to}">${SWITCH_LABEL[to]}</a>`;
}

const KST_OFFSET_MS = 9 * 3_600_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Nov 1, 2026` (KST date). */
export function enDay(d: Date): string {
  const k = new Date(d.getTime() + KST_OFFSET_MS);
  return `${MONTHS[k.getUTCMonth()]} ${k.getUTCDate()}, ${k.getUTCFullYear()}`;
}

/** `Nov 1, 2026, 3:05 PM KST`, whatever the server's time zone and ICU data. */
export function enTime(d: Date): string {
  const k = new Date(d.getTime() + KST_OFFSET_MS);
  const h = k.getUTCHours();
  return `${enDay(d)}, ${h % 12 === 0 ? 12 : h % 12}:${String(k.getUTCMinutes()).padStart(2, '0')} ${h < 12 ? 'AM' : 'PM'} KST`;
}

/** `2026년 11월 1일` (KST date). */
export function koDay(d: Date): string {
  const [y, m, day] = kstDate(d).split('-').map(Number);
  return `${y}년 ${m}월 ${day}일`;
}

/** An amount in won as an English reader writes it: `₩12,000`. */
export const enWon = (n: number): string => `${n < 0 ? '-' : ''}₩${Math.abs(n).toLocaleString('en-US')}`;
