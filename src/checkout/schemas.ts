import { Type, type Static } from '@sinclair/typebox';
import { CheckedByService, DateTime, ModeSchema, Nullable, Obj, StringMap } from '../platform/http/schemas';
import { IntervalSchema } from '../orders/schemas';
import { METADATA_LIMITS } from './limits';
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
    customerEmailLocked: Type.Optional(
      Type.Boolean({
        description:
          'true fixes `customer.email` (then required, else 400 VALIDATION_FAILED on `customer.email`) as the buyer\'s e-mail: the payment page shows it read-only and ' +
          'refuses a payment with any other e-mail, so the order and a subscription started from it belong to that address. Default false: the e-mail is only a prefill the buyer may change. Not echoed in the session (its fields are the contract\'s).',
      }),
    ),
    // Validation takes any JSON here so a malformed map answers METADATA_INVALID (the contract's code), not
    // VALIDATION_FAILED; checkMetadata enforces the documented shape (test/checkout/metadata-schema.test.ts).
    metadata: Type.Optional(
      CheckedByService(
        Type.Unknown({
          description: `The contract's flat map of strings, copied to the order and its \`order.paid\` event: at most ${METADATA_LIMITS.maxKeys} keys, each 1 to ${METADATA_LIMITS.maxKeyLength} characters, each value a string of at most ${METADATA_LIMITS.maxValueLength} characters (lengths in Unicode code points). Anything else answers 400 METADATA_INVALID, not VALIDATION_FAILED. \`null\` means none.`,
        }),
        Type.Union([
          Type.Unsafe<Record<string, string>>({
            type: 'object',
            additionalProperties: { type: 'string', maxLength: METADATA_LIMITS.maxValueLength },
            maxProperties: METADATA_LIMITS.maxKeys,
            propertyNames: { minLength: 1, maxLength: METADATA_LIMITS.maxKeyLength },
          }),
          Type.Null(),
        ]),
      ),
    ),
    locale: Type.Optional(
      Type.Union([Type.Literal('ko'), Type.Literal('en')], {
        description: "The buyer's language, `ko` or `en`, fixed by the seller: the payment page (all its views), the receipt, the portal and the buyer mails of this order use it. Not sent: the payment page follows the buyer's browser (`Accept-Language`, English when preferred over Korean; else Korean), and the language the buyer pays in becomes the order's (its receipt and mails). Either way the page shows a switch (`?lang=en|ko`) the buyer may use; Korean legal statements stay in Korean with an English rendering beside them. Carried to the order and to a subscription started from the session (its renewals and subscription mails use it).",
      }),
    ),
    successUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'Absolute http(s) URL on a domain of the mode\'s allow-list; `order_id` and `session_id` are added to its query' })),
    cancelUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'Absolute http(s) URL on a domain of the mode\'s allow-list' })),
  },
  { title: 'CreateCheckoutSessionRequest' },
);
export type CreateCheckoutSessionInput = Static<typeof CreateCheckoutSessionBody>;

/** POST /admin/v1/orders/{id}/cash-receipt: the seller issues a 현금영수증 afterwards (src/checkout/seller-cash-receipt.ts). */
export const IssueCashReceiptBody = Obj(
  {
    mode: ModeSchema,
    type: Type.Union([Type.Literal('소득공제'), Type.Literal('지출증빙')], { description: "Toss's CashReceipt.type: 소득공제 (a person: phone or card number) or 지출증빙 (a business: 사업자등록번호)" }),
    customerIdentityNumber: Type.String({
      maxLength: 30,
      description: 'Phone number (01…, 10–11 digits) or card number (13–19 digits) for 소득공제; 10-digit 사업자등록번호 for 지출증빙. Spaces and dashes are ignored. Kept masked; never logged.',
    }),
  },
  { title: 'IssueCashReceiptRequest' },
);
