-- The deliveries of signed gateway webhooks already taken (issue 42): PortOne sends Standard Webhooks, whose
-- `webhook-id` stays the same on every retry of one message. A delivery whose id this store and mode already took is
-- answered 200 and queues nothing (no second read-back at PortOne). Rows are pruned after a week by the gateway
-- module's hourly task (src/gateway/routes.ts), far past the SDK's 5-minute timestamp tolerance for one attempt.
create table gateway_webhook_deliveries (
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  delivery_id text not null,
  received_at timestamptz not null,
  primary key (store_id, mode, delivery_id)
);
create index gateway_webhook_deliveries_received_idx on gateway_webhook_deliveries (received_at);
