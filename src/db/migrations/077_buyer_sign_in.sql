-- The buyer's own door (the public "내 구매내역" page of a store, /s/{storeId}/orders): a buyer signs in with the
-- e-mail they bought with, by a one-time link mailed to that address, and sees their orders in that store and mode.
-- Neither table keeps a token: only its SHA-256, so a copy of the database opens no buyer's orders.

-- One row per link asked for (whether or not the address bought anything: the request is handled the same way, so
-- the answer and its timing tell nothing about who is a buyer). `email` is kept lower-cased, as buyers are matched.
create table buyer_sign_in_links (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  email text not null,
  token_hash text not null unique,
  expires_at timestamptz not null,
  -- set once, by the conditional update that signs the buyer in: a second use finds it set and is refused
  used_at timestamptz,
  created_at timestamptz not null
);
create index buyer_sign_in_links_email on buyer_sign_in_links (store_id, mode, email, created_at);

-- A signed-in buyer: the cookie holds the token, this row its hash. Scoped to one store and mode; ends at
-- `expires_at` or when the buyer signs out (`ended_at`).
create table buyer_sessions (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  email text not null,
  token_hash text not null unique,
  csrf_secret text not null,
  expires_at timestamptz not null,
  ended_at timestamptz,
  created_at timestamptz not null
);
