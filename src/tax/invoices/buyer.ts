import type { AppDeps } from '../../deps';
import { BANK_METHODS, issueDeadline } from './model';
import * as repo from './repo';
import { deadlineDay, invoiceView, type TaxInvoiceView } from './view';

/** What the receipt page shows of the order's 세금계산서: its documents, and whether the buyer may still ask for one. */
export async function buyerTaxInvoices(deps: Pick<AppDeps, 'db' | 'clock'>, orderId: string): Promise<{ invoices: TaxInvoiceView[]; canRequest: boolean; cardPayment: boolean; deadline: string | null }> {
  const order = await repo.findOrder(deps.db, orderId);
  if (!order) return { invoices: [], canRequest: false, cardPayment: false, deadline: null };
  const invoices = (await repo.listForOrder(deps.db, orderId)).map(invoiceView);
  const bank = BANK_METHODS.has(order.method);
  const open = order.status === 'awaiting_deposit' || (order.status === 'paid' && !!order.paid_at && deps.clock.now() < issueDeadline(order.paid_at));
  const canRequest = bank && open && invoices.length === 0 && order.amount - (order.refunded_amount ?? 0) > 0 && !(await repo.hasCashReceipt(deps.db, orderId));
  return { invoices, canRequest, cardPayment: !bank && order.amount > 0, deadline: order.paid_at ? deadlineDay(order.paid_at) : null };
}
