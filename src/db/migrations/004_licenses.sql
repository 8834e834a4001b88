-- Licenses: keys issued for paid orders, their activations, the seller-side issuance attempts, and the Ed25519
-- keys that sign the license app API's answers.

create table licenses (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  product_id text not null references products(id),
  order_id text not null references orders(id),
  order_item_id text,
  -- Renewals of this subscription extend the license instead of issuing a new one.
  subscription_id text,
  -- Who makes the key: 'service' (generated here at payment) or 'seller' (answered to a license.issue request).
  issuer text not null check (issuer in ('service', 'seller')),
  -- HMAC-SHA256 (key derived from the master key) of the normalized key, hex: lookups by key are one index probe
  -- on a value an attacker cannot compute, so neither the query nor its timing reveals anything about other keys.
  -- Null while a seller-issued key has not arrived.
  key_hash text,
  -- The key itself, sealed with the master key (AES-256-GCM); the server read API returns it decrypted.
  key_sealed text,
  buyer_email text not null,
  buyer_name text not null,
  -- 'expired' is not stored: an active license is expired when expires_at <= now (evaluated per request).
  status text not null check (status in ('active', 'pending', 'revoked')),
  -- null = unlimited (a 0 from the product or the seller is stored as null)
  max_activations integer check (max_activations is null or max_activations > 0),
  issued_at timestamptz not null,
  expires_at timestamptz,
  revoked_at timestamptz,
  revoke_reason text,
  rotated_from text references licenses(id),
  -- Seller-side issuance: the id of the license.issue request, the same on every retry so the seller can de-duplicate.
  issue_event_id text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  check (status <> 'active' or key_hash is not null),
  check ((key_hash is null) = (key_sealed is null))
);
-- A key is looked up together with the product it is for; seller keys need only be unique per product.
create unique index licenses_key_idx on licenses (key_hash, product_id) where key_hash is not null;
-- At most one original license per order (re-issued ones carry rotated_from), so issuance is idempotent.
create unique index licenses_order_original_idx on licenses (order_id) where rotated_from is null;
create index licenses_list_idx on licenses (store_id, mode, issued_at desc, id desc);
create index licenses_subscription_idx on licenses (subscription_id) where subscription_id is not null;

create table license_activations (
  id text primary key,
  license_id text not null references licenses(id) on delete cascade,
  label text,
  activated_at timestamptz not null,
  last_verified_at timestamptz,
  -- Set by deactivate; a deactivated activation no longer counts against max_activations.
  deactivated_at timestamptz
);
create index license_activations_license_idx on license_activations (license_id, activated_at);

-- One row per attempt to get a key from the seller's endpoint (license.issue), for the seller console and support.
create table license_issue_attempts (
  id text primary key,
  license_id text not null references licenses(id) on delete cascade,
  endpoint_id text,
  attempted_at timestamptz not null,
  outcome text not null check (outcome in ('issued', 'failed', 'no_endpoint')),
  http_status integer,
  error text,
  duration_ms integer
);
create index license_issue_attempts_license_idx on license_issue_attempts (license_id, attempted_at);

-- Service-wide Ed25519 keys for the license app API. A key is published (listed) from created_at, signs from
-- signs_from until the next key's signs_from, and stays listed 24 hours after that.
create table signing_keys (
  kid text primary key,
  -- 1, 2, 3…: unique, so two processes creating the first key or rotating at once cannot both win.
  generation integer not null unique,
  -- base64 of the raw 32-byte public key
  public_key text not null,
  -- PKCS#8 DER of the private key, sealed with the master key (AES-256-GCM)
  private_key_sealed text not null,
  created_at timestamptz not null,
  signs_from timestamptz not null
);
