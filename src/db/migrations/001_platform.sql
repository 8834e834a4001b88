-- Platform: stores, their per-mode settings, API keys, idempotency records, the event outbox and the job table.
-- Every timestamp is written by the application from its injected clock; column defaults exist only as a fallback.

create table stores (
  id text primary key,
  name text not null,
  owner_token_hash text not null unique,
  public_contact_verified boolean not null default false,
  created_at timestamptz not null,
  updated_at timestamptz not null
);

-- Settings that differ between live and test mode.
create table store_mode_settings (
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  -- Domains a checkout or portal return URL may point at (exact host or a subdomain of it).
  return_url_domains jsonb not null default '[]'::jsonb,
  -- 'simulator' (test mode only) or 'toss'; null means payment setup is incomplete (CHECKOUT_NOT_CONFIGURED).
  payment_provider text check (payment_provider in ('simulator', 'toss')),
  toss_client_key text,
  -- Sealed with the master key (AES-256-GCM); never returned by any API.
  toss_secret_key_sealed text,
  updated_at timestamptz not null,
  primary key (store_id, mode)
);

create table api_keys (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  name text not null,
  -- sha256 of the whole key; the plaintext is shown once and never stored.
  key_hash text not null unique,
  -- First characters of the key, for people to recognise it in lists (e.g. svc_test_AbC1).
  key_hint text not null,
  scopes jsonb not null,
  ip_allowlist jsonb,
  product_ids jsonb,
  created_at timestamptz not null,
  last_used_at timestamptz,
  -- Set when the key is rotated: it keeps working until then (grace period).
  expires_at timestamptz,
  rotated_to text,
  revoked_at timestamptz
);
create index api_keys_store_idx on api_keys (store_id, mode, created_at desc);

create table idempotency_keys (
  store_id text not null,
  mode text not null,
  key text not null,
  fingerprint text not null,
  state text not null check (state in ('processing', 'done')),
  response_status integer,
  response_body text,
  response_content_type text,
  created_at timestamptz not null,
  -- A 'processing' record whose lock has passed belongs to a request that died; the next retry takes it over.
  locked_until timestamptz not null,
  expires_at timestamptz not null,
  primary key (store_id, mode, key)
);
create index idempotency_keys_expiry_idx on idempotency_keys (expires_at);

-- The outbox: state changes write their event here in the same transaction; delivery happens later.
create table events (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  type text not null,
  data jsonb not null,
  created_at timestamptz not null,
  -- Set once the webhook dispatcher has fanned the event out to endpoint deliveries.
  dispatched_at timestamptz
);
create index events_undispatched_idx on events (created_at) where dispatched_at is null;
create index events_store_idx on events (store_id, mode, created_at desc);

-- Background jobs, claimed atomically (FOR UPDATE SKIP LOCKED) so several workers never run one job twice at once.
create table jobs (
  id text primary key,
  name text not null,
  payload jsonb not null,
  status text not null check (status in ('pending', 'running', 'done', 'failed')),
  run_at timestamptz not null,
  attempts integer not null default 0,
  max_attempts integer not null default 8,
  locked_by text,
  locked_until timestamptz,
  last_error text,
  -- Optional: at most one pending/running job per dedupe key.
  dedupe_key text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index jobs_due_idx on jobs (run_at) where status in ('pending', 'running');
create unique index jobs_dedupe_idx on jobs (dedupe_key) where dedupe_key is not null and status in ('pending', 'running');
