import { ownValue } from '../../platform/lookup';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { html, raw, type SafeHtml } from '../../pages/html';
import { ApiError, type FieldError } from '../../platform/errors';
import { ajvToFields, validatorCompiler } from '../../platform/http/validation';
import type { Lang } from '../i18n';
import { ctxOf, type DashboardContext } from '../frame';

// Shared pieces of the business pages (orders, refund requests, subscriptions, catalog, licenses): query parsing,
// formatting, the pager, and turning a service's ApiError into a message on the page.

export const PAGE_SIZE = 20;

/**
 * Narrow screens drop the columns marked `.wide`; the rest of a table scrolls inside its own box, never the page.
 * `.primary` is a darker blue here: the frame's #3182f6 under white 14px text is 3.6:1, below WCAG AA (axe: color-contrast).
 */
export const BIZ_CSS = raw(`<style>
.dash h1{overflow-wrap:anywhere}
.dash h3{font-size:15px;margin:14px 0 6px}
.tag{white-space:nowrap}
.table-wrap table.stack{min-width:0}
td.num{white-space:nowrap}
.dash button:disabled{opacity:.55;cursor:not-allowed}
.dash input[type=datetime-local]{width:100%;font-size:16px;padding:10px 12px;border:1px solid #d1d6db;border-radius:10px;background:#fff;color:#191f28}
.planrow{border:1px solid #e5e8eb;border-radius:10px;padding:4px 12px 12px;margin-bottom:8px}
@media (max-width:640px){
.wide{display:none}
table.stack thead{display:none}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
table.stack tr{padding:10px 12px;border-bottom:1px solid #e5e8eb}
table.stack td{border:0;padding:2px 0;text-align:left}
table.stack td[data-label]::before{content:attr(data-label) " · ";color:#4e5968;font-size:13px}
table.stack tr.testrow{box-shadow:inset 4px 0 0 #f59f00;padding-left:14px}
.testrow td:first-child{box-shadow:none}
}
.detail{display:grid;grid-template-columns:minmax(110px,auto) 1fr;gap:6px 14px;margin:0}
.detail dt{color:#4e5968;font-size:14px}
.detail dd{margin:0;overflow-wrap:anywhere}
.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:12px}
.dash textarea{min-height:72px}
.check{display:flex;gap:8px;align-items:center;font-weight:500}
.check input{width:auto}
.lock{background:#fff4e5;border:1px solid #ffd8a8;border-radius:10px;padding:10px 12px;font-size:14px;margin:8px 0}
.deadline{font-weight:700;color:#a61b12}
.small{font-size:13px}
.dash .primary{background:#1b64da}
.dash .err{color:#b3261e}
</style>`);

// ---------- query strings ----------

export type Query = Record<string, unknown>;

export function str(v: unknown, max = 200): string | undefined {
  if (Array.isArray(v)) v = v[0];
  return typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : undefined;
}

export function pageOf(q: Query): number {
  const n = Number.parseInt(String(str(q.page) ?? '1'), 10);
  return Number.isSafeInteger(n) && n >= 1 ? Math.min(n, 1000) : 1;
}

export function oneOf<T extends string>(v: unknown, allowed: readonly T[]): T | undefined {
  const s = str(v);
  return s && (allowed as readonly string[]).includes(s) ? (s as T) : undefined;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A date typed in the filter (YYYY-MM-DD) as the start of that day in Korea (UTC+9, no daylight saving), so "from
 * 11-20 to 11-20" means that whole Korean day. `endOfDay` gives the next day's start (an exclusive bound).
 */
export function kstDay(v: unknown, endOfDay = false): Date | undefined {
  const m = DAY.exec(str(v) ?? '');
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + (endOfDay ? 1 : 0)) - 9 * 3_600_000);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** An integer typed by a person: commas, spaces and a trailing 원 are allowed ("15,000원"). */
export function intField(v: unknown): number | undefined | 'invalid' {
  const s = str(v, 40)?.replace(/[,\s원]/g, '');
  if (s === undefined || s === '') return undefined;
  if (!/^-?\d+$/.test(s)) return 'invalid';
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : 'invalid';
}

export const checked = (v: unknown) => v === 'on' || v === 'true' || v === '1';

/** A `datetime-local` value (Korean time) as an ISO instant; '' clears it (null). */
export function kstDateTime(v: unknown): string | null | undefined | 'invalid' {
  if (v === undefined) return undefined;
  const s = str(v, 40);
  if (!s) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(s);
  if (!m) return 'invalid';
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5]) - 9 * 3_600_000);
  return Number.isNaN(d.getTime()) ? 'invalid' : d.toISOString();
}

