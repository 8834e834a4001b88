-- Terms as sold: the refund policy and list prices the buyer agreed to are kept with each order and subscription
-- (src/orders/terms.ts), so a seller editing a product changes only future sales (전자상거래법 제17조).
--
-- Orders and subscriptions made before this migration did not record what they were sold under. They get a copy of
-- their product's terms AS THEY STAND NOW (version `pre-015`): the best evidence left. A seller who changed a
-- product's refund terms after such a sale should correct those orders by hand.
alter table orders add column terms jsonb;
alter table subscriptions add column terms jsonb;

update orders o set terms = jsonb_build_object(
  'version', 'pre-015',
  'refundDays', p.refund_days,
  'penaltyRate', p.penalty_rate,
  'clawbackDisclosed', p.clawback_disclosed,
  'trialOffered', p.trial_offered,
  'usageRestrictionMarked', p.usage_restriction_marked,
  'licensed', p.license_mode <> 'none',
  'plan', (select jsonb_build_object('id', e->>'id', 'monthlyPrice', e->'monthlyPrice', 'yearlyPrice', e->'yearlyPrice')
           from jsonb_array_elements(p.plans) e where e->>'id' = o.plan_id limit 1)
)
from products p where p.id = o.product_id;

update subscriptions s set terms = jsonb_build_object(
  'version', 'pre-015',
  'refundDays', p.refund_days,
  'penaltyRate', p.penalty_rate,
  'clawbackDisclosed', p.clawback_disclosed,
  'trialOffered', p.trial_offered,
  'usageRestrictionMarked', p.usage_restriction_marked,
  'licensed', p.license_mode <> 'none',
  'plan', (select jsonb_build_object('id', e->>'id', 'monthlyPrice', e->'monthlyPrice', 'yearlyPrice', e->'yearlyPrice')
           from jsonb_array_elements(p.plans) e where e->>'id' = s.plan_id limit 1)
)
from products p where p.id = s.product_id;

-- Rows whose product is gone keep the statutory minimum: 7 days, no penalty, no clawback, no restriction.
update orders set terms = '{"version":"pre-015","refundDays":7,"penaltyRate":0,"clawbackDisclosed":false,"trialOffered":false,"usageRestrictionMarked":false,"licensed":false,"plan":null}'::jsonb where terms is null;
update subscriptions set terms = '{"version":"pre-015","refundDays":7,"penaltyRate":0,"clawbackDisclosed":false,"trialOffered":false,"usageRestrictionMarked":false,"licensed":false,"plan":null}'::jsonb where terms is null;

alter table orders alter column terms set not null;
alter table subscriptions alter column terms set not null;
