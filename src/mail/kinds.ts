/**
 * The mails the service sends to buyers, and which event causes which (issue 21). Pure: the hook (hook.ts) applies
 * it inside the event's transaction. Unknown event types and change kinds give no mail.
 */
export const MAIL_KINDS = [
  'order_confirmation',
  'subscription_started',
  'renewal_receipt',
  'refund_completed',
  'refund_request_received',
  'refund_request_decided',
  'payment_failed',
  'cancellation_confirmed',
  'subscription_ended',
  'renewal_upcoming',
  'trial_will_end',
  'price_change_scheduled',
  'price_change_accepted',
  'plan_change_offered',
  'virtual_account_issued',
] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

export const isMailKind = (k: string): k is MailKind => (MAIL_KINDS as readonly string[]).includes(k);

/** One line per kind: what triggers it (OpenAPI descriptions, dashboard settings, README). */
export const MAIL_KIND_TRIGGERS: Record<MailKind, string> = {
  order_confirmation: '`order.paid` of a one-time order, or of a subscription\'s plan-change difference',
  subscription_started: '`order.paid` of a subscription\'s first order',
  renewal_receipt: '`order.paid` of a renewal',
  refund_completed: '`order.refunded`',
  refund_request_received: '`refund_request.created`',
  refund_request_decided: '`refund_request.updated` that approves or rejects',
  payment_failed: '`subscription.updated` with `change.kind` `payment_failed` (each dunning retry)',
  cancellation_confirmed: '`subscription.updated` with `change.kind` `cancel_scheduled`',
  subscription_ended: '`subscription.ended`',
  renewal_upcoming: '`subscription.updated` with `change.kind` `renewal_upcoming` (yearly plans, MAIL_RENEWAL_NOTICE_DAYS before)',
  trial_will_end: '`subscription.updated` with `change.kind` `trial_will_end`',
  price_change_scheduled: '`subscription.updated` with `change.kind` `price_change_scheduled`',
  price_change_accepted: '`subscription.updated` with `change.kind` `price_change_accepted`',
  plan_change_offered: '`subscription.updated` with `change.kind` `plan_change_offered` (a seller\'s dearer plan change awaiting the buyer\'s consent)',
  virtual_account_issued: '`order.awaiting_deposit` (a 가상계좌 issued: bank, account number, holder, amount and deposit deadline)',
};

/** The kind an event asks for, or null (no mail). Refund requests name no buyer: the hook looks the order up. */
export function mailKindOf(type: string, data: Record<string, unknown>): MailKind | null {
  switch (type) {
    case 'order.paid': {
      const se = data.subscriptionEvent;
      if (se === 'initial') return 'subscription_started';
      if (se === 'renewal') return 'renewal_receipt';
      return 'order_confirmation';
    }
    case 'order.refunded':
      return 'refund_completed';
    case 'order.awaiting_deposit':
      return 'virtual_account_issued';
    case 'refund_request.created':
      return 'refund_request_received';
    case 'refund_request.updated': {
      const decided = data.status === 'approved' || data.status === 'rejected';
      return decided && data.previousStatus !== data.status ? 'refund_request_decided' : null;
    }
    case 'subscription.ended':
      return 'subscription_ended';
    case 'subscription.updated': {
      const change = data.change as { kind?: unknown } | undefined;
      switch (change?.kind) {
        case 'payment_failed':
          return 'payment_failed';
        case 'cancel_scheduled':
          return 'cancellation_confirmed';
        case 'price_change_scheduled':
          // Agreed to on the payment page (the subscription-started mail quotes that consent): nothing to ask.
          return 'acceptedAt' in change && change.acceptedAt ? null : change.kind;
        case 'renewal_upcoming':
        case 'trial_will_end':
        case 'price_change_accepted':
        case 'plan_change_offered':
          return change.kind;
        default:
          return null;
      }
    }
    default:
      return null;
  }
}

/** The buyer's address straight from the event's data, when it carries one. */
export function recipientOf(type: string, data: Record<string, unknown>): string | null {
  if (type === 'order.refunded') return str((data.order as Record<string, unknown> | undefined)?.buyerEmail);
  return str(data.buyerEmail);
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.includes('@') ? v : null);
