import type { components, paths, webhooks } from './schema.js';

/** Every named schema of the public OpenAPI document. */
export type Schemas = components['schemas'];

export type ApiError = Schemas['ApiError'];
/** The closed list of error codes the API answers with. */
export type ErrorCode = ApiError['code'];

export type Product = Schemas['Product'];
export type ProductPlan = Schemas['ProductPlan'];
export type ProductPage = Schemas['ProductPage'];
export type CheckoutSession = Schemas['CheckoutSession'];
export type CreateCheckoutSessionRequest = Schemas['CreateCheckoutSessionRequest'];
export type Order = Schemas['Order'];
export type OrderPage = Schemas['OrderPage'];
export type Refund = Schemas['Refund'];
export type RefundOrderRequest = Schemas['RefundOrderRequest'];
export type RefundOrderResult = Schemas['RefundOrderResult'];
export type RefundRequest = Schemas['RefundRequest'];
export type RefundRequestPage = Schemas['RefundRequestPage'];
export type ApproveRefundRequestBody = Schemas['ApproveRefundRequestBody'];
export type ApproveRefundRequestResult = Schemas['ApproveRefundRequestResult'];
export type RefundRequestDecisionBody = Schemas['RefundRequestDecisionBody'];
export type Subscription = Schemas['Subscription'];
export type SubscriptionPage = Schemas['SubscriptionPage'];
export type CancelPreview = Schemas['CancelPreview'];
export type CancelSubscriptionRequest = Schemas['CancelSubscriptionRequest'];
export type CancelSubscriptionResult = Schemas['CancelSubscriptionResult'];
export type CreatePortalSessionRequest = Schemas['CreatePortalSessionRequest'];
export type PortalSession = Schemas['PortalSession'];
export type License = Schemas['License'];
export type LicensePage = Schemas['LicensePage'];
export type LicenseActivation = Schemas['LicenseActivation'];
export type LicenseAppResponse = Schemas['LicenseAppResponse'];
export type SigningKeys = Schemas['SigningKeys'];

/** The query parameters of a GET operation, e.g. `QueryOf<'/v1/orders'>`. */
export type QueryOf<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never;

type PayloadOf<K extends keyof webhooks> = NonNullable<webhooks[K]['post']> extends { requestBody: { content: { 'application/json': infer J } } } ? J : never;

/** A verified webhook delivery: a union discriminated by `type` (`order.paid`, `subscription.updated`, …). */
export type WebhookEvent = { [K in keyof webhooks]: PayloadOf<K> }[keyof webhooks];
export type WebhookEventType = WebhookEvent['type'];
/** The event of one type, e.g. `WebhookEventOf<'order.paid'>`. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;
