-- The price a subscription renews at after a plan price change, kept on the subscription when the buyer is told and
-- when the buyer agrees (issue 29 item 5: "after a buyer agrees, the receipt and the API's amount still say 9,900
-- while 12,900 is charged"). `amount` stays what the current period was sold at; this says what the renewal at
-- `effectiveAt` charges and whether the buyer agreed, so the API (`pendingPriceChange`) and the receipt state the
-- agreed future price without reading the plan's live list. Null when no change is open.
-- { priceChangeId, planId, billingInterval, currentAmount, amount, effectiveAt, consentRequired, acceptedAt }
alter table subscriptions add column price_change jsonb;

-- Existing subscriptions with an open decision (newest first, as the renewal picks it) carry it from now on.
update subscriptions s
set price_change = jsonb_build_object(
  'priceChangeId', d.price_change_id,
  'planId', c.plan_id,
  'billingInterval', d.billing_interval,
  'currentAmount', d.current_amount,
  'amount', d.new_amount,
  'effectiveAt', to_char(d.decide_by at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'consentRequired', d.new_amount > d.current_amount,
  'acceptedAt', case when d.accepted_at is null then null else to_char(d.accepted_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') end
)
from subscription_price_changes d
join plan_price_changes c on c.id = d.price_change_id
where d.subscription_id = s.id
  and d.outcome is null
  and c.canceled_at is null
  and d.price_change_id = (
    select d2.price_change_id from subscription_price_changes d2 join plan_price_changes c2 on c2.id = d2.price_change_id
    where d2.subscription_id = s.id and d2.outcome is null and c2.canceled_at is null
    order by d2.applies_from desc, d2.price_change_id desc limit 1
  );
