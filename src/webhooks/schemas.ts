import { PlainText } from '../platform/text';
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ModeSchema, Nullable, Obj, PageOf, PageQuery } from '../platform/http/schemas';
import { SUBSCRIBABLE_EVENT_TYPES } from './model';

export const EventTypeSchema = Type.Union(
  SUBSCRIBABLE_EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'A subscribable event type. `webhook.test` needs no subscription.' },
);

const EndpointStatusSchema = Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]);
const UrlSchema = Type.String({ minLength: 1, maxLength: 2048, description: 'Public http(s) URL. Loopback, private, link-local, CGNAT, multicast and other special addresses are refused, also after DNS resolution (in test mode, loopback on the ports in WEBHOOK_LOOPBACK_PORTS passes when WEBHOOK_ALLOW_LOOPBACK is on). A refusal answers WEBHOOK_URL_NOT_ALLOWED saying only that the address is not allowed, never how the name resolved.' });

export const WebhookEndpointSchema = Obj(
  {
    id: Type.String(),
    mode: ModeSchema,
    url: Type.String(),
    eventTypes: Type.Array(Type.String()),
    description: Nullable(Type.String()),
    status: EndpointStatusSchema,
    disabledReason: Nullable(Type.String({ description: 'Why the endpoint is disabled (by the seller, a 410 Gone answer, or 5 days of failures)' })),
    disabledAt: Nullable(DateTime()),
    failingSince: Nullable(DateTime('Start of the current unbroken run of failed attempts; null after a success')),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { title: 'WebhookEndpoint' },
);
export type WebhookEndpointView = Static<typeof WebhookEndpointSchema>;

export const WebhookSecretSchema = Obj(
  {
    secret: Type.String({ description: '`whsec_` + base64 of 32 random bytes' }),
    createdAt: DateTime(),
    expiresAt: Nullable(DateTime('When a rotated-out secret stops signing; null for the current one')),
  },
  { title: 'WebhookSecret' },
);

export const WebhookSecretsSchema = Obj(
  {
    secret: Type.String({ description: 'The newest secret' }),
    secrets: Type.Array(WebhookSecretSchema, { description: 'Every secret that currently signs, newest first. Each delivery carries one `v1,` signature per secret.' }),
  },
  { title: 'WebhookSecrets' },
);
export type WebhookSecretsView = Static<typeof WebhookSecretsSchema>;

export const CreateWebhookEndpointBody = Obj({
  mode: ModeSchema,
  url: UrlSchema,
  eventTypes: Type.Array(EventTypeSchema, { minItems: 1, uniqueItems: true }),
  description: Type.Optional(Nullable(PlainText({ maxLength: 500 }))),
}, { title: 'CreateWebhookEndpointRequest' });

export const CreateWebhookEndpointResult = Obj(
  { endpoint: WebhookEndpointSchema, secret: Type.String({ description: 'The signing secret (also readable later via the secret endpoint)' }) },
  { title: 'CreateWebhookEndpointResult' },
);

export const UpdateWebhookEndpointBody = Obj(
  {
    url: Type.Optional(UrlSchema),
    eventTypes: Type.Optional(Type.Array(EventTypeSchema, { minItems: 1, uniqueItems: true })),
    description: Type.Optional(Nullable(PlainText({ maxLength: 500 }))),
    status: Type.Optional(EndpointStatusSchema),
  },
  { title: 'UpdateWebhookEndpointRequest', minProperties: 1 },
);

export const ListWebhookEndpointsQuery = PageQuery({ mode: Type.Optional(ModeSchema) });
export const WebhookEndpointPage = PageOf(WebhookEndpointSchema, 'WebhookEndpointPage');

export const EventSchema = Obj(
  {
    id: Type.String({ description: 'Stable across retries; the `webhook-id` header. Receivers de-duplicate on it.' }),
    type: Type.String(),
    mode: ModeSchema,
    createdAt: DateTime(),
    data: Type.Object({}, { additionalProperties: true }),
  },
  { title: 'Event' },
);
export type EventView = Static<typeof EventSchema>;

export const ListEventsQuery = PageQuery({
  mode: Type.Optional(ModeSchema),
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});
export const EventPage = PageOf(EventSchema, 'EventPage');

export const WebhookAttemptSchema = Obj(
  {
    id: Type.String(),
    attempt: Type.Integer({ minimum: 1 }),
    startedAt: DateTime(),
    url: Type.String(),
    succeeded: Type.Boolean(),
    statusCode: Nullable(Type.Integer({ description: 'null when no HTTP answer came (timeout, refused connection, address not allowed)' })),
    durationMs: Type.Integer({ minimum: 0 }),
    error: Nullable(Type.String()),
    responseExcerpt: Nullable(Type.String({ description: 'First 1024 characters of the response body. For deliveries to a loopback address (the WEBHOOK_ALLOW_LOOPBACK development setting) the body is never kept: a fixed note saying it was omitted is shown instead' })),
  },
  { title: 'WebhookAttempt' },
);

export const WebhookDeliverySchema = Obj(
  {
    id: Type.String(),
    eventId: Type.String(),
    endpointId: Type.String(),
    endpointUrl: Nullable(Type.String()),
    trigger: Type.Union([Type.Literal('event'), Type.Literal('resend'), Type.Literal('test')]),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    attemptCount: Type.Integer({ minimum: 0 }),
    nextAttemptAt: Nullable(DateTime()),
    lastStatusCode: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
    lastAttemptAt: Nullable(DateTime()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
    attempts: Type.Array(WebhookAttemptSchema),
  },
  { title: 'WebhookDelivery' },
);
export type WebhookDeliveryView = Static<typeof WebhookDeliverySchema>;

export const EventDetailSchema = Obj(
  {
    event: EventSchema,
    dispatchedAt: Nullable(DateTime('When the event was fanned out to endpoint deliveries')),
    deliveries: Type.Array(WebhookDeliverySchema),
  },
  { title: 'EventDetail' },
);
export type EventDetailView = Static<typeof EventDetailSchema>;

export const ResendEventBody = Obj({ endpointId: Type.String({ minLength: 1, maxLength: 100 }) }, { title: 'ResendEventRequest' });

export const TestSendResult = Obj({ event: EventSchema, delivery: WebhookDeliverySchema }, { title: 'WebhookTestResult' });
