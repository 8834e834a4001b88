/**
 * The go-live checklist: what a store still lacks before (and just after) taking live money with Toss. Pure: the
 * facts come from `go-live-service.ts`; the dashboard's settings page shows the items beside the live switch.
 * Nothing here blocks live checkout by itself (the checkout has its own gates); it tells the seller what is missing.
 */
import { checkoutConfigured, type PaymentProviderName } from '../payments/registry';

export const GO_LIVE_ITEMS = [
  'businessDetails',
  'verifiedContact',
  'tossKeys',
  'returnUrlDomains',
  'tossWebhook',
  'firstLivePayment',
  'firstLiveRefund',
] as const;
export type GoLiveItem = (typeof GO_LIVE_ITEMS)[number];

export interface GoLiveFacts {
  /** The store's business details, or null when none are saved; the demo store's made-up ones are `sample`. */
  businessDetails: { sample: boolean } | null;
  publicContactVerified: boolean;
  /** Live mode's payment settings. */
  live: { paymentProvider: PaymentProviderName | null; tossClientKey: string | null; tossSecretKeySet: boolean; portoneStoreId?: string | null; portoneApiSecretSet?: boolean; returnUrlDomains: string[] };
  /** When Toss last accepted live mode's keys, and when its first webhook for live mode arrived (store_toss_state). */
  keysVerifiedAt: Date | null;
  firstWebhookAt: Date | null;
  /** Whether a live order was ever paid, and a live refund ever succeeded. */
  livePaymentDone: boolean;
  liveRefundDone: boolean;
}

export interface GoLiveChecklist {
  items: { item: GoLiveItem; done: boolean }[];
  /** How many items are done, of `items.length`. */
  done: number;
  complete: boolean;
}

/** Whether one item is done, by the rule the seller reads on the page. */
export function goLiveItemDone(item: GoLiveItem, f: GoLiveFacts): boolean {
  switch (item) {
    case 'businessDetails':
      // The demo store's sample details are made up: a real seller must enter their own.
      return f.businessDetails !== null && !f.businessDetails.sample;
    case 'verifiedContact':
      return f.publicContactVerified;
    case 'tossKeys':
      // A secret key is only ever stored after Toss accepted it, so the mark plus a stored pair means the pair in use
      // is one Toss accepted; keys stored before the check existed have no mark and show as missing.
      return checkoutConfigured({ mode: 'live', ...f.live }) && f.keysVerifiedAt !== null;
    case 'returnUrlDomains':
      return f.live.returnUrlDomains.length > 0;
    case 'tossWebhook':
      // Registered in Toss's developer center, as proved by the first webhook that reached us.
      return f.firstWebhookAt !== null;
    case 'firstLivePayment':
      return f.livePaymentDone;
    case 'firstLiveRefund':
      return f.liveRefundDone;
  }
}

export function goLiveChecklist(f: GoLiveFacts): GoLiveChecklist {
  const items = GO_LIVE_ITEMS.map((item) => ({ item, done: goLiveItemDone(item, f) }));
  const done = items.filter((i) => i.done).length;
  return { items, done, complete: done === items.length };
}
