/**
 * The "구독 관리" link every subscription mail carries: `/manage/{subscriptionId}.{expiresAtSeconds}.{mac}`, an HMAC
 * (under a key derived from the master key for this purpose alone) of the subscription and the link's expiry. Nothing
 * is stored when a mail is rendered; a click that verifies makes a fresh portal session (PORTAL_TTL_MS) and goes
 * there, so a buyer can open the portal from an old mail as often as the link is valid, without any seller code.
 * A changed id, expiry or MAC, or a past expiry, opens nothing.
 */
import type { AppDeps } from '../../deps';
import { purposeMac, safeEqualString } from '../../platform/crypto';
import { getSubscription } from '../repo';
import { createPortalSession } from './service';

const PURPOSE = 'subscription-manage-link v1';

/** How long a mail's 구독 관리 link opens the portal at least: 30 days (longer when the mail asks for an answer later). */
export const MANAGE_LINK_TTL_MS = 30 * 24 * 3_600_000;

export function manageLinkPath(masterKey: Buffer, subscriptionId: string, expiresAt: Date): string {
  const exp = Math.floor(expiresAt.getTime() / 1000);
  return `/manage/${subscriptionId}.${exp}.${purposeMac(masterKey, PURPOSE, `${subscriptionId}.${exp}`)}`;
}

/** The subscription a link names, or why it opens nothing: `invalid` (not ours or altered), `expired`. */
export function verifyManageLink(masterKey: Buffer, link: string, now: Date): { subscriptionId: string } | { refused: 'invalid' | 'expired' } {
  const m = /^([A-Za-z0-9_]{1,80})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(link);
  if (!m) return { refused: 'invalid' };
  const [, subscriptionId, exp, mac] = m;
  if (!safeEqualString(mac!, purposeMac(masterKey, PURPOSE, `${subscriptionId}.${exp}`))) return { refused: 'invalid' };
  if (Number(exp) * 1000 <= now.getTime()) return { refused: 'expired' };
  return { subscriptionId: subscriptionId! };
}

/**
 * A click on a mail's 구독 관리 link: a fresh portal session of the subscription it names (the portal's own
 * createPortalSession, every product of the subscription's store in range), or why it opens nothing.
 */
export async function portalFromManageLink(deps: Pick<AppDeps, 'db' | 'clock' | 'config'>, link: string): Promise<{ url: string } | { refused: 'invalid' | 'expired' }> {
  const v = verifyManageLink(deps.config.masterKey, link, deps.clock.now());
  if ('refused' in v) return v;
  const sub = await getSubscription(deps.db, v.subscriptionId);
  if (!sub) return { refused: 'invalid' };
  const ps = await createPortalSession(deps, { storeId: sub.store_id, mode: sub.mode, productIds: null }, { subscriptionId: sub.id });
  return { url: ps.url };
}
