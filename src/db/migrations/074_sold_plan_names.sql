-- The plan's display name is part of the terms as sold (issue 29 item 5): the order-confirmation, subscription-started
-- and receipt read the name from `terms.plan.name` kept with the order at payment, so a plan renamed afterwards does
-- not rename what the buyer bought. (The product's name was already kept: orders.product_name, subscriptions.product_name.)
--
-- Orders and subscriptions paid before this migration did not record it: they get their plan's name AS IT STANDS NOW,
-- the best evidence left. A plan that no longer exists leaves the name out (readers show the plan id).
update orders o
set terms = jsonb_set(o.terms, '{plan,name}', to_jsonb(e->>'name'))
from products p, jsonb_array_elements(p.plans) e
where p.id = o.product_id
  and e->>'id' = o.plan_id
  and jsonb_typeof(o.terms->'plan') = 'object'
  and o.terms->'plan'->>'id' = o.plan_id
  and not (o.terms->'plan' ? 'name')
  and e->>'name' is not null;

update subscriptions s
set terms = jsonb_set(s.terms, '{plan,name}', to_jsonb(e->>'name'))
from products p, jsonb_array_elements(p.plans) e
where p.id = s.product_id
  and e->>'id' = s.plan_id
  and jsonb_typeof(s.terms->'plan') = 'object'
  and s.terms->'plan'->>'id' = s.plan_id
  and not (s.terms->'plan' ? 'name')
  and e->>'name' is not null;
