import { Type } from '@sinclair/typebox';
import type { Module } from '../deps';
import { ApiError } from '../platform/errors';
import { op } from '../platform/http/route';
import { CurrencySchema, DateTime, IdParams, Nullable, Obj, Won } from '../platform/http/schemas';
import { IntervalSchema } from '../orders/schemas';
import { billingTask } from './renewal';
import { trialNoticeTask } from './trial-notices';
import { registerBillingKeyDeletion } from './billing-key-delete';
import { SubscriptionListQuery, SubscriptionPage, SubscriptionSchema } from './schemas';
import { subscriptionView } from './model';
import * as subs from './service';
import { pageParams } from '../platform/http/pagination';
import { ModeSchema } from '../platform/http/schemas';
import { advanceTestClockBy } from './test-clock';
import { changePlan } from './plan-change';
import { openOfferOf, planOfferTask, withdrawOffer } from './plan-offers';
import * as repo from './repo';
import { listCharges, resolveCharge, retryCharge } from './charges-console';
import { ChargeListQuery, ResolveChargeBody, SubscriptionChargePage, SubscriptionChargeSchema } from './charges-schemas';

const tags = ['Subscriptions (console)'];

export const AdminSubscriptionListQuery = Type.Composite([SubscriptionListQuery, Obj({ mode: Type.Optional(ModeSchema) })], { additionalProperties: false });

export const AdvanceBody = Obj(
  {
    days: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_660 })),
    hours: Type.Optional(Type.Integer({ minimum: 0, maximum: 87_840 })),
    minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 5_270_400 })),
  },
  { title: 'AdvanceTestClockRequest', description: 'How far to move the subscription\'s clock forward (summed; more than 0 and at most 3,660 days in all)' },
);

export const TestClockResultSchema = Obj(
  {
    subscription: SubscriptionSchema,
    testClock: Obj({ frozenTime: DateTime('The subscription\'s own time after the advance'), offsetMs: Type.Integer({ minimum: 0, description: 'How far it runs ahead of the service clock' }) }),
    processed: Type.Integer({ minimum: 0, description: 'Renewals, retries and endings run by this advance' }),
  },
  { title: 'TestClockResult' },
);

export const PlanChangeBody = Obj({ planId: Type.String({ minLength: 1, maxLength: 100 }), interval: IntervalSchema }, { title: 'ChangePlanRequest' });
const PlanSideSchema = Obj({ planId: Type.String(), billingInterval: IntervalSchema, amount: Won() });
export const PlanChangeOfferSchema = Obj(
  {
    id: Type.String({ description: '`pco_…`' }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('declined'), Type.Literal('withdrawn'), Type.Literal('lapsed')], {
      description: '`pending` until the buyer accepts or declines in the portal, the seller withdraws it (or offers another change), or `deadline` passes (`lapsed`)',
    }),
    from: PlanSideSchema,
    to: PlanSideSchema,
    offeredAt: DateTime('The subscription\'s own time (test clock) when offered'),
    deadline: DateTime('The buyer must accept by then (14 days after `offeredAt`, the subscription\'s clock); not accepted, it lapses and nothing changes'),
    resolvedAt: Nullable(DateTime()),
  },
  {
    title: 'PlanChangeOffer',
    description:
      'A seller\'s plan change that would make the buyer pay more, now or at renewal, awaiting the buyer\'s consent in the portal (전자상거래법 제13조⑥, 시행령 제20조의2). Nothing is changed or charged until they accept; accepting runs the change as if the buyer chose it then (an upgrade charges the prorated difference at that moment).',
  },
);
export const PlanChangeResultSchema = Obj(
  {
    subscription: SubscriptionSchema,
    timing: Type.Union([Type.Literal('now'), Type.Literal('next_renewal'), Type.Literal('unscheduled'), Type.Literal('awaiting_consent')], {
      description:
        '`now`: an upgrade (dearer plan, same interval) in effect, the prorated difference charged; `next_renewal`: a downgrade or interval change, scheduled (`pendingPlanChange`); `unscheduled`: the current plan chosen again, a scheduled change undone; ' +
        '`awaiting_consent`: the change would make the buyer pay more (now or at renewal), so it is only offered (`offer`): nothing changed, nothing charged',
    }),
    offer: Nullable(PlanChangeOfferSchema, { description: 'The offer awaiting the buyer (`awaiting_consent` only)' }),
    orderId: Nullable(Type.String(), { description: 'The `difference` order of an upgrade (also sent as `order.paid` with `subscriptionEvent: "difference"`)' }),
    amount: Won('The difference charged now (0 when nothing was charged)'),
    currency: CurrencySchema,
  },
  { title: 'PlanChangeResult' },
);

/**
 * The subscriptions module's background work and seller-console operations: the billing run (renewals, dunning,
 * period-end endings), the test clock and plan change.
 */
