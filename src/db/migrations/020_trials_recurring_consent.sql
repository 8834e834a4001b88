-- Recurring-charge consent and free trials (issue 21 items 5 and 6).
-- The buyer's separate consent to the recurring charge, exactly as the payment page worded it, with its time and the
-- wording's version: {text, consentedAt, version}. Null on subscriptions started before this migration.
alter table subscriptions add column recurring_consent jsonb;
-- The end of the free trial (its first charge); null when the subscription started without one.
alter table subscriptions add column trial_ends_at timestamptz;
-- The plan's trial length when the session was created (the sold terms: a later product edit does not change it).
alter table checkout_sessions add column trial_days integer;
-- Conversion notices written (`subscription.updated` with change.kind `trial_will_end`): one row per notice, so the
-- daily job writes each at most once however often it runs.
create table subscription_trial_notices (
  subscription_id text not null references subscriptions(id) on delete cascade,
  -- 'lead' (TRIAL_NOTICE_DAYS before the end), 'signup' (a short trial's notice at start), 'final' (3 days before)
  notice text not null check (notice in ('lead', 'signup', 'final')),
  due_at timestamptz not null,
  written_at timestamptz not null,
  primary key (subscription_id, notice)
);
