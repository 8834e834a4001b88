import type { Json, Mode, Timestamp } from '../platform/tables';

export type EndpointStatus = 'enabled' | 'disabled';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export type DeliveryTrigger = 'event' | 'resend' | 'test';

/** One signing secret of an endpoint; a rotated-out secret has expiresAt set and signs until then. */
export interface StoredSecret {
  secret: string;
  createdAt: string;
  expiresAt: string | null;
}

export interface WebhookEndpointsTable {
  id: string;
  store_id: string;
  mode: Mode;
  url: string;
  event_types: Json<string[]>;
  description: string | null;
  status: EndpointStatus;
  disabled_reason: string | null;
  disabled_at: Date | null;
  secrets: Json<StoredSecret[]>;
  failing_since: Date | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  store_id: string;
  mode: Mode;
  trigger: DeliveryTrigger;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  locked_by: string | null;
  locked_until: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  event_id: string;
  endpoint_id: string;
  attempt: number;
  started_at: Timestamp;
  url: string;
  succeeded: boolean;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

// Kysely table types of the webhooks module (composed into DB in src/db/types.ts).
export interface WebhooksTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
