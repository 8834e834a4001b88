import type { AppDeps } from '../../deps';
import { getBusinessDetails, getModeSettings } from '../../stores/service';
import { providerFor, clientKeyOf, credentialSetFor, type PaymentProvider } from '../../payments';
import type { TossKeyPair } from '../../platform/tables';
import { loadOrderView } from '../../orders/service';
import type { OrderView } from '../../orders/schemas';
import type { CheckoutAttempt } from '../../checkout/tables';
import { recoverStaleAttempt } from '../../checkout/settle';
import { quote, type Quote } from '../../checkout/quote';
import type { PageContext } from './views';
import { findForeignSettings, type ForeignSettings } from '../../checkout/foreign';
import { findSession } from '../../checkout/complete-repo';
import { findProductById, findSessionOrThrow, findStoreName, saveOpenSessionAttempt } from '../repo';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;

export interface LoadedPage extends PageContext {
  provider: PaymentProvider | null;
  tossClientKey: string | null;
  /** The Toss key pair this session pays under: a subscription's the 자동결제 pair when the mode holds one (issue 32). */
  tossKeyPair: TossKeyPair;
  /** Buyers abroad: the methods the store enabled and PayPal's rate (issue 41). */
  foreign: ForeignSettings;
  /** A mode on PortOne: its store id and channel key per method (public: the browser SDK opens the window with them). */
  portone: { storeId: string; channelKeys: Record<string, string> } | null;
}

const SESSION_ID = /^cs_[0-9a-z]{26}$/;

/** Everything the payment page shows for a session, or null for an unknown id (the id itself is the only key). */
export async function loadPage(deps: Deps, sessionId: string): Promise<LoadedPage | null> {
  if (!SESSION_ID.test(sessionId)) return null;
  let session = await findSession(deps.db, sessionId);
  if (!session) return null;
  if (session.payment?.state === 'confirming' && (!session.attempt_locked_until || session.attempt_locked_until <= deps.clock.now())) {
    await recoverStaleAttempt(deps, session.id);
    session = await findSessionOrThrow(deps.db, sessionId);
  }
  const product = await findProductById(deps.db, session.product_id);
  const [store, business] = await Promise.all([
    findStoreName(deps.db, session.store_id),
    getBusinessDetails(deps.db, session.store_id),
  ]);
  const settings = (await getModeSettings(deps.db, session.store_id, session.mode)).raw;
  // A subscription registers its card (billing-auth window) and is charged under the 자동결제 MID when there is one.
  const tossKeyPair = credentialSetFor(settings, session.billing_interval ? 'billing' : 'payments');
  const provider = providerFor(deps, settings, tossKeyPair);
  return {
    session, product, storeName: store.name, business, simulated: provider?.paymentEntry.kind === 'on_page', provider, tossClientKey: clientKeyOf(settings, tossKeyPair), tossKeyPair,
    foreign: await findForeignSettings(deps.db, session.store_id, session.mode),
    portone: settings.portone_store_id ? { storeId: settings.portone_store_id, channelKeys: settings.portone_channel_keys ?? {} } : null,
  };
}

export function priceQuote(deps: Deps, page: LoadedPage, couponCode: string | null): Promise<Quote> {
  return quote(deps.db, page.session, couponCode, deps.clock.now());
}

/** Keeps the buyer's checked input while an approval step or the gateway window is open (open sessions only). */
export async function saveAttempt(deps: Deps, sessionId: string, attempt: CheckoutAttempt): Promise<void> {
  await saveOpenSessionAttempt(deps.db, sessionId, attempt);
}

export async function sessionOrder(deps: Deps, orderId: string | null): Promise<OrderView | null> {
  return orderId ? loadOrderView(deps.db, orderId, deps) : null;
}
