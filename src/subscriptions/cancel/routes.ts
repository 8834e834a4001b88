import type { App, AppDeps } from '../../deps';
import { op } from '../../platform/http/route';
import { IdParams } from '../../platform/http/schemas';
import { CANCEL_CHECKS, cancelSubscription, previewCancel } from './service';
import { resumeStaleCancellations } from './immediate';
import { CancelBody, CancelPreviewSchema, CancelResultSchema, PortalSessionBody, PortalSessionSchema } from './schemas';
import { createPortalSession, PORTAL_CHECKS, PORTAL_TTL_MS } from '../portal/service';

const list = (checks: Array<[string, string]>) => checks.map(([code, when], i) => `${i + 1}. \`${code}\`: ${when}`).join('\n');

/** The cancel preview, cancel and portal-session operations (registered by the subscriptions module). */
export async function registerCancelRoutes(app: App, deps: AppDeps): Promise<void> {
  deps.worker.addTask({ name: 'subscriptions.cancel-resume', intervalMs: 60_000, run: (now) => resumeStaleCancellations(deps, now) });

  app.get(
    '/v1/subscriptions/:id/cancel-preview',
    op(
      {
        operationId: 'previewSubscriptionCancel',
        summary: 'Preview a cancellation',
        description:
          'What each cancellation timing would do now. `periodEnd.effectiveAt` is when a period-end cancellation takes effect; `immediate` is the refund an immediate ' +
          'cancellation would make at this moment, computed under Korean consumer law (전자상거래법 제17조, 소비자분쟁해결기준): the withdrawal window W = max(7, `refundPolicy.refundDays`) days after ' +
          'each payment, ending 24:00 KST (a weekend or public holiday rolls to the next business day); inside it an unused period is refunded in full, and a used one too unless the product offers a trial and marks the restriction; ' +
          'otherwise the refund is prorated: P − deduction − clawback − penalty, each withheld part rounded down to the won so rounding favours the buyer. ' +
          'Use is evidenced by license activations or verifications during the period (no evidence counts as unused). ' +
          'The executed immediate cancellation refunds exactly what this preview shows at that moment. A test-mode subscription is computed at its own test clock.',
        tags: ['Subscriptions'],
      },
      { auth: 'api_key', scope: 'subscriptions:read', errors: ['SUBSCRIPTION_NOT_FOUND'] },
      { params: IdParams, response: { 200: CancelPreviewSchema } },
    ),
    async (req) => previewCancel(deps, req.auth!, req.params.id),
  );

  app.post(
    '/v1/subscriptions/:id/cancel',
    op(
      {
        operationId: 'cancelSubscription',
        summary: 'Cancel a subscription',
        description:
          '`timing: period_end` schedules the end at the current period end (`cancelAtPeriodEnd: true`, `subscription.updated` with `change.kind: cancel_scheduled`); the subscription ends there with `endReason: canceled` (`subscription.ended`). ' +
          'A second request answers ALREADY_CANCELED. The buyer can undo it in the portal before the period ends.\n\n' +
          '`timing: immediate` ends the subscription now (`subscription.ended`, `endReason: canceled`, its licenses expire) and refunds exactly the cancel preview\'s `immediate.breakdown` at this moment through the refunds engine ' +
          '(one refund per order, `order.refunded` events). A seller\'s cancel through the API is the seller\'s decision: it refunds at once even when the preview says `requiresApproval`. ' +
          'A current period already refunded in full (nothing refundable, no `blockedReason`) is no error: the subscription ends now with `refundAmount: 0`, as the preview says. ' +
          '(The buyer\'s immediate cancel in the hosted portal differs only when its refund awaits the seller: the service runs until the decision, see `subscription.updated` `cancel_refund_pending`.) ' +
          'Two requests at once (double click, retries with other keys, two processes) never refund twice: the second answers REFUND_IN_PROGRESS or ALREADY_ENDED.\n\n' +
          `Checks, in this order (the first failing one answers):\n${list(CANCEL_CHECKS)}`,
        tags: ['Subscriptions'],
      },
      {
        auth: 'api_key',
        scope: 'subscriptions:write',
        idempotent: true,
        errors: ['SUBSCRIPTION_NOT_FOUND', 'ORDER_NOT_FOUND', 'ALREADY_CANCELED', 'ALREADY_ENDED', 'REFUND_IN_PROGRESS', 'REFUND_REQUEST_PENDING', 'SUBSCRIPTION_REFUND_NONE_LEFT', 'SUBSCRIPTION_REFUND_SETTLED', 'PG_REFUND_AMBIGUOUS', 'PG_REFUND_FAILED'],
      },
      { params: IdParams, body: CancelBody, response: { 200: CancelResultSchema } },
    ),
    async (req) => cancelSubscription(deps, req.auth!, req.params.id, req.body, 'seller'),
  );

  app.post(
    '/v1/portal-sessions',
    op(
      {
        operationId: 'createPortalSession',
        summary: 'Create a buyer portal session',
        description:
          'Returns a short-lived, single-purpose `url` of the hosted buyer portal (Korean, mobile-first): the buyer\'s subscriptions and orders with receipts, ' +
          '"기간 종료 시 해지" and "지금 해지하고 환불" side by side with the previewed refund, undoing a scheduled cancellation, card update, refund requests, and a link back to `returnUrl`. ' +
          `The link opens the portal for ${PORTAL_TTL_MS / 60_000} minutes; send the buyer there at once. A buyer's immediate cancel whose refund needs approval (\`requiresApproval\`) files a refund request instead of refunding.\n\n` +
          `Checks, in this order (the first failing one answers):\n${list(PORTAL_CHECKS)}`,
        tags: ['Subscriptions'],
      },
      { auth: 'api_key', scope: 'subscriptions:write', idempotent: true, errors: ['BAD_REQUEST', 'CHECKOUT_URL_INVALID', 'RETURN_URL_NOT_ALLOWED', 'NOT_FOUND', 'SUBSCRIPTION_NOT_FOUND'] },
      { body: PortalSessionBody, response: { 200: PortalSessionSchema } },
    ),
    async (req) => createPortalSession(deps, req.auth!, req.body),
  );
}
