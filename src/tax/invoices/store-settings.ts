import { Type } from '@sinclair/typebox';
import type { StoreSettingsSection } from '../../stores/settings-section';
import { issueSetting, setIssueSetting } from './repo';

const TaxInvoiceIssueSchema = Type.Union([Type.Literal('manual'), Type.Literal('auto')], {
  description:
    'How a 세금계산서 a buyer asks for is issued: `manual` (default: the seller issues it from the dashboard or `POST /admin/v1/tax-invoices/{id}/issue`, ' +
    'by the 10th of the month after the payment) or `auto` (issued as soon as the order is paid; a 가상계좌 at its deposit).',
});

/** The store's 세금계산서 setting, carried in `Store` / `UpdateStoreRequest` through the store's settings port. */
export const storeTaxInvoiceSettings: StoreSettingsSection = {
  view: { taxInvoiceIssue: TaxInvoiceIssueSchema },
  patch: { taxInvoiceIssue: Type.Optional(TaxInvoiceIssueSchema) },
  async read(deps, storeId) {
    return { taxInvoiceIssue: await issueSetting(deps.db, storeId) };
  },
  async check() {},
  async write(deps, storeId, body, now) {
    const v = body.taxInvoiceIssue as 'manual' | 'auto' | undefined;
    if (v) await setIssueSetting(deps.db, storeId, v, now);
  },
};