/** An ISO instant as a `datetime-local` value in Korean time. */
export function toKstInput(iso: string | null): string {
  if (!iso) return '';
  return new Date(new Date(iso).getTime() + 9 * 3_600_000).toISOString().slice(0, 16);
}

// ---------- formatting ----------

const KST_TIME = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Seoul', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });

export function when(iso: string | Date | null | undefined): SafeHtml | string {
  if (!iso) return '—';
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  return html`<time datetime="${d.toISOString()}">${KST_TIME.format(d)}</time>`;
}

export function money(lang: Lang, n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  return lang === 'en' ? `₩${n.toLocaleString('en-US')}` : `${n.toLocaleString('ko-KR')}원`;
}

/** "2일 5시간" / "2d 5h" until `target`; "지남" once past. */
export function remaining(lang: Lang, now: Date, target: Date): string {
  const ms = target.getTime() - now.getTime();
  if (ms <= 0) return lang === 'en' ? 'overdue' : '기한 지남';
  const mins = Math.floor(ms / 60_000);
  const d = Math.floor(mins / 1440);
  const h = Math.floor((mins % 1440) / 60);
  const m = mins % 60;
  if (lang === 'en') return d > 0 ? `${d}d ${h}h left` : h > 0 ? `${h}h ${m}m left` : `${m}m left`;
  return d > 0 ? `${d}일 ${h}시간 남음` : h > 0 ? `${h}시간 ${m}분 남음` : `${m}분 남음`;
}

export function tag(label: string, kind: 'good' | 'bad' | 'test' | '' = ''): SafeHtml {
  return html`<span class="tag ${kind}">${label}</span>`;
}

// ---------- the pager ----------

export function pager(lang: Lang, page: number, total: number, limit: number, link: (p: number) => string, bounded?: { atLeast: boolean; shown: number }): SafeHtml {
  const pages = Math.max(1, Math.ceil(total / limit));
  const en = lang === 'en';
  // A bounded count ("10,000건 이상"): the number of pages is unknown, so the page says where it is and offers the next
  // page while this one is full.
  const atLeast = bounded?.atLeast === true;
  const label = atLeast
    ? en ? `Page ${page} · ${total.toLocaleString('en-US')} or more` : `${page} 페이지 · ${total.toLocaleString('ko-KR')}건 이상`
    : en ? `Page ${page} of ${pages} · ${total} in all` : `${page} / ${pages} 페이지 · 총 ${total}건`;
  const hasNext = atLeast ? bounded!.shown >= limit : page < pages;
  return html`<nav class="pager" aria-label="${en ? 'Pages' : '페이지'}">${page > 1 ? html`<a href="${link(page - 1)}" rel="prev">${en ? 'Previous' : '이전'}</a>` : html`<span></span>`}<span data-testid="pager-total">${label}</span>${hasNext ? html`<a href="${link(page + 1)}" rel="next">${en ? 'Next' : '다음'}</a>` : html`<span></span>`}</nav>`;
}

