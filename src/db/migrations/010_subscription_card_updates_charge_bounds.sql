-- Issue 10, the gaps: the live portal's card update (Toss's billing-auth window) and a bound on retrying
-- renewal charges whose answer never came.

-- One row per card registration opened from the portal: the single-use `state` (only its SHA-256 is kept) that the
-- return routes must carry besides the portal token, so a replayed or forged redirect cannot swap a card.
-- open → used (the success redirect took it, before the gateway was asked) | failed (the fail redirect took it)
create table portal_card_updates (
  id text primary key,
  portal_session_id text not null references portal_sessions(id) on delete cascade,
  subscription_id text not null references subscriptions(id) on delete cascade,
  state_hash text not null unique,
  status text not null check (status in ('open', 'used', 'failed')),
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null
);
create index portal_card_updates_session_idx on portal_card_updates (portal_session_id);

-- Unknown answers are retried on a backoff (see UNKNOWN_RETRY_DELAYS_MS), then left to the seller:
-- `needs_attention` is never retried automatically; the console settles it by hand (or a late answer records it).
alter table subscription_charges drop constraint subscription_charges_status_check;
alter table subscription_charges add constraint subscription_charges_status_check check (status in ('charging', 'succeeded', 'failed', 'needs_attention'));
alter table subscription_charges add column unknown_attempts integer not null default 0;
alter table subscription_charges add column first_unknown_at timestamptz;
create index subscription_charges_attention_idx on subscription_charges (subscription_id) where status = 'needs_attention';
