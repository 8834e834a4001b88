import { html } from '../../pages/html';
import type { DashboardContext } from '../frame';
import { tr } from './kit';

/** The catalog's two tabs (products, coupons), shared by both pages. */
export function catalogTabs(ctx: DashboardContext, current: 'products' | 'coupons') {
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  const a = (href: string, label: string, on: boolean) => html`<a class="button ${on ? 'primary' : 'plain'}" href="${href}"${on ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="actions" aria-label="${L('카탈로그', 'Catalog')}" style="margin-bottom:12px">${a('/dashboard/products', L('상품', 'Products'), current === 'products')}${a('/dashboard/coupons', L('쿠폰', 'Coupons'), current === 'coupons')}</nav>`;
}
