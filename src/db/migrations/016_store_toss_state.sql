-- What we know about a store's Toss account per mode, apart from its keys: when the keys were last accepted by an
-- authenticated call to Toss, and when the first (and latest) webhook from Toss arrived at the store's webhook URL.
-- Kept out of store_mode_settings so that settings writes never race with webhook arrivals.
create table store_toss_state (
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  keys_verified_at timestamptz,
  first_webhook_at timestamptz,
  last_webhook_at timestamptz,
  primary key (store_id, mode)
);
