import { Type, type Static } from '@sinclair/typebox';
import { CurrencySchema, DateTime, ModeSchema, Nullable, Obj, PageOf, PageQuery, Won } from '../platform/http/schemas';
import { PlainText } from '../platform/text';

export const ProductTypeSchema = Type.Union([Type.Literal('one_time'), Type.Literal('subscription')], {
  description: '`one_time` (paid once, `pricing.price`) or `subscription` (billed monthly or yearly by a plan in `pricing.plans`)',
});
export const ProductStatusSchema = Type.Union([Type.Literal('active'), Type.Literal('archived')], {
  description: '`active` (for sale) or `archived` (no new checkout sessions: PRODUCT_ARCHIVED)',
});
export const LicenseModeSchema = Type.Union([Type.Literal('none'), Type.Literal('service'), Type.Literal('seller')], {
  description: '`none`: no license; `service`: this service issues the key when the order is paid; `seller`: the seller issues it from a `license.issue` event',
});

const PLAN_ID_PATTERN = '^[A-Za-z0-9_-]{1,40}$';
/** A plan's free trial: at least a day, at most a year (longer "trials" are a discount, not a trial). */
export const MIN_TRIAL_DAYS = 1;
export const MAX_TRIAL_DAYS = 365;

export const PlanSchema = Obj(
  {
    id: Type.String({ description: 'Plan id, sent as `planId` when creating a checkout session' }),
    name: Type.String(),
    monthlyPrice: Nullable(Won('Price per month; null when the plan is not offered monthly')),
    yearlyPrice: Nullable(Won('Price per year; null when the plan is not offered yearly')),
    trialDays: Nullable(
      Type.Integer({
        minimum: MIN_TRIAL_DAYS,
        maximum: MAX_TRIAL_DAYS,
        description:
          'Free trial in days (1–365): checkout registers the card and charges nothing; the first charge (the plan price) is due when the trial ends. Null: no trial. A session keeps the value it was created with.',
      }),
    ),
    currency: CurrencySchema,
  },
  { title: 'ProductPlan' },
);

export const ProductSchema = Obj(
  {
    id: Type.String(),
    mode: ModeSchema,
    name: Type.String(),
    description: Nullable(Type.String()),
    type: ProductTypeSchema,
    status: ProductStatusSchema,
    pricing: Obj({
      currency: CurrencySchema,
      price: Nullable(Won('One-time price; null for subscriptions')),
      plans: Type.Array(PlanSchema, { description: 'Subscription plans; empty for one-time products' }),
    }),
    refundPolicy: Obj({
      refundDays: Type.Integer({ minimum: 0, description: 'Days after payment during which the buyer may withdraw (the statutory window is at least 7)' }),
      trialOffered: Type.Boolean({ description: 'A trial or sample is offered (전자상거래법 제17조⑥)' }),
      usageRestrictionMarked: Type.Boolean({ description: 'The seller marked that use ends the right of withdrawal' }),
      clawbackDisclosed: Type.Boolean({ description: 'Recovery of the annual-plan discount on early cancellation was disclosed at checkout' }),
      penaltyRate: Type.Integer({ minimum: 0, maximum: 10, description: 'Percentage withheld on a prorated refund outside the withdrawal window (at most 10)' }),
    }),
    saleStartsAt: Nullable(DateTime('Sales open at; null: already open')),
    saleEndsAt: Nullable(DateTime('Sales close at; null: no end')),
    stock: Nullable(Type.Integer({ minimum: 0, description: 'Units for sale in total; null: unlimited' })),
    soldCount: Type.Integer({ minimum: 0, description: 'Units sold, including those held by payments in progress' }),
    license: Obj({
      mode: LicenseModeSchema,
      maxActivations: Nullable(Type.Integer({ minimum: 0, description: 'Devices per license; null: unlimited' })),
      validityDays: Nullable(Type.Integer({ minimum: 1, description: 'One-time products: days a license is valid (null: forever). Subscriptions follow the paid period.' })),
    }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { title: 'Product' },
);
export type ProductView = Static<typeof ProductSchema>;
export const ProductPage = PageOf(ProductSchema, 'ProductPage');
export const ListProductsQuery = PageQuery();

// ---------- seller console ----------

const PlanInput = Obj({
  id: Type.Optional(Type.String({ pattern: PLAN_ID_PATTERN, description: 'Stable plan id (letters, digits, `_`, `-`); generated when left out' })),
  name: PlainText({ minLength: 1, maxLength: 100 }),
  monthlyPrice: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 100_000_000 }))),
  yearlyPrice: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000 }))),
  trialDays: Type.Optional(Nullable(Type.Integer({ minimum: MIN_TRIAL_DAYS, maximum: MAX_TRIAL_DAYS, description: 'Free trial in days (1–365); null or left out: none' }))),
  currency: Type.Optional(CurrencySchema),
});

const RefundPolicyInput = Obj({
  refundDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
  trialOffered: Type.Optional(Type.Boolean()),
  usageRestrictionMarked: Type.Optional(Type.Boolean()),
  clawbackDisclosed: Type.Optional(Type.Boolean()),
  penaltyRate: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
});