const subscriptionsBillingModule: Module = async (app, deps) => {
  deps.worker.addTask(billingTask(deps));
  deps.worker.addTask(trialNoticeTask(deps));
  deps.worker.addTask(planOfferTask(deps));
  registerBillingKeyDeletion(deps);

  app.get(
    '/admin/v1/subscriptions',
    op(
      {
        operationId: 'adminListSubscriptions',
        summary: 'List the store\'s subscriptions',
        description: 'Newest first by start time, in one mode (`mode`, default `test`); the same filters as the public list (`status`, `buyerEmail`, `productId`).',
        tags,
      },
      { auth: 'owner' },
      { querystring: AdminSubscriptionListQuery, response: { 200: SubscriptionPage } },
    ),
    async (req) => {
      const { mode, status, buyerEmail, productId } = req.query;
      return subs.listSubscriptions(deps, { storeId: req.owner!.storeId, mode: mode ?? 'test', productIds: null }, { status, buyerEmail, productId }, pageParams(req.query));
    },
  );
  app.get(
    '/admin/v1/subscriptions/:id',
    op({ operationId: 'adminGetSubscription', summary: 'Read a subscription (either mode)', tags }, { auth: 'owner', errors: ['SUBSCRIPTION_NOT_FOUND'] }, { params: IdParams, response: { 200: SubscriptionSchema } }),
    async (req) => {
      const sub = await repo.getSubscription(deps.db, req.params.id);
      if (!sub || sub.store_id !== req.owner!.storeId) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
      return subscriptionView(sub);
    },
  );

  app.post(
    '/admin/v1/subscriptions/:id/test-clock/advance',
    op(
      {
        operationId: 'adminAdvanceSubscriptionTestClock',
        summary: 'Move a test subscription\'s clock forward (test clocks)',
        description:
          'Test mode only. Moves the subscription\'s own clock forward and runs at once what became due: renewals, failed renewals and dunning retries (test card `4000 0000 0000 0341` declines every renewal), period-end cancellations, statutory refund requests due for automatic approval, each with its events. ' +
          'An ended subscription\'s clock moves too (nothing renews; its refund requests and receipts follow the clock). Live subscriptions: `409 TEST_MODE_ONLY`.',
        tags,
      },
      { auth: 'owner', errors: ['SUBSCRIPTION_NOT_FOUND', 'TEST_MODE_ONLY'] },
      { params: IdParams, body: AdvanceBody, response: { 200: TestClockResultSchema } },
    ),
    async (req) => advanceTestClockBy(deps, req.owner!.storeId, req.params.id, req.body),
  );

  app.post(
    '/admin/v1/subscriptions/:id/change-plan',
    op(
      {
        operationId: 'adminChangeSubscriptionPlan',
        summary: 'Change a subscription\'s plan',
        description:
          'The seller changes a plan the buyer did not ask to change. A change that would make the buyer pay more, now or at renewal (a dearer plan, a dearer interval, or undoing a cheaper change the buyer scheduled), ' +
          'needs the buyer\'s consent (전자상거래법 제13조⑥, 시행령 제20조의2): it answers `200` with `timing: "awaiting_consent"` and an `offer`, changes nothing and charges nothing, and sends `subscription.updated` with `change.kind: "plan_change_offered"` ' +
          '(the buyer gets a mail with a portal link open until the deadline). The buyer accepts or declines in the portal within 14 days (the subscription\'s clock); accepted, the change runs then exactly as below; declined, withdrawn or lapsed, `plan_change_offer_closed`. ' +
          'A newer change replaces an open offer. A cheaper or equal change applies without consent: a downgrade or an interval change takes effect at the next renewal (`plan_change_scheduled`). ' +
          'When the buyer changes the plan (portal, or an accepted offer), an upgrade (a dearer price on the same interval) takes effect at once and charges the prorated difference, (new − old) × time left ÷ period length, rounded down, ' +
          'as an order with `subscriptionEvent: "difference"` (`plan_changed`); a declined charge changes nothing (`402 SUBSCRIPTION_PAYMENT_FAILED`). ' +
          'That difference order is a contract of its own: withdrawn alone (an approved statutory refund request within its window) or refunded in full (`POST /v1/orders/{id}/refund`), the upgrade is void and the subscription returns to the plan, interval, renewal price and terms it had just before (`plan_change_withdrawn`); the next renewal charges that earlier price.',
        tags,
      },
      { auth: 'owner', errors: ['SUBSCRIPTION_NOT_FOUND', 'ALREADY_ENDED', 'SUBSCRIPTION_NOT_ACTIVE', 'PLAN_CHANGE_INVALID', 'SUBSCRIPTION_PAYMENT_FAILED', 'SUBSCRIPTION_PAYMENT_PENDING'] },
      { params: IdParams, body: PlanChangeBody, response: { 200: PlanChangeResultSchema } },
    ),
    async (req) => {
      const sub = await repo.getSubscription(deps.db, req.params.id);
      if (!sub || sub.store_id !== req.owner!.storeId) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
      return changePlan(deps, sub.id, req.body, { actor: 'seller' });
    },
  );
  app.get(
    '/admin/v1/subscriptions/:id/plan-change-offer',
    op(
      { operationId: 'adminGetPlanChangeOffer', summary: 'Read the plan-change offer awaiting the buyer', description: '`offer`: the open offer (`pending`), or `null` when none is open.', tags },
      { auth: 'owner', errors: ['SUBSCRIPTION_NOT_FOUND'] },
      { params: IdParams, response: { 200: Obj({ offer: Nullable(PlanChangeOfferSchema) }, { title: 'OpenPlanChangeOffer' }) } },
    ),
    async (req) => ({ offer: await openOfferOf(deps, req.owner!.storeId, req.params.id) }),
  );
  app.post(
    '/admin/v1/subscriptions/:id/plan-change-offer/withdraw',
    op(
      {
        operationId: 'adminWithdrawPlanChangeOffer',
        summary: 'Withdraw a plan-change offer the buyer has not answered',
        description: 'Closes the open offer (`status: withdrawn`, `subscription.updated` with `change.kind: "plan_change_offer_closed"`); nothing changes. `404 NOT_FOUND` when no offer is open.',
        tags,
      },
      { auth: 'owner', errors: ['SUBSCRIPTION_NOT_FOUND', 'NOT_FOUND'] },
      { params: IdParams, response: { 200: PlanChangeOfferSchema } },
    ),
    async (req) => withdrawOffer(deps, req.owner!.storeId, req.params.id),
  );

  const chargeTags = ['Subscriptions (console)'];
  app.get(
    '/admin/v1/subscription-charges',
    op(
      {
        operationId: 'adminListSubscriptionCharges',
        summary: 'List renewal and difference charges (find the ones that need attention)',
        description:
          'Every charge of the store\'s subscriptions, newest first, filtered by `mode`, `status` and `subscriptionId`. ' +
          'A charge whose gateway answer stays unknown is asked again with the same idempotency key 5 min, 15 min, 1 h, 3 h, 6 h and 12 h after each unknown answer; ' +
          'after the 7th unknown answer, or 24 h after the first, it becomes `needs_attention`: it is no longer retried, nothing is announced about it (no `order.paid`, no `payment_failed`), ' +
          'the subscription waits as it is (no renewal, no dunning, no plan change or immediate cancel until it is settled) and the service logs it at error. `status=needs_attention` lists what to settle.',
        tags: chargeTags,
      },
      { auth: 'owner' },
      { querystring: ChargeListQuery, response: { 200: SubscriptionChargePage } },
    ),
    async (req) => listCharges(deps, { storeId: req.owner!.storeId, mode: req.query.mode, status: req.query.status, subscriptionId: req.query.subscriptionId }, pageParams(req.query)),
  );
  app.post(
    '/admin/v1/subscription-charges/:id/resolve',
    op(
      {
        operationId: 'adminResolveSubscriptionCharge',
        summary: 'Settle a charge that needs attention by hand',
        description:
          'For a `needs_attention` charge, after checking the gateway\'s dashboard (search by the charge\'s `orderId`): `succeeded` records it exactly as a gateway success ' +
          '(the order with `paidAt` now, `order.paid`, the period moved or the plan changed, `subscription.updated`, licenses extended; give `paymentKey` so the order can later be refunded through the API); ' +
          '`failed` records a declined charge (a renewal then enters dunning like any declined renewal). A gateway answer that arrives later is not recorded over this decision (a success after `failed` is logged at error). ' +
          'Only `needs_attention` charges (`409 SUBSCRIPTION_CHARGE_NOT_UNKNOWN` otherwise), like `POST /admin/v1/refunds/{id}/resolve` for refunds.',
        tags: chargeTags,
      },
      { auth: 'owner', errors: ['SUBSCRIPTION_CHARGE_NOT_FOUND', 'SUBSCRIPTION_CHARGE_NOT_UNKNOWN'] },
      { params: IdParams, body: ResolveChargeBody, response: { 200: SubscriptionChargeSchema } },
    ),
    async (req) => resolveCharge(deps, req.owner!.storeId, req.params.id, req.body),
  );
  app.post(
    '/admin/v1/subscription-charges/:id/retry',
    op(
      {
        operationId: 'adminRetrySubscriptionCharge',
        summary: 'Ask the gateway again about a charge that needs attention',
        description:
          'Calls the gateway once more for a `needs_attention` charge with its own idempotency key and orderId, so it cannot charge twice: a definite answer is recorded (exactly once), ' +
          'another unknown answer leaves it `needs_attention`. Answers the charge as it is afterwards. Only `needs_attention` charges (`409 SUBSCRIPTION_CHARGE_NOT_UNKNOWN` otherwise).',
        tags: chargeTags,
      },
      { auth: 'owner', errors: ['SUBSCRIPTION_CHARGE_NOT_FOUND', 'SUBSCRIPTION_CHARGE_NOT_UNKNOWN'] },
      { params: IdParams, response: { 200: SubscriptionChargeSchema } },
    ),
    async (req) => retryCharge(deps, req.owner!.storeId, req.params.id),
  );
};

export default subscriptionsBillingModule;
