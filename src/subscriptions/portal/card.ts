import type { AppDeps } from '../../deps';
import { newId } from '../../platform/ids';
import { randomBase62, sha256Hex } from '../../platform/crypto';
import { providerFor, billingWindowOf, credentialSetFor, type BillingWindow } from '../../payments';
import { getModeSettings } from '../../stores/service';
import type { PortalSessionRow } from './service';
import * as portalRepo from './repo';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;

/** How long a card registration opened from the portal may come back (never past the portal session itself). */
export const CARD_UPDATE_TTL_MS = 30 * 60_000;

/**
 * How the portal registers a new card with the store's gateway in the session's mode:
 * - `card_number`: the simulator (test mode) takes a test card number on our own form;
 * - `gateway_window`: the gateway's card-registration window (Toss: `requestBillingAuth`; PortOne:
 *   `requestIssueBillingKey` on the card channel) opens and redirects back;
 * - null: no gateway is configured (the portal offers no card change).
 */
export type CardEntry = { kind: 'card_number' } | { kind: 'gateway_window'; window: BillingWindow } | null;

export async function cardEntryFor(deps: Deps, session: Pick<PortalSessionRow, 'store_id' | 'mode'>): Promise<CardEntry> {
  const settings = (await getModeSettings(deps.db, session.store_id, session.mode)).raw;
  // A card for 자동결제 registers under the billing MID when the mode holds its pair (issue 32), as updateCard issues it.
  const pair = credentialSetFor(settings, 'billing');
  const provider = providerFor(deps, settings, pair);
  if (!provider) return null;
  // A provider that takes the card on our own page (the simulator) takes the new card there too.
  if (provider.paymentEntry.kind === 'on_page') return { kind: 'card_number' };
  const window = billingWindowOf(settings, pair);
  return window ? { kind: 'gateway_window', window } : null;
}

/**
 * Opens a card registration for one subscription of a portal session: a fresh single-use `state` (only its hash is
 * stored) that the gateway's success and fail redirects must carry back together with the portal token.
 */
export async function openCardUpdate(deps: Deps, session: PortalSessionRow, subscriptionId: string): Promise<string> {
  const now = deps.clock.now();
  const state = randomBase62(32);
  await portalRepo.insertCardUpdate(deps.db, {
    id: newId('pcu', deps.clock),
    portal_session_id: session.id,
    subscription_id: subscriptionId,
    state_hash: sha256Hex(state),
    status: 'open',
    expires_at: new Date(Math.min(now.getTime() + CARD_UPDATE_TTL_MS, session.expires_at.getTime())),
    used_at: null,
    created_at: now,
  });
  return state;
}

const STATE = /^[A-Za-z0-9]{20,64}$/;

/** The subscription an open registration was made for (the launch page reads it; nothing is used up). */
export async function peekCardUpdate(deps: Pick<AppDeps, 'db' | 'clock'>, session: PortalSessionRow, state: string): Promise<string | null> {
  if (!STATE.test(state)) return null;
  return (await portalRepo.findOpenCardUpdate(deps.db, session.id, sha256Hex(state), deps.clock.now()))?.subscription_id ?? null;
}

/** Uses up a registration's state (success or fail redirect); null when it is unknown, foreign, used or expired. */
export async function takeCardUpdate(deps: Pick<AppDeps, 'db' | 'clock'>, session: PortalSessionRow, state: string, outcome: 'used' | 'failed'): Promise<string | null> {
  if (!STATE.test(state)) return null;
  return (await portalRepo.takeCardUpdate(deps.db, session.id, sha256Hex(state), outcome, deps.clock.now()))?.subscription_id ?? null;
}
