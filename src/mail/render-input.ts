/**
 * What rendering a buyer mail takes and gives: the kind, the event's data and what was read at send time (dispatch.ts
 * gathers it), and the subject, HTML and plain text that come out (render.ts).
 */
import type { BusinessDetailsView } from '../stores/schemas';
import type { OrderView } from '../orders/schemas';
import type { MailKind } from './kinds';
import type { SaleTerms } from '../orders/terms';
import type { PriceSchedule } from './copy/recurring-price';

/**
 * The buyer mails, in the buyer's language: Korean by default, English when the checkout session said `locale: 'en'`
 * (recorded on the order and the subscription; dispatch.ts reads it). Each mail is HTML
 * with a plain-text alternative, the store's name and its 사업자 정보 footer. No tracking: no images, no pixels, and
 * every link is a plain URL of this service (receipt, portal) with nothing added to it.
 */
export interface RenderInput {
  kind: MailKind;
  /** The event's data (Order, Subscription, Refund request…). */
  data: Record<string, unknown>;
  storeName: string;
  business: BusinessDetailsView | null;
  /** The order the mail is about, read at send time (its licences as they are now). */
  order: OrderView | null;
  /**
   * The subscription: for subscription events, the event's record over the current view (the mail tells what the
   * event said; fields other helpers add, e.g. recurringConsent, read when present); otherwise the current view.
   */
  subscription: Record<string, unknown> | null;
  /** A buyer-portal link minted for this mail (payment failed, trial and price notices). */
  portalUrl: string | null;
  /**
   * The 구독 관리 link of a mail about a subscription (every subscription mail): a signed link that opens a fresh
   * portal session of that subscription when clicked (src/subscriptions/portal/manage-link.ts). The layout adds it
   * to any mail whose copy carries no portal link of its own. Null (or absent) for mails about no subscription.
   */
  manageUrl?: string | null;
  /** The buyer's language (the order's or subscription's `locale`); Korean when absent. */
  lang?: MailLang;
  /** Order mails: what the order was sold under (its terms as kept with it) and the plan's name, for the 제13조② notes. */
  sold?: { terms: SaleTerms | null; planName: string | null } | null;
  /** The subscription-started mail: a plan price change the subscription was told about at its start, if any. */
  priceSchedule?: PriceSchedule | null;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export type MailLang = 'ko' | 'en';
