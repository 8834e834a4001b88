import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { AppDeps } from '../deps';
import { getOrder } from '../orders/service';
import { refundableAmount } from '../refunds/service';
import { getRequest } from '../refunds/requests/service';
import { previewCancel } from '../subscriptions/cancel/service';
import { ctxOf, type DashboardContext } from './frame';
import { can } from './roles';
import { intField } from './pages/kit';
import { refundAboveThreshold } from './sign-in/refund-step-up';
import { stepUp, type StepUpAction } from './sign-in/step-up';

/**
 * THE list of dashboard actions that move money or widen access. Every route here runs the one step-up check
 * (`stepUp`, sign-in/step-up.ts) after its role check and before its handler, attached by `attachStepUp` below when
 * the route is registered: a handler cannot forget it, and a route left off both lists fails
 * test/dashboard/step-up-list.test.ts. `when` says when the action asks:
 *   always  every time (the window aside)
 *   live    in live mode (test mode moves no money and reaches no buyer)
 *   a function of the request (a refund above the owner's threshold, Settings → Security)
 */
type When = 'always' | 'live' | ((deps: AppDeps, req: FastifyRequest, ctx: DashboardContext) => Promise<boolean> | boolean);

export interface StepUpRoute {
  /** A POST route of the dashboard, as registered with Fastify. */
  url: string;
  action: StepUpAction;
  when: When;
  /** The page's script calls it (JSON): a stale session gets a 401 body, not the step-up page. */
  json?: boolean;
  /** A later step of a several-request ceremony (CEREMONY_MIN_MS). */
  ceremony?: boolean;
}

type Body = Record<string, unknown>;
const bodyOf = (req: FastifyRequest): Body => (req.body ?? {}) as Body;
const idOf = (req: FastifyRequest): string => (req.params as { id: string }).id;
const scopeOf = (ctx: DashboardContext) => ({ storeId: ctx.member.storeId, mode: ctx.mode, productIds: null });
/** A form's amount: blank is the whole (null); one the engine refuses anyway asks nothing. */
const amountOf = (req: FastifyRequest): number | null | 'invalid' => intField(bodyOf(req).amount) ?? null;

/** A refund from the order page: above the threshold (a blank amount is the order's whole remainder). */
const orderRefundAbove: When = (deps, req, ctx) =>
  refundAboveThreshold(deps, ctx.member.storeId, amountOf(req), async () => {
    const o = await getOrder(deps, scopeOf(ctx), idOf(req));
    return o.status === 'paid' ? refundableAmount({ amount: o.amount, refunded_amount: o.refundedAmount }) : 0;
  });

/** Approving a buyer's refund request: above the threshold (a blank amount is what the buyer asked for). */
const requestRefundAbove: When = async (deps, req, ctx) => refundAboveThreshold(deps, ctx.member.storeId, amountOf(req), async () => (await getRequest(deps, scopeOf(ctx), idOf(req))).amount);

/**
 * Cancelling a subscription at once refunds what its cancel preview shows at this moment (the cancellation computes
 * it again under the subscription's lock): a refund like any other, above the threshold it asks. Cancelling at the
 * period's end refunds nothing and asks nothing.
 */
const immediateCancelRefundAbove: When = async (deps, req, ctx) =>
  bodyOf(req).timing === 'immediate' && refundAboveThreshold(deps, ctx.member.storeId, null, async () => (await previewCancel(deps, scopeOf(ctx), idOf(req))).immediate.refundAmount);

/** Live API keys are the owner's (`keys.live`); anyone else is refused by the handler, so nothing is asked first. */
const liveKeyOfOwner: When = (_deps, _req, ctx) => ctx.mode === 'live' && can(ctx.member.role, 'keys.live');

