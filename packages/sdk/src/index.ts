export { CommerceClient, type CommerceClientOptions, type PostOptions } from './client.js';
export { CommerceApiError } from './errors.js';
export { verifyWebhook, WebhookVerificationError } from './webhooks.js';
export { retryAfterMs } from './retry.js';
export type * from './types.js';
export type { paths, components, webhooks, operations } from './schema.js';
