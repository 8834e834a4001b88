/**
 * What the buyer portal's views are drawn from (one page: the buyer's subscriptions, each with what they may do, and
 * their orders) and the small pieces every part of it shares: dates in KST, interval names, the CSRF field.
 */
import type { CancelPreviewView } from '../../subscriptions/cancel/schemas';
import type { SubscriptionView } from '../../subscriptions/schemas';
import type { OrderView } from '../../orders/schemas';
import { html, type SafeHtml } from '../html';
import type { BusinessDetailsView } from '../../stores/schemas';
import type { PortalPriceChange } from '../../subscriptions/price-change/acceptance';
import type { PortalPlanOffer } from '../../subscriptions/plan-change/offers';
import type { TrialConsentState } from '../../subscriptions/trials/consent';

export interface PortalSubscription {
  sub: SubscriptionView;
  preview: CancelPreviewView;
  planName: string;
  /** The product's plans, for the plan change form. */
  plans: Array<{ id: string; name: string; monthlyPrice: number | null; yearlyPrice: number | null }>;
  /** Plan price changes the buyer was told about and that have not taken effect yet. */
  priceChanges?: PortalPriceChange[];
  /** A seller's plan change awaiting this buyer's consent (src/subscriptions/plan-change/consent.ts). */
  planOffer?: PortalPlanOffer | null;
  /** A trial longer than 30 days: the fresh consent to its first charge (src/subscriptions/trials/consent.ts). */
  trialConsent?: TrialConsentState | null;
}

export interface PortalPage {
  storeName: string;
  mode: 'live' | 'test';
  basePath: string;
  csrf: string;
  returnUrl: string | null;
  subscriptions: PortalSubscription[];
  orders: OrderView[];
  /** How a card is changed: the simulator's test card number, Toss's registration window, or not at all (no gateway). */
  cardEntry: 'card_number' | 'gateway_window' | null;
  banner: { kind: 'error' | 'info'; text: string } | null;
  /** The seller's business details for the footer (src/pages/footer.ts). */
  business?: BusinessDetailsView | null;
  /** The page's language (src/pages/lang.ts); Korean when absent. */
  lang?: 'ko' | 'en';
  /** This page's address, for the language switch; no switch when absent. */
  here?: string;
}

export const INTERVAL = { monthly: '월간', yearly: '연간' } as const;
export const dateOnly = (iso: string) => new Intl.DateTimeFormat('ko-KR', { timeZone: 'Asia/Seoul', year: 'numeric', month: 'long', day: 'numeric' }).format(new Date(iso));

export function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

