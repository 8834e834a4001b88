-- A billing key is known only to the gateway (and, under PortOne, the PG contract) that issued it: a subscription is
-- bound to the rail that issued its key. Renewals, dunning retries and the key's delete charge there even after the
-- store's mode moves to another provider (issue 42). Until now only Toss's key pair was recorded (toss_key_pair).
-- Existing subscriptions take the provider of their first order (the payment that registered the card), else the
-- mode's provider, else the simulator in test mode and Toss in live mode (the only rails before PortOne).
alter table subscriptions add column provider text;

update subscriptions s
   set provider = coalesce(
     (select o.provider from orders o where o.checkout_session_id = s.checkout_session_id limit 1),
     (select m.payment_provider from store_mode_settings m where m.store_id = s.store_id and m.mode = s.mode),
     case when s.mode = 'test' then 'simulator' else 'toss' end
   )
 where provider is null;

alter table subscriptions alter column provider set not null;
alter table subscriptions add constraint subscriptions_provider_check check (provider in ('simulator', 'toss', 'portone'));