export const STEP_UP_ROUTES: readonly StepUpRoute[] = [
  // Refunds and what refunds: the order page, a buyer's refund request approved, an immediate cancellation.
  { url: '/dashboard/orders/:id/refund', action: 'refund', when: orderRefundAbove },
  { url: '/dashboard/refund-requests/:id/approve', action: 'refund', when: requestRefundAbove },
  { url: '/dashboard/subscriptions/:id/cancel', action: 'refund', when: immediateCancelRefundAbove },
  // A settlement round closes orders to refunds and makes the payout record.
  { url: '/dashboard/settings/settlements', action: 'settlement', when: 'live' },
  // Where payouts and refunds go: the business (payout) details, the Toss keys and provider, return domains.
  { url: '/dashboard/settings/business-details', action: 'business_details', when: 'always' },
  { url: '/dashboard/settings/payments', action: 'toss_keys', when: 'live' },
  { url: '/dashboard/settings/return-urls', action: 'return_urls', when: 'always' },
  // Live API keys: a new secret, or the end of one a shop's server relies on.
  { url: '/dashboard/developers/keys', action: 'live_api_key', when: liveKeyOfOwner },
  { url: '/dashboard/developers/keys/:id/rotate', action: 'live_api_key', when: liveKeyOfOwner },
  { url: '/dashboard/developers/keys/:id/revoke', action: 'live_api_key', when: liveKeyOfOwner },
  // Live webhook endpoints: where "order paid" goes (a shop unlocks goods on it) and the secret that signs it.
  { url: '/dashboard/developers/webhooks', action: 'live_webhook_endpoint', when: 'live' },
  { url: '/dashboard/developers/webhooks/:id/status', action: 'live_webhook_endpoint', when: 'live' },
  { url: '/dashboard/developers/webhooks/:id/secret', action: 'live_webhook_secret', when: 'live' },
  { url: '/dashboard/developers/webhooks/:id/rotate', action: 'live_webhook_secret', when: 'live' },
  // Members and roles: who may do all of the above (disabling or signing out the others shuts out who would stop it).
  { url: '/dashboard/settings/members', action: 'members', when: 'always' },
  { url: '/dashboard/settings/members/:id/role', action: 'members', when: 'always' },
  { url: '/dashboard/settings/members/:id/disable', action: 'members', when: 'always' },
  { url: '/dashboard/settings/members/:id/end-sessions', action: 'members', when: 'always' },
  { url: '/dashboard/settings/members/:id/reset-2fa', action: 'members', when: 'always' },
  // The store's security settings (the factor policy, the refund threshold itself).
  { url: '/dashboard/settings/security', action: 'store_security', when: 'always' },
  // The member's own factors and recovery codes: whoever adds one keeps the account after the cookie is gone.
  { url: '/dashboard/account/unlock', action: 'factors', when: 'always' },
  { url: '/dashboard/account/totp/start', action: 'factors', when: 'always' },
  // Confirming a new app is the end of the ceremony its start began (the key shown once, then a code from it).
  { url: '/dashboard/account/totp/confirm', action: 'factors', when: 'always', ceremony: true },
  { url: '/dashboard/account/totp/remove', action: 'factors', when: 'always' },
  { url: '/dashboard/account/recovery-codes', action: 'factors', when: 'always' },
  { url: '/dashboard/account/passkeys/options', action: 'factors', when: 'always', json: true, ceremony: true },
  { url: '/dashboard/account/passkeys', action: 'factors', when: 'always', json: true, ceremony: true },
  { url: '/dashboard/account/passkeys/:id/remove', action: 'factors', when: 'always' },
];

/**
 * The dashboard's other POST routes, each with why it neither moves money nor widens access. A new route goes on one
 * list or the other (test/dashboard/step-up-list.test.ts fails otherwise).
 */