const LicenseInput = Obj({
  mode: LicenseModeSchema,
  maxActivations: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 10_000 }))),
  validityDays: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 36_500 }))),
});

const productEditable = {
  name: PlainText({ minLength: 1, maxLength: 200 }),
  description: Nullable(PlainText({ maxLength: 5000 })),
  price: Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'One-time products only (won)' })),
  plans: Type.Array(PlanInput, { maxItems: 20, description: 'Subscriptions only: at least one plan, each with a monthly and/or yearly price' }),
  refundPolicy: RefundPolicyInput,
  saleStartsAt: Nullable(Type.String({ format: 'date-time' })),
  saleEndsAt: Nullable(Type.String({ format: 'date-time' })),
  stock: Nullable(Type.Integer({ minimum: 0, maximum: 100_000_000 })),
  license: LicenseInput,
};

/**
 * Prices as the public Product reads them (`pricing.price`, `pricing.plans`), so a product read from /v1/products
 * is written back in the same shape. On update, a field left out keeps its value; `plans` replaces the list.
 */
const PricingInput = Obj(
  {
    currency: Type.Optional(CurrencySchema),
    price: Type.Optional(productEditable.price),
    plans: Type.Optional(productEditable.plans),
  },
  { title: 'ProductPricingInput', description: 'One-time products: `price`; subscriptions: `plans`. `currency` is always `KRW` and may be left out.' },
);

export const CreateProductBody = Obj({
  mode: ModeSchema,
  type: ProductTypeSchema,
  name: productEditable.name,
  description: Type.Optional(productEditable.description),
  pricing: Type.Optional(PricingInput),
  refundPolicy: Type.Optional(productEditable.refundPolicy),
  saleStartsAt: Type.Optional(productEditable.saleStartsAt),
  saleEndsAt: Type.Optional(productEditable.saleEndsAt),
  stock: Type.Optional(productEditable.stock),
  license: Type.Optional(productEditable.license),
}, { title: 'CreateProductRequest' });
export type CreateProductInput = Static<typeof CreateProductBody>;

export const UpdateProductBody = Obj({
  name: Type.Optional(productEditable.name),
  description: Type.Optional(productEditable.description),
  pricing: Type.Optional(PricingInput),
  refundPolicy: Type.Optional(productEditable.refundPolicy),
  saleStartsAt: Type.Optional(productEditable.saleStartsAt),
  saleEndsAt: Type.Optional(productEditable.saleEndsAt),
  stock: Type.Optional(productEditable.stock),
  license: Type.Optional(productEditable.license),
  status: Type.Optional(ProductStatusSchema),
}, { title: 'UpdateProductRequest' });
export type UpdateProductInput = Static<typeof UpdateProductBody>;

export const AdminListQuery = PageQuery({ mode: Type.Optional(ModeSchema) });

// ---------- coupons ----------

export const DiscountTypeSchema = Type.Union([Type.Literal('fixed'), Type.Literal('percent')], {
  description: '`fixed`: `discountValue` won off; `percent`: `discountValue` percent off, rounded down to the won (the buyer never pays less than 0)',
});

export const CouponSchema = Obj(
  {
    id: Type.String(),
    mode: ModeSchema,
    code: Type.String({ description: 'Stored upper-case; buyers may type it in any case' }),
    name: Type.String(),
    discountType: DiscountTypeSchema,
    discountValue: Type.Integer({ minimum: 1, description: 'Won for `fixed`, 1 to 100 for `percent`' }),
    currency: CurrencySchema,
    validFrom: Nullable(DateTime()),
    validUntil: Nullable(DateTime()),
    maxRedemptions: Nullable(Type.Integer({ minimum: 1, description: 'Usage limit over all buyers; null: unlimited' })),
    redeemedCount: Type.Integer({ minimum: 0, description: 'Redemptions, including those held by payments in progress' }),
    productIds: Nullable(Type.Array(Type.String(), { description: 'Products it applies to; null: every product of the mode' })),
    status: ProductStatusSchema,
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { title: 'Coupon' },
);
export type CouponView = Static<typeof CouponSchema>;
export const CouponPage = PageOf(CouponSchema, 'CouponPage');

export const CreateCouponBody = Obj({
  mode: ModeSchema,
  code: Type.String({ pattern: '^[A-Za-z0-9_-]{2,40}$', description: 'Letters, digits, `_`, `-`; case-insensitive' }),
  name: PlainText({ minLength: 1, maxLength: 100 }),
  discountType: DiscountTypeSchema,
  discountValue: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
  validFrom: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  validUntil: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  maxRedemptions: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100_000_000 }))),
  productIds: Type.Optional(Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 1000 }))),
}, { title: 'CreateCouponRequest' });
export type CreateCouponInput = Static<typeof CreateCouponBody>;

export const UpdateCouponBody = Obj({
  name: Type.Optional(PlainText({ minLength: 1, maxLength: 100 })),
  validFrom: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  validUntil: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  maxRedemptions: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100_000_000 }))),
  productIds: Type.Optional(Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 1000 }))),
  status: Type.Optional(ProductStatusSchema),
}, { title: 'UpdateCouponRequest' });
export type UpdateCouponInput = Static<typeof UpdateCouponBody>;
