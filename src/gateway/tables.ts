import type { Mode } from '../platform/tables';

/** See migration 130_gateway_webhook_deliveries.sql: one row per signed gateway webhook message taken. */
export interface GatewayWebhookDeliveriesTable {
  store_id: string;
  mode: Mode;
  /** The gateway's id of the message, the same on each of its retries (Standard Webhooks `webhook-id`). */
  delivery_id: string;
  received_at: Date;
}

export interface GatewayTables {
  gateway_webhook_deliveries: GatewayWebhookDeliveriesTable;
}