/** A query string of the non-empty values. */
export function qs(values: Record<string, string | number | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

// ---------- forms and errors ----------

/** What went wrong with a form, to show above it: the service's Korean message and, for validation, each field's. */
export interface Problem {
  message: string;
  fields: FieldError[];
  status: number;
}

export function problemOf(err: unknown): Problem | null {
  if (!(err instanceof ApiError) || err.statusCode >= 500 && !err.code.startsWith('PG_')) return null;
  const details = (err.details ?? {}) as { fields?: FieldError[] };
  return { message: err.message, fields: details.fields ?? [], status: err.statusCode };
}

export function problemBox(p: Problem | null): SafeHtml | '' {
  if (!p) return '';
  return html`<div class="banner error" role="alert" data-testid="problem"><p style="margin:0">${p.message}</p>${
    p.fields.length ? html`<ul style="margin:6px 0 0;padding-left:18px">${p.fields.map((f) => html`<li><code>${f.field}</code>: ${f.message}</li>`)}</ul>` : ''
  }</div>`;
}

/**
 * Checks a form's parsed body against the same TypeBox schema the console API validates with (one rule, two
 * doors): VALIDATION_FAILED with the fields in the API's Korean wording otherwise.
 */
export function validateLike(schema: object, body: unknown): void {
  const fn = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/dashboard' } as any) as ((d: unknown) => boolean) & { errors?: any[] };
  if (!fn(body)) throw new ApiError('VALIDATION_FAILED', { details: { fields: ajvToFields(fn.errors ?? [], 'body') } });
}

/**
 * Runs a page action: the change (which throws ApiError for a refused one), then `done` (audit, redirect). A refusal
 * re-renders the page with the message and the API's status, so nothing typed is lost and no error page appears.
 */
export async function act<T>(
  req: FastifyRequest,
  reply: FastifyReply,
  change: (ctx: DashboardContext) => Promise<T>,
  done: (result: T, ctx: DashboardContext) => Promise<FastifyReply>,
  refused: (p: Problem, ctx: DashboardContext) => Promise<FastifyReply>,
): Promise<FastifyReply> {
  const ctx = ctxOf(req);
  let result: T;
  try {
    result = await change(ctx);
  } catch (err) {
    const p = problemOf(err);
    if (!p) throw err;
    return refused(p, ctx);
  }
  return done(result, ctx);
}

/** A one-line flash after post/redirect/get, from `?done=` (a fixed set of keys, so nothing typed is echoed). */
export function flash(done: string | undefined, messages: Record<string, string>): SafeHtml | '' {
  // Own keys only: `?done=toString` must not print Object.prototype.toString's source.
  const text = ownValue(messages, done);
  if (text === undefined) return '';
  return html`<div class="banner info" role="status" data-testid="flash">${text}</div>`;
}

/** Both languages side by side at the call site, so neither can be forgotten. */
export const tr = (lang: Lang, ko: string, en: string): string => (lang === 'en' ? en : ko);

export const ORDER_STATUS_LABEL: Record<string, [string, string]> = {
  pending: ['결제 대기', 'Pending'],
  awaiting_deposit: ['입금 대기', 'Awaiting deposit'],
  expired: ['입금 기한 만료', 'Deposit expired'],
  paid: ['결제 완료', 'Paid'],
  refunded: ['전액 환불', 'Refunded'],
  failed: ['실패', 'Failed'],
  canceled: ['취소됨', 'Canceled'],
};

export const REFUND_STATUS_LABEL: Record<string, [string, string]> = {
  pending: ['처리 중', 'Pending'],
  succeeded: ['완료', 'Succeeded'],
  failed: ['실패', 'Failed'],
  unknown: ['결과 확인 중', 'Checking'],
};

export const DELIVERY_STATUS_LABEL: Record<string, [string, string]> = { pending: ['전송 대기', 'Pending'], succeeded: ['성공', 'Delivered'], failed: ['실패', 'Failed'] };

/** A status from one of the label tables above, green for the good end, red for the bad one. */
export function labelTag(lang: Lang, labels: Record<string, [string, string]>, s: string, good: string, bad: string[]): SafeHtml {
  const [ko, en] = labels[s] ?? [s, s];
  return tag(tr(lang, ko, en), s === good ? 'good' : bad.includes(s) ? 'bad' : '');
}

export const LICENSE_STATUS_LABEL: Record<string, [string, string]> = { active: ['활성', 'Active'], pending: ['발급 대기', 'Pending'], expired: ['만료', 'Expired'], revoked: ['폐기', 'Revoked'] };

export const METHOD_LABEL: Record<string, [string, string]> = { card: ['카드', 'Card'], kakao_pay: ['카카오페이', 'Kakao Pay'], naver_pay: ['네이버페이', 'Naver Pay'], toss: ['토스페이', 'Toss Pay'], transfer: ['계좌이체', 'Bank transfer'], virtual_account: ['가상계좌', 'Virtual account'],
  mobile_phone: ['휴대폰', 'Mobile phone bill'], culture_gift: ['문화상품권', 'Culture gift certificate'], book_gift: ['도서문화상품권', 'Book gift certificate'], game_gift: ['게임문화상품권', 'Game gift certificate'] };

export function orderStatusTag(lang: Lang, o: { status: string; refundedAmount: number | null }): SafeHtml {
  if (o.status === 'paid' && (o.refundedAmount ?? 0) > 0) return tag(tr(lang, '부분 환불', 'Partly refunded'), '');
  const [ko, en] = ORDER_STATUS_LABEL[o.status] ?? [o.status, o.status];
  return tag(tr(lang, ko, en), o.status === 'paid' ? 'good' : o.status === 'refunded' || o.status === 'failed' ? 'bad' : '');
}
