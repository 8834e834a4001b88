import { Type, type Static } from '@sinclair/typebox';
import { CurrencySchema, DateTime, ModeSchema, Nullable, Obj, PageOf, PageQuery, Won } from '../../platform/http/schemas';

export const SchedulePriceChangeBody = Obj(
  {
    monthlyPrice: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'New price per month for subscribers billed monthly; left out: monthly subscribers are not affected' })),
    yearlyPrice: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'New price per year for subscribers billed yearly; left out: yearly subscribers are not affected' })),
    effectiveAt: Type.String({
      format: 'date-time',
      description: 'From when the new price applies: at least 30 days after now (store time). Each subscriber pays it from their first renewal on or after this instant.',
    }),
  },
  { title: 'SchedulePriceChangeRequest' },
);
export type SchedulePriceChangeInput = Static<typeof SchedulePriceChangeBody>;

export const PriceChangeSchema = Obj(
  {
    id: Type.String({ description: '`ppc_…`' }),
    mode: ModeSchema,
    productId: Type.String(),
    planId: Type.String(),
    monthlyPrice: Nullable(Won('New monthly price; null: monthly subscribers not affected')),
    yearlyPrice: Nullable(Won('New yearly price; null: yearly subscribers not affected')),
    currency: CurrencySchema,
    effectiveAt: DateTime('The first renewal on or after this instant charges the new price'),
    status: Type.Union([Type.Literal('scheduled'), Type.Literal('in_effect'), Type.Literal('canceled')], {
      description: '`scheduled` (before `effectiveAt`; can be canceled), `in_effect` (the date has passed: renewals apply it), `canceled`',
    }),
    subscribers: Obj(
      {
        notified: Type.Integer({ minimum: 0, description: 'Subscribers told (a `subscription.updated` with `price_change_scheduled` each)' }),
        consentRequired: Type.Integer({ minimum: 0, description: 'Of those, the ones whose price goes up (they must agree in the portal)' }),
        accepted: Type.Integer({ minimum: 0, description: 'Agreed in the portal (`price_change_accepted`)' }),
        applied: Type.Integer({ minimum: 0, description: 'Renewed at the new price' }),
        ended: Type.Integer({ minimum: 0, description: 'Not agreed: ended at their period end without a charge (`endReason: price_change_declined`)' }),
      },
    ),
    createdAt: DateTime(),
    canceledAt: Nullable(DateTime()),
  },
  { title: 'PlanPriceChange' },
);
export type PriceChangeView = Static<typeof PriceChangeSchema>;
export const PriceChangePage = PageOf(PriceChangeSchema, 'PlanPriceChangePage');
export const PriceChangeListQuery = PageQuery({ mode: Type.Optional(ModeSchema), productId: Type.Optional(Type.String({ maxLength: 100 })) });
export const ProductPlanParams = Obj({ id: Type.String({ maxLength: 100 }), planId: Type.String({ maxLength: 100 }) });
