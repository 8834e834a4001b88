-- Issue 29: an upgrade's difference order can be withdrawn on its own (청약철회 of the upgrade contract, 제17조/제18조);
-- the subscription then returns to the plan, interval, renewal price and terms it had before the upgrade, as sold then.
-- `previous` is recorded on the difference charge when the upgrade takes effect (src/subscriptions/charge-outcome.ts).
alter table subscription_charges add column previous jsonb;

-- Upgrades paid before this migration: their `plan_changed` event (written in the same transaction as the difference
-- order) holds what the subscription was before (plan, interval, price); the terms are left out (null), and a
-- withdrawal then takes them from the period's own order when it was sold under that plan (src/subscriptions/withdrawal.ts).
update subscription_charges c
   set previous = jsonb_build_object(
         'planId', e.data->'change'->'from'->>'planId',
         'interval', e.data->'change'->'from'->>'billingInterval',
         'amount', (e.data->'change'->'from'->>'amount')::int)
  from events e
 where c.kind = 'difference'
   and c.status = 'succeeded'
   and c.previous is null
   and e.type = 'subscription.updated'
   and e.data->'change'->>'kind' = 'plan_changed'
   and e.data->'change'->>'orderId' = c.order_id;
