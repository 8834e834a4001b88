-- Webhooks: seller endpoints, one delivery per (event, endpoint) fan-out, and every attempt of every delivery.
-- Model after svix: message (events, the outbox in 001) → delivery per endpoint → attempt per HTTP call.

create table webhook_endpoints (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  url text not null,
  -- Subscribed event types, e.g. ["order.paid", "subscription.updated"].
  event_types jsonb not null,
  description text,
  status text not null check (status in ('enabled', 'disabled')),
  disabled_reason text,
  disabled_at timestamptz,
  -- Signing secrets, newest first: [{ "secret": <sealed with the master key>, "createdAt": iso, "expiresAt": iso|null }].
  -- Sealed rather than hashed: the seller must be able to read them again. A rotated-out secret keeps signing until expiresAt.
  secrets jsonb not null,
  -- Start of the current unbroken run of failed attempts; null after a success. Drives the 5-day auto-disable.
  failing_since timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index webhook_endpoints_store_idx on webhook_endpoints (store_id, mode, created_at);

create table webhook_deliveries (
  id text primary key,
  event_id text not null references events(id) on delete cascade,
  endpoint_id text not null references webhook_endpoints(id) on delete cascade,
  store_id text not null,
  mode text not null check (mode in ('live', 'test')),
  -- 'event': outbox fan-out; 'resend': the seller resent it; 'test': a webhook.test send.
  trigger text not null check (trigger in ('event', 'resend', 'test')),
  status text not null check (status in ('pending', 'succeeded', 'failed')),
  attempts integer not null default 0,
  -- When the next attempt is due (null once the delivery is final).
  next_attempt_at timestamptz,
  -- Lease of the worker currently sending it: a worker that dies mid-send loses it at locked_until and the
  -- delivery is sent again (at-least-once), never dropped.
  locked_by text,
  locked_until timestamptz,
  last_status_code integer,
  last_error text,
  last_attempt_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_event_idx on webhook_deliveries (event_id, created_at);
create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, status);

create table webhook_attempts (
  id text primary key,
  delivery_id text not null references webhook_deliveries(id) on delete cascade,
  event_id text not null,
  endpoint_id text not null,
  attempt integer not null,
  started_at timestamptz not null,
  url text not null,
  succeeded boolean not null,
  status_code integer,
  duration_ms integer not null,
  error text,
  response_excerpt text
);
create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, started_at);

-- Retention sweep deletes old events by created_at.
create index events_created_idx on events (created_at);
