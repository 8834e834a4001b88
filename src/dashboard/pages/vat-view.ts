import { html, type SafeHtml } from '../../pages/html';
import { addDays } from '../../platform/calendar';
import { resolvePeriod } from '../../tax/service';
import { periodChoices, type VatPeriod } from '../../tax/periods';
import { VAT_CATEGORIES, type VatCategory } from '../../tax/model';
import type { Lang } from '../i18n';
import { oneOf, qs, str, tr, type Query } from './kit';

// The period picker and labels shared by the 부가세 report page and its drill-down (vat.ts).

export const CATEGORY_TEXT: Record<VatCategory, [string, string]> = {
  tax_invoice: ['세금계산서 발급분', 'Tax invoices (세금계산서)'],
  card: ['신용카드 (간편결제 포함)', 'Cards incl. easy pays'],
  cash_receipt: ['현금영수증', 'Cash receipts (현금영수증)'],
  other: ['기타 매출 (정규영수증 외)', 'Other sales (no evidence)'],
  foreign: ['해외 매출', 'Foreign sales'],
};

/**
 * The period the page's query names: `period` (a code, or `custom` with `from`/`to`), where the person types the
 * LAST day included (a date input reads that way) and the service takes the first day excluded, hence the +1 day.
 * Without a period, the current quarter. Returns the query values to carry in links, and the service's period (or
 * its refusal, thrown as the API's ApiError).
 */
export function pickedPeriod(q: Query, now: Date): { link: Record<string, string | undefined>; period: () => VatPeriod } {
  const code = str(q.period, 10);
  const from = str(q.from, 10);
  const to = str(q.to, 10);
  if (code === 'custom' || (!code && (from || to))) {
    const toExcl = to && /^\d{4}-\d{2}-\d{2}$/.test(to) && !Number.isNaN(Date.parse(`${to}T00:00:00Z`)) ? addDays(to, 1) : to;
    return { link: { period: 'custom', from, to }, period: () => resolvePeriod({ from, to: toExcl }, now) };
  }
  return { link: { period: code }, period: () => resolvePeriod({ period: code }, now) };
}

export const categoryOf = (q: Query): VatCategory | undefined => oneOf(q.category, VAT_CATEGORIES);
export const kindOf = (q: Query): 'sale' | 'refund' | undefined => oneOf(q.kind, ['sale', 'refund'] as const);

/** The picker: this and last year's 과세기간 and quarters, or a custom range of days. */
export function periodForm(lang: Lang, now: Date, link: Record<string, string | undefined>, current: VatPeriod | null, action: string, extra: SafeHtml | '' = ''): SafeHtml {
  const L = (ko: string, en: string) => tr(lang, ko, en);
  const choices = periodChoices(now);
  const selected = link.period === 'custom' ? 'custom' : (current?.code ?? link.period ?? '');
  const lastDay = current ? addDays(current.to, -1) : '';
  return html`<form class="card filters vat-filters" method="get" action="${action}" data-testid="vat-period">
  <div><label for="v-period">${L('신고 기간', 'Period')}</label><select id="v-period" name="period">
    ${choices.map((p) => html`<option value="${p.code!}"${selected === p.code ? html` selected` : ''}>${p.label}</option>`)}
    <option value="custom"${selected === 'custom' ? html` selected` : ''}>${L('직접 지정 (아래 날짜)', 'Custom (dates below)')}</option>
  </select></div>
  <div><label for="v-from">${L('시작일', 'From')}</label><input type="date" id="v-from" name="from" value="${link.from ?? current?.from ?? ''}"></div>
  <div><label for="v-to">${L('종료일 (포함)', 'To (inclusive)')}</label><input type="date" id="v-to" name="to" value="${link.to ?? lastDay}"></div>
  ${extra}
  <div class="actions"><button type="submit" class="primary">${L('조회', 'Show')}</button></div>
</form>`;
}

/** The query string that names a period in links (the drill-down, the CSV, the pager). */
export const periodQs = (link: Record<string, string | undefined>, more: Record<string, string | number | undefined> = {}) => qs({ ...link, ...more });
