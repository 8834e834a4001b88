-- Free trials once per person: the e-mail box and the phone number a trial was started with, normalised
-- (src/subscriptions/trials/identity.ts), so `t.rial@gmail.com`, `trial+2@gmail.com` and `Trial@googlemail.com` are
-- one Gmail box and `+82 10-1234-5678` is `010-1234-5678`. Compared, never shown; null without a trial.
alter table subscriptions add column trial_email_key text;
alter table subscriptions add column trial_phone_key text;

-- Backfill the trials started before, with the same rule as identity.ts (lower-case; googlemail.com -> gmail.com; `+tag`
-- dropped for the providers in PLUS_TAG_DOMAINS; dots dropped for gmail.com only; phone: digits, +82/0082 -> 0).
with parts as (
  select id,
         substring(lower(btrim(buyer_email)) from '^(.*)@[^@]*$') as local,
         case when substring(lower(btrim(buyer_email)) from '@([^@]*)$') = 'googlemail.com' then 'gmail.com'
              else substring(lower(btrim(buyer_email)) from '@([^@]*)$') end as domain
  from subscriptions
  where trial_ends_at is not null
), keyed as (
  select id, domain,
         case when domain = 'gmail.com' then replace(local2, '.', '') else local2 end as local3
  from (
    select id, domain,
           case when domain in ('gmail.com', 'outlook.com', 'hotmail.com', 'live.com', 'msn.com', 'icloud.com', 'me.com', 'mac.com',
                                'fastmail.com', 'proton.me', 'protonmail.com', 'pm.me')
                then split_part(local, '+', 1) else local end as local2
    from parts
    where local is not null and local <> '' and domain is not null and domain <> ''
  ) p
)
update subscriptions s
   set trial_email_key = k.local3 || '@' || k.domain
  from keyed k
 where s.id = k.id and k.local3 <> '';

with digits as (
  select id, regexp_replace(coalesce(buyer_phone, ''), '[^0-9]', '', 'g') as d
  from subscriptions
  where trial_ends_at is not null
), intl as (
  select id, case when d like '0082%' then substr(d, 3) else d end as d from digits
), domestic as (
  select id,
         case when d like '82%' then
                case when ('0' || substr(d, 3)) like '00%' then substr(d, 3) else '0' || substr(d, 3) end
              else d end as d
  from intl
)
update subscriptions s
   set trial_phone_key = x.d
  from domestic x
 where s.id = x.id and length(x.d) >= 8;

create index subscriptions_trial_email_key on subscriptions (store_id, mode, product_id, trial_email_key) where trial_email_key is not null;
create index subscriptions_trial_phone_key on subscriptions (store_id, mode, product_id, trial_phone_key) where trial_phone_key is not null;
-- Replaced by the normalised key.
drop index if exists subscriptions_trial_email;
