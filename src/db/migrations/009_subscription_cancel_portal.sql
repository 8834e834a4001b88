-- Subscription cancellation and the buyer portal (issue 10, "Cancellation" and "The portal").

-- One row per immediate cancellation. It is the claim that serialises immediate cancels of one subscription
-- (at most one `refunding` per subscription) and it keeps the refund plan computed from the preview at that
-- moment, so a process that dies between the gateway calls and the end of the subscription is resumed by the next
-- attempt with exactly that plan (orders already refunded for it are skipped), never recomputed into a second refund.
create table subscription_cancellations (
  id text primary key,
  subscription_id text not null references subscriptions(id) on delete cascade,
  store_id text not null,
  mode text not null check (mode in ('live', 'test')),
  -- 'seller' (the API: the seller's decision) or 'buyer' (the hosted portal)
  actor text not null check (actor in ('seller', 'buyer')),
  reason text,
  -- refunding (claimed, refunds in progress) → completed | failed (a definite gateway refusal; the subscription stays)
  status text not null check (status in ('refunding', 'completed', 'failed')),
  -- the immediate-cancel preview at the moment of the request, and the plan taken from it: [{ orderId, amount }]
  preview jsonb not null,
  plan jsonb not null,
  refund_amount bigint not null check (refund_amount >= 0),
  refunded_order_ids jsonb not null default '[]'::jsonb,
  -- a buyer's cancel whose refund needs the seller's approval files this refund request instead of refunding
  refund_request_id text,
  -- a claim whose process died is taken over once this passes
  locked_until timestamptz,
  error_code text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create unique index subscription_cancellations_one_refunding on subscription_cancellations (subscription_id) where status = 'refunding';
create index subscription_cancellations_sub_idx on subscription_cancellations (subscription_id, created_at desc);

-- Buyer portal sessions: a short-lived link (POST /v1/portal-sessions) that opens the hosted portal for one buyer
-- of one store and mode. Only the token's hash is stored; the link is the capability, the CSRF secret is what the
-- portal's forms must send back.
create table portal_sessions (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  buyer_email text not null,
  -- the subscription the session was opened for (the portal opens on it)
  subscription_id text not null references subscriptions(id) on delete cascade,
  -- the API key's product range when the session was made (null: every product)
  product_ids jsonb,
  return_url text,
  token_hash text not null unique,
  csrf_secret text not null,
  expires_at timestamptz not null,
  created_at timestamptz not null
);