export const NO_STEP_UP_ROUTES: Readonly<Record<string, string>> = {
  '/dashboard/login': 'signing in: the password, then the second factor, is the check itself',
  '/dashboard/login/verify': 'the second factor of signing in',
  '/dashboard/login/verify/passkey/options': 'the second factor of signing in (passkey)',
  '/dashboard/login/verify/passkey': 'the second factor of signing in (passkey)',
  '/dashboard/login/passkey/options': 'signing in with a passkey alone',
  '/dashboard/login/passkey': 'signing in with a passkey alone',
  '/dashboard/step-up/passkey/options': 'the step-up itself, given with a passkey',
  '/dashboard/step-up/passkey': 'the step-up itself, given with a passkey',
  '/dashboard/logout': 'ends the session: narrows access',
  '/dashboard/mode': 'switches the view between test and live; each live action asks on its own',
  '/dashboard/lang': 'the language of the pages',
  '/dashboard/account/password': 'asks for the current password itself, and ends the other sessions',
  '/dashboard/account/passkeys/:id/rename': 'a label on a passkey the member already has',
  '/dashboard/account/sessions/:id/end': 'ends one of the member\'s own sessions: narrows access',
  '/dashboard/account/sessions/end-others': 'ends the member\'s other sessions: narrows access',
  '/dashboard/orders/:id/refund/confirm': 'only shows the refund\'s amount and target for a second look; the refund itself is the listed route',
  '/dashboard/orders/:id/test-deposit': 'a simulated 가상계좌 deposit, test mode only (a live session gets 404): no real money moves',
  '/dashboard/orders/:id/cash-receipt': 'a 현금영수증 for a payment already made: no money moves',
  '/dashboard/orders/:id/cash-receipt/retry': 'sends a refused 현금영수증 again with the number it was asked for: no money moves',
  '/dashboard/tax-invoices/:id/issue': 'a 세금계산서 for a payment already made: a tax document, no money moves',
  '/dashboard/tax-invoices/settings': 'whether 세금계산서 are issued automatically on payment: no money moves',
  '/dashboard/refund-requests/:id/hold': 'holds a buyer\'s request: no money moves',
  '/dashboard/refund-requests/:id/reject': 'refuses a buyer\'s request: no money moves (a statutory one is refused by the service)',
  '/dashboard/subscriptions/:id/test-clock': 'test mode only (the service refuses live subscriptions)',
  '/dashboard/licenses/:id/revoke': 'a buyer\'s license to the product, not money or dashboard access',
  '/dashboard/licenses/:id/reissue': 'a new key for the buyer\'s license (the old one stops): not money or dashboard access',
  '/dashboard/products': 'the catalog: a price shown to buyers before they pay, nothing charged',
  '/dashboard/products/:id': 'the catalog: a price shown to buyers before they pay, nothing charged',
  '/dashboard/products/:id/archive': 'the catalog: stops new sales',
  '/dashboard/products/:id/price-changes': 'a subscription price change: announced to subscribers ahead, and an increase needs each buyer\'s agreement in the portal',
  '/dashboard/products/:id/price-changes/:changeId/cancel': 'withdraws an announced price change',
  '/dashboard/coupons': 'the catalog: a discount at checkout, nothing charged or refunded',
  '/dashboard/coupons/:id': 'the catalog: a discount at checkout, nothing charged or refunded',
  '/dashboard/coupons/:id/archive': 'the catalog: ends a discount',
  '/dashboard/settings/trials': 'whether a buyer may have a second free trial: no money moves',
  '/dashboard/settings/cash-receipts': 'whether 현금영수증 are issued by default: no money moves',
  '/dashboard/settings/mails': 'which buyer mails are sent',
  '/dashboard/settings/mails/test-copies': 'copies of test-mode mails to the member',
  '/dashboard/developers/mailbox/:id/send-to-me': 'a test-mode mail sent to the member\'s own address',
  '/dashboard/developers/events/:id/resend': 'sends an event already signed to an endpoint already set',
  '/dashboard/developers/webhooks/:id/test': 'a test event to an endpoint already set',
  '/dashboard/reconciliation': 'compares records with Toss: reads, moves nothing',
};

const byUrl = new Map(STEP_UP_ROUTES.map((r) => [r.url, r]));

async function asks(deps: AppDeps, req: FastifyRequest, ctx: DashboardContext, when: When): Promise<boolean> {
  if (when === 'always') return true;
  if (when === 'live') return ctx.mode === 'live';
  return when(deps, req, ctx);
}

/**
 * For the dashboard's onRoute hook: a POST route on the list gets the step-up check as its last preHandler (after the
 * role check, which sets `req.dashboard`). Returns the URL when it attached one.
 */
export function attachStepUp(deps: AppDeps, route: RouteOptions): string | null {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const entry = methods.includes('POST') ? byUrl.get(route.url) : undefined;
  if (!entry) return null;
  // Returning the reply after the step-up answered ends the request there (Fastify skips the handler).
  const check = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (reply.sent) return reply;
    const ctx = ctxOf(req);
    if (!(await asks(deps, req, ctx, entry.when))) return undefined;
    return (await stepUp(deps, req, reply, entry.action, { json: entry.json, ceremony: entry.ceremony })) ? undefined : reply;
  };
  const before = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
  route.preHandler = [...before, check] as RouteOptions['preHandler'];
  return entry.url;
}

/** Every listed URL must have been found among the routes: a mistyped entry would guard nothing while claiming to. */
export function assertAllAttached(attached: ReadonlySet<string>): void {
  const missing = STEP_UP_ROUTES.filter((r) => !attached.has(r.url)).map((r) => r.url);
  if (missing.length) throw new Error(`dashboard step-up list names routes that are not registered: ${missing.join(', ')}`);
}
