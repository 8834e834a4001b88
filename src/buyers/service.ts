/**
 * The buyer's own door, as use cases: ask for a sign-in link by e-mail, sign in with it, the session (scoped to one
 * store and mode), what a signed-in buyer sees (orders, licences with their devices, subscriptions, refund requests),
 * freeing a device, and opening the portal of one of their subscriptions. No password: the mailbox is the proof.
 */
import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { newId } from '../platform/ids';
import { randomBase62, sha256Hex } from '../platform/crypto';
import type { Mode } from '../platform/tables';
import { loadOrderView } from '../orders/service';
import type { OrderView } from '../orders/schemas';
import { activationsFor } from '../licenses/repo';
import { deactivate } from '../licenses/app-service';
import { createPortalSession } from '../subscriptions/portal/service';
import { subscriptionView, type SubscriptionRow } from '../subscriptions/model';
import type { SubscriptionView } from '../subscriptions/schemas';
import { BUYER_SESSION_TTL_MS, SIGN_IN_LINK_TTL_MS, normalizeEmail, signInLinkToken } from './model';
import * as repo from './repo';
import type { BuyerSessionRow } from './repo';

export type { BuyerSessionRow } from './repo';
type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;

export interface StoreMode {
  storeId: string;
  mode: Mode;
}

/** What the sign-in mail needs (written by the caller in the link's transaction): the link, and whether it opens anything. */
export interface SignInNotice {
  linkId: string;
  email: string;
  /** False: the address bought nothing here; the mail says so instead of carrying a link. */
  bought: boolean;
  expiresAt: Date;
}

/**
 * Asks for a sign-in link. Every request takes the same steps (the lookup, a link row, the mail written by `notify`
 * in the same transaction) whether or not the address bought anything, so neither the answer nor its timing tells
 * who is a buyer; only the mailbox's owner learns it. The address must already be a valid e-mail (the page checks).
 */
export async function requestSignInLink(deps: Deps, at: StoreMode, rawEmail: string, notify: (trx: Db, n: SignInNotice) => Promise<void>): Promise<void> {
  const email = normalizeEmail(rawEmail);
  const now = deps.clock.now();
  const id = newId('bsl', deps.clock);
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_TTL_MS);
  await deps.db.transaction().execute(async (trx) => {
    const bought = await repo.hasOrders(trx, at.storeId, at.mode, email);
    await repo.insertSignInLink(trx, { id, store_id: at.storeId, mode: at.mode, email, token_hash: sha256Hex(signInLinkToken(deps.config.masterKey, id)), expires_at: expiresAt, created_at: now });
    // The mail goes to the address as the buyer typed it (case kept); the link row keeps it lower-cased.
    await notify(trx, { linkId: id, email: rawEmail.trim(), bought, expiresAt });
  });
}

/**
 * Signs in with a link's token: uses the link up (once) and opens a session of that store and mode. Returns the
 * session's cookie token, or null when the link is unknown, used, expired or another store's or mode's.
 */
export async function signIn(deps: Deps, at: StoreMode, token: string): Promise<{ token: string; expiresAt: Date } | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    const link = await repo.takeSignInLink(trx, { ...at, tokenHash: sha256Hex(token), now });
    if (!link) return null;
    const sessionToken = randomBase62(43);
    const expiresAt = new Date(now.getTime() + BUYER_SESSION_TTL_MS);
    await repo.insertSession(trx, {
      id: newId('bss', deps.clock),
      store_id: at.storeId,
      mode: at.mode,
      email: link.email,
      token_hash: sha256Hex(sessionToken),
      csrf_secret: randomBase62(32),
      expires_at: expiresAt,
      created_at: now,
    });
    return { token: sessionToken, expiresAt };
  });
}

/** The open session a cookie's token names in this store and mode, or null (unknown, ended, expired, elsewhere). */
export async function openSession(deps: Pick<AppDeps, 'db' | 'clock'>, at: StoreMode, token: string | undefined): Promise<BuyerSessionRow | null> {
  if (!token || !/^[A-Za-z0-9]{20,100}$/.test(token)) return null;
  return (await repo.findOpenSession(deps.db, { ...at, tokenHash: sha256Hex(token), now: deps.clock.now() })) ?? null;
}

