import type { Module } from '../../deps';
import { op } from '../../platform/http/route';
import { IdParams } from '../../platform/http/schemas';
import { pageParams } from '../../platform/http/pagination';
import { PriceChangeListQuery, PriceChangePage, PriceChangeSchema, ProductPlanParams, SchedulePriceChangeBody } from './schemas';
import { cancelPriceChange, getPriceChange, listPriceChanges, schedulePriceChange } from './service';

const tags = ['Products'];

/** Seller console: plan price changes for existing subscribers (the rules: src/subscriptions/price-change/service.ts). */
const priceChangesModule: Module = async (app, deps) => {
  app.post(
    '/admin/v1/products/:id/plans/:planId/price-changes',
    op(
      {
        operationId: 'adminSchedulePlanPriceChange',
        summary: 'Schedule a new price of a plan for its existing subscribers',
        description:
          'The 2025-02-14 enforcement decree of 전자상거래법: a recurring charge goes up only after notice at least 30 days ahead and the buyer\'s consent. ' +
          '`effectiveAt` must be at least 30 days after now (store time; `VALIDATION_FAILED` with `details.fields` otherwise). A plan has at most one change not yet in effect (`409 PRICE_CHANGE_PENDING`). ' +
          'Each subscriber of the plan and interval (active or past due, not cancelled at period end) whose amount differs is told in the same transaction: `subscription.updated` with `change.kind: price_change_scheduled`. ' +
          'An increase needs the buyer\'s consent in the portal (`price_change_accepted`): at the first renewal on or after `effectiveAt` an agreed subscriber is charged the new price; one who has not agreed is not charged and the subscription ends at its period end (`endReason: price_change_declined`). ' +
          'A decrease needs no consent and applies at that renewal. A subscription started later at the old price is told when it starts and gets the new price 30 days after that at the earliest. ' +
          'The product\'s list price for new buyers is not changed: update it with PATCH /admin/v1/products/{id}.',
        tags,
      },
      { auth: 'owner', errors: ['PRODUCT_NOT_FOUND', 'PRICE_CHANGE_PENDING'] },
      { params: ProductPlanParams, body: SchedulePriceChangeBody, response: { 201: PriceChangeSchema } },
    ),
    async (req, reply) => {
      reply.code(201);
      return schedulePriceChange(deps, req.owner!.storeId, req.params.id, req.params.planId, req.body);
    },
  );
  app.get(
    '/admin/v1/price-changes',
    op(
      { operationId: 'adminListPlanPriceChanges', summary: 'List plan price changes with how many subscribers were told, agreed, renewed or ended', tags },
      { auth: 'owner' },
      { querystring: PriceChangeListQuery, response: { 200: PriceChangePage } },
    ),
    async (req) => listPriceChanges(deps, { storeId: req.owner!.storeId, mode: req.query.mode, productId: req.query.productId }, pageParams(req.query)),
  );
  app.get(
    '/admin/v1/price-changes/:id',
    op({ operationId: 'adminGetPlanPriceChange', summary: 'Read a plan price change', tags }, { auth: 'owner', errors: ['PRICE_CHANGE_NOT_FOUND'] }, { params: IdParams, response: { 200: PriceChangeSchema } }),
    async (req) => getPriceChange(deps, req.owner!.storeId, req.params.id),
  );
  app.post(
    '/admin/v1/price-changes/:id/cancel',
    op(
      {
        operationId: 'adminCancelPlanPriceChange',
        summary: 'Withdraw a plan price change before its effective date',
        description: 'Nobody is charged the new price; each subscriber told gets `subscription.updated` with `change.kind: price_change_scheduled` and `canceled: true`. After `effectiveAt`, or twice: `409 PRICE_CHANGE_NOT_CANCELABLE`.',
        tags,
      },
      { auth: 'owner', errors: ['PRICE_CHANGE_NOT_FOUND', 'PRICE_CHANGE_NOT_CANCELABLE'] },
      { params: IdParams, response: { 200: PriceChangeSchema } },
    ),
    async (req) => cancelPriceChange(deps, req.owner!.storeId, req.params.id),
  );
};

export default priceChangesModule;
