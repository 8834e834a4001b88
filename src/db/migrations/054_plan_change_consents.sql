-- Consent for every dearer charge (issue 29 item 2; 전자상거래법 제13조⑥ with 시행령 제20조의2): a plan change the buyer
-- did not ask for (seller console, any seller path) that raises what the buyer pays, now or at renewal, is only an
-- offer until the buyer agrees in the portal; the portal's own changes are the buyer's consent. One row per offer
-- and per buyer-made change, with the consent word for word.
create table subscription_plan_consents (
  id text primary key,
  subscription_id text not null references subscriptions(id) on delete cascade,
  store_id text not null,
  mode text not null check (mode in ('live', 'test')),
  -- seller: an offer awaiting the buyer; buyer: a change the buyer made in the portal (accepted at once)
  source text not null check (source in ('seller', 'buyer')),
  from_plan_id text not null,
  from_interval text not null check (from_interval in ('monthly', 'yearly')),
  from_amount bigint not null check (from_amount >= 0),
  plan_id text not null,
  billing_interval text not null check (billing_interval in ('monthly', 'yearly')),
  amount bigint not null check (amount >= 0),
  -- the new plan's list prices when offered (the terms it is sold under)
  list_prices jsonb,
  status text not null check (status in ('pending', 'accepted', 'declined', 'withdrawn', 'lapsed')),
  -- the subscription's own time (test clocks) when offered, and by when the buyer must agree
  offered_at timestamptz not null,
  deadline timestamptz not null,
  -- { text, consentedAt, version }: the sentence the buyer agreed to; null until accepted
  consent jsonb,
  resolved_at timestamptz,
  created_at timestamptz not null
);
create index subscription_plan_consents_sub_idx on subscription_plan_consents (subscription_id, created_at desc);
create unique index subscription_plan_consents_one_pending on subscription_plan_consents (subscription_id) where status = 'pending';
create index subscription_plan_consents_deadline_idx on subscription_plan_consents (deadline) where status = 'pending';