/** 로그아웃: the session ends now (its cookie opens nothing any more). */
export async function signOut(deps: Pick<AppDeps, 'db' | 'clock'>, s: BuyerSessionRow): Promise<void> {
  await repo.endSession(deps.db, s.id, deps.clock.now());
}

export interface BuyerDevice {
  id: string;
  label: string | null;
  activatedAt: Date;
  lastVerifiedAt: Date | null;
}

export interface BuyerOrder {
  order: OrderView;
  /** Live devices per licence id (deactivated ones are gone from the list: their slot is free). */
  devices: Map<string, BuyerDevice[]>;
  refundRequests: Array<{ id: string; status: string; amount: number; requestedAt: Date }>;
}

export interface BuyerOverview {
  email: string;
  orders: BuyerOrder[];
  subscriptions: Array<{ view: SubscriptionView; row: SubscriptionRow }>;
}

/** Everything of the signed-in buyer in the session's store and mode (the address compared case-insensitively). */
export async function buyerOverview(deps: Deps, s: BuyerSessionRow): Promise<BuyerOverview> {
  const ids = (await repo.buyerOrderIds(deps.db, s)).map((r) => r.id);
  const views = (await Promise.all(ids.map((id) => loadOrderView(deps.db, id, deps)))).filter((v): v is OrderView => !!v);
  const licenseIds = views.flatMap((v) => v.licenses.map((l) => l.id));
  const activations = licenseIds.length ? await activationsFor(deps.db, licenseIds) : [];
  const requests = await repo.refundRequestsOf(deps.db, ids);
  const orders = views.map((order) => {
    const devices = new Map<string, BuyerDevice[]>();
    for (const l of order.licenses) {
      devices.set(
        l.id,
        activations.filter((a) => a.license_id === l.id && !a.deactivated_at).map((a) => ({ id: a.id, label: a.label, activatedAt: a.activated_at, lastVerifiedAt: a.last_verified_at })),
      );
    }
    const refundRequests = requests.filter((r) => r.order_id === order.id).map((r) => ({ id: r.id, status: r.status, amount: Number(r.amount), requestedAt: r.requested_at }));
    return { order, devices, refundRequests };
  });
  const subs = await repo.buyerSubscriptions(deps.db, s);
  return { email: s.email, orders, subscriptions: subs.map((row) => ({ row, view: subscriptionView(row) })) };
}

/**
 * Frees a device of one of the buyer's licences, through the licence service's own deactivation (the same as the
 * app API's: it frees the slot whatever the licence's status). False when the licence is not this buyer's here.
 */
export async function deactivateDevice(deps: Deps, s: BuyerSessionRow, licenseId: string, activationId: string): Promise<boolean> {
  const lic = await repo.findBuyerLicense(deps.db, s, licenseId);
  if (!lic?.key_hash) return false;
  const out = await deactivate(deps, { keyHash: lic.key_hash, productId: lic.product_id }, activationId);
  return !!out.activation;
}

/**
 * Opens the portal of one of the buyer's subscriptions: a fresh portal session from the portal's own service (the
 * same as POST /v1/portal-sessions, every product of the store in range). Throws SUBSCRIPTION_NOT_FOUND when the
 * subscription is not this buyer's in this store and mode.
 */
export async function openPortalFor(deps: Deps, s: BuyerSessionRow, subscriptionId: string): Promise<string> {
  const ps = await createPortalSession(deps, { storeId: s.store_id, mode: s.mode, productIds: null }, { subscriptionId, buyerEmail: s.email });
  return ps.url;
}

/** Housekeeping: sign-in links and sessions over for a day are deleted (an hourly task of the buyer pages' module). */
export function purgeSignIns(deps: Pick<AppDeps, 'db'>, now: Date): Promise<number> {
  return repo.purgeEnded(deps.db, new Date(now.getTime() - 86_400_000));
}
