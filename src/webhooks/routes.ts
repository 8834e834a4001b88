import { Type } from '@sinclair/typebox';
import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { IdParams } from '../platform/http/schemas';
import { pageParams } from '../platform/http/pagination';
import { openapiExtras } from '../platform/openapi';
import { dispatchEventsOnce, pruneOnce, runDeliveryOnce } from './delivery';
import { webhookDocs } from './docs';
import { registerWebhookMetrics } from './metrics';
import {
  CreateWebhookEndpointBody,
  CreateWebhookEndpointResult,
  EventDetailSchema,
  EventPage,
  ListEventsQuery,
  ListWebhookEndpointsQuery,
  ResendEventBody,
  TestSendResult,
  UpdateWebhookEndpointBody,
  WebhookDeliverySchema,
  WebhookEndpointPage,
  WebhookEndpointSchema,
  WebhookSecretsSchema,
} from './schemas';
import * as svc from './service';

const tags = ['Webhooks'];
const eventTags = ['Events'];

/** Seller console for webhook endpoints and the event log, plus the background tasks that deliver events. */
const webhooksModule: Module = async (app, deps) => {
  Object.assign(openapiExtras.v1Webhooks, webhookDocs());

  // The same functions run inside the server and in `commerce worker`; leases and SKIP LOCKED keep workers apart.
  deps.worker.addTask({ name: 'webhooks.dispatch', intervalMs: 500, run: (now) => dispatchEventsOnce(deps, now) });
  deps.worker.addTask({ name: 'webhooks.deliver', intervalMs: 500, run: (now, { signal }) => runDeliveryOnce(deps, now, { signal }) });
  deps.worker.addTask({ name: 'webhooks.prune', intervalMs: 3_600_000, run: (now) => pruneOnce(deps, now) });
  registerWebhookMetrics(app, deps);

  const owner = (req: { owner?: { storeId: string } }) => req.owner!.storeId;

  app.post(
    '/admin/v1/webhook-endpoints',
    op(
      {
        operationId: 'createWebhookEndpoint',
        summary: 'Register a webhook endpoint',
        description: 'The URL must be a public http(s) address (checked after DNS resolution). The signing secret is in the answer and readable later.',
        tags,
      },
      { auth: 'owner', errors: ['WEBHOOK_URL_NOT_ALLOWED'] },
      { body: CreateWebhookEndpointBody, response: { 201: CreateWebhookEndpointResult } },
    ),
    async (req, reply) => {
      reply.code(201);
      return svc.createEndpoint(deps, owner(req), req.body);
    },
  );

  app.get(
    '/admin/v1/webhook-endpoints',
    op({ operationId: 'listWebhookEndpoints', summary: 'List webhook endpoints, newest first', tags }, { auth: 'owner' }, {
      querystring: ListWebhookEndpointsQuery,
      response: { 200: WebhookEndpointPage },
    }),
    async (req) => svc.listEndpoints(deps, owner(req), { mode: req.query.mode, ...pageParams(req.query) }),
  );

  app.get(
    '/admin/v1/webhook-endpoints/:id',
    op({ operationId: 'getWebhookEndpoint', summary: 'Read a webhook endpoint', tags }, { auth: 'owner', errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'] }, {
      params: IdParams,
      response: { 200: WebhookEndpointSchema },
    }),
    async (req) => svc.getEndpoint(deps, owner(req), req.params.id),
  );

  app.patch(
    '/admin/v1/webhook-endpoints/:id',
    op(
      {
        operationId: 'updateWebhookEndpoint',
        summary: 'Change URL, event types, description, or disable/enable',
        description: 'Disabling ends the pending deliveries (they stay resendable); enabling clears the disabled reason.',
        tags,
      },
      { auth: 'owner', errors: ['WEBHOOK_ENDPOINT_NOT_FOUND', 'WEBHOOK_URL_NOT_ALLOWED'] },
      { params: IdParams, body: UpdateWebhookEndpointBody, response: { 200: WebhookEndpointSchema } },
    ),
    async (req) => svc.updateEndpoint(deps, owner(req), req.params.id, req.body),
  );

  app.delete(
    '/admin/v1/webhook-endpoints/:id',
    op({ operationId: 'deleteWebhookEndpoint', summary: 'Delete a webhook endpoint and its delivery log', tags }, { auth: 'owner', errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'] }, {
      params: IdParams,
      response: { 204: Type.Null({ description: 'Deleted' }) },
    }),
    async (req, reply) => {
      await svc.deleteEndpoint(deps, owner(req), req.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/admin/v1/webhook-endpoints/:id/secret',
    op({ operationId: 'getWebhookEndpointSecret', summary: 'Show the signing secrets currently in use', tags }, { auth: 'owner', errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'] }, {
      params: IdParams,
      response: { 200: WebhookSecretsSchema },
    }),
    async (req) => svc.getSecrets(deps, owner(req), req.params.id),
  );

  app.post(
    '/admin/v1/webhook-endpoints/:id/rotate-secret',
    op(
      {
        operationId: 'rotateWebhookEndpointSecret',
        summary: 'Rotate the signing secret',
        description: 'A new secret signs from now on; the previous one keeps signing beside it for 24 h, so deliveries verify with either.',
        tags,
      },
      { auth: 'owner', errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'] },
      { params: IdParams, response: { 200: WebhookSecretsSchema } },
    ),
    async (req) => svc.rotateSecret(deps, owner(req), req.params.id),
  );

  app.post(
    '/admin/v1/webhook-endpoints/:id/test',
    op(
      {
        operationId: 'sendWebhookTest',
        summary: 'Send a webhook.test event to this endpoint now',
        description: 'Sends at once and answers with the attempt. If it fails, it is retried on the normal schedule.',
        tags,
      },
      { auth: 'owner', errors: ['WEBHOOK_ENDPOINT_NOT_FOUND', 'WEBHOOK_ENDPOINT_DISABLED'] },
      { params: IdParams, response: { 200: TestSendResult } },
    ),
    async (req) => svc.sendTest(deps, owner(req), req.params.id),
  );

  app.get(
    '/admin/v1/events',
    op({ operationId: 'listEvents', summary: 'List events, newest first', tags: eventTags }, { auth: 'owner' }, {
      querystring: ListEventsQuery,
      response: { 200: EventPage },
    }),
    async (req) => svc.listEvents(deps, owner(req), { mode: req.query.mode, type: req.query.type, ...pageParams(req.query) }),
  );

  app.get(
    '/admin/v1/events/:id',
    op({ operationId: 'getEvent', summary: 'Read an event with its deliveries and every attempt', tags: eventTags }, { auth: 'owner', errors: ['EVENT_NOT_FOUND'] }, {
      params: IdParams,
      response: { 200: EventDetailSchema },
    }),
    async (req) => svc.getEvent(deps, owner(req), req.params.id),
  );

  app.post(
    '/admin/v1/events/:id/resend',
    op(
      { operationId: 'resendEvent', summary: 'Send an event again to one endpoint', description: 'Queues a new delivery, due now, with the same event id.', tags: eventTags },
      { auth: 'owner', errors: ['EVENT_NOT_FOUND', 'WEBHOOK_ENDPOINT_NOT_FOUND', 'WEBHOOK_ENDPOINT_DISABLED', 'WEBHOOK_MODE_MISMATCH', 'WEBHOOK_EVENT_NOT_RESENDABLE'] },
      { params: IdParams, body: ResendEventBody, response: { 202: WebhookDeliverySchema } },
    ),
    async (req, reply) => {
      reply.code(202);
      return svc.resendEvent(deps, owner(req), req.params.id, req.body.endpointId);
    },
  );
};

export default webhooksModule;
