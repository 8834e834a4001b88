import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ModeSchema, Nullable, Obj, StringMap } from '../platform/http/schemas';
import { IntervalSchema } from '../orders/schemas';
import { METADATA_LIMITS } from './model';
import { PlainText, EmailText } from '../platform/text';

export const CheckoutSessionStatusSchema = Type.Union([Type.Literal('open'), Type.Literal('completed'), Type.Literal('expired')], {
  description: '`open` until paid (`completed`) or until 30 minutes after creation (`expired`, computed when read)',
});

/** The contract's Checkout session, every field always present. */
export const CheckoutSessionSchema = Obj(
  {
    id: Type.String(),
    mode: ModeSchema,
    productId: Type.String(),
    status: CheckoutSessionStatusSchema,
    orderId: Nullable(Type.String({ description: 'Set when the payment completes' })),
    customer: Obj({ name: Nullable(Type.String()), email: Nullable(Type.String()), phone: Nullable(Type.String()) }),
    metadata: Nullable(StringMap({ description: 'The string map given at creation; copied to the order' })),
    successUrl: Nullable(Type.String()),
    cancelUrl: Nullable(Type.String()),
    expiresAt: DateTime('Creation time plus 30 minutes'),
    createdAt: DateTime(),
    url: Type.String({ description: 'The payment page to send the buyer to' }),
  },
  { title: 'CheckoutSession' },
);
export type CheckoutSessionView = Static<typeof CheckoutSessionSchema>;

export const CreateCheckoutSessionBody = Obj(
  {
    productId: Type.String({ minLength: 1, maxLength: 100 }),
    planId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Subscription products: an id from `pricing.plans[].id`, sent together with `interval`' })),
    interval: Type.Optional(IntervalSchema),
    customer: Type.Optional(
      Obj({
        name: Type.Optional(PlainText({ maxLength: 100 })),
        email: Type.Optional(EmailText()),
        phone: Type.Optional(Type.String({ maxLength: 40 })),
      }, { description: 'Prefills the buyer fields of the payment page' }),
    ),
    // Any JSON is accepted here so a malformed map answers METADATA_INVALID (the contract's code), not VALIDATION_FAILED.
    metadata: Type.Optional(
      Type.Unsafe<unknown>({
        description: `Flat map of string values, copied to the order and its \`order.paid\` event. At most ${METADATA_LIMITS.maxKeys} keys; keys 1 to ${METADATA_LIMITS.maxKeyLength} characters; values strings of at most ${METADATA_LIMITS.maxValueLength} characters. Anything else answers METADATA_INVALID. \`null\` means none.`,
      }),
    ),
    successUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'Absolute http(s) URL on a domain of the mode\'s allow-list; `order_id` and `session_id` are added to its query' })),
    cancelUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'Absolute http(s) URL on a domain of the mode\'s allow-list' })),
  },
  { title: 'CreateCheckoutSessionRequest' },
);
export type CreateCheckoutSessionInput = Static<typeof CreateCheckoutSessionBody>;
