-- The console's list of subscription charges answers with an exact `total`, which counted every charge of the store
-- through a join to its subscription (80–96 ms at p99 on the million-order store, its 100,000 charges; issue 43). A
-- charge names no store of its own: its subscription's store and mode are its (neither ever changes, and no charge or
-- subscription is ever deleted by the service), so the trigger reads them there and keeps migration 136's counts for
-- the table, as a whole and by status. The trigger and the count of the charges already there follow in 140.
create or replace function commerce_charge_row_counts() returns trigger language plpgsql as $$
declare
  s_store text;
  s_mode text;
begin
  if tg_op = 'UPDATE' and old.subscription_id = new.subscription_id and old.status = new.status then
    return null;
  end if;
  if tg_op <> 'INSERT' then
    select store_id, mode into s_store, s_mode from subscriptions where id = old.subscription_id;
    -- A subscription deleted with its charges (a cascade) is no longer there to name its store: nothing to subtract
    -- from a store that has no such subscription either.
    if found then
      perform commerce_row_counts_add('subscription_charges', s_store, s_mode, old.status, old.id, -1);
    end if;
  end if;
  if tg_op <> 'DELETE' then
    select store_id, mode into s_store, s_mode from subscriptions where id = new.subscription_id;
    perform commerce_row_counts_add('subscription_charges', s_store, s_mode, new.status, new.id, 1);
  end if;
  return null;
end
$$;
