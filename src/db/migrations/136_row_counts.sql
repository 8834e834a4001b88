-- The number of rows per store and mode of the tables whose API and console lists answer with an exact `total`
-- (orders, refunds, subscriptions, licenses, events), kept as the rows come and go, so an unfiltered list's total is a
-- read of at most 8 rows instead of a count of the whole store. The count grew with the store: `GET /v1/orders`'s p50
-- went from 8 to 20 ms over the hour-long soak as 16,700 orders piled up (its p99 38 → 68 ms, the one route whose p99
-- was not flat), and a store of a million orders has two million events behind the console's events total (issue 43).
--
-- Kept by one trigger function on each table, in the writer's transaction, whichever code path writes (payments,
-- imports, deletions of test data, a store's cascade). `part` '' is every row of the store and mode; a table whose
-- lists filter on one column (events by type; orders, refunds and subscriptions by status) also has a count per value
-- of it (`part` = the value), so that filter's total is as cheap. `slot` (0–7, from a hash of the row's id) spreads one
-- store's count over eight rows so concurrent writers do not queue on one row's lock; a count is the sum over slots.
create table row_counts (
  table_name text not null,
  store_id text not null,
  mode text not null,
  part text not null,
  slot smallint not null,
  n bigint not null default 0,
  primary key (table_name, store_id, mode, part, slot)
);

create or replace function commerce_row_counts_add(p_table text, p_store text, p_mode text, p_part text, p_id text, p_n bigint) returns void language plpgsql as $$
begin
  insert into row_counts as c (table_name, store_id, mode, part, slot, n) values (p_table, p_store, p_mode, '', hashtext(p_id) & 7, p_n)
  on conflict (table_name, store_id, mode, part, slot) do update set n = c.n + excluded.n;
  if p_part is not null then
    insert into row_counts as c (table_name, store_id, mode, part, slot, n) values (p_table, p_store, p_mode, p_part, hashtext(p_id) & 7, p_n)
    on conflict (table_name, store_id, mode, part, slot) do update set n = c.n + excluded.n;
  end if;
end
$$;

-- The column a table's lists filter on, of one row (NULL: counted as a whole only). Each branch reads its own table's
-- column, evaluated only for that table.
create or replace function commerce_row_counts_part(p_table text, p_row record) returns text language plpgsql as $$
begin
  if p_table = 'events' then return p_row.type; end if;
  if p_table in ('orders', 'order_refunds', 'subscriptions') then return p_row.status; end if;
  return null;
end
$$;

create or replace function commerce_row_counts() returns trigger language plpgsql as $$
declare
  old_part text;
  new_part text;
begin
  if tg_op <> 'INSERT' then old_part := commerce_row_counts_part(tg_table_name, old); end if;
  if tg_op <> 'DELETE' then new_part := commerce_row_counts_part(tg_table_name, new); end if;
  if tg_op = 'UPDATE' and old.store_id = new.store_id and old.mode = new.mode and old_part is not distinct from new_part then
    return null;
  end if;
  if tg_op <> 'INSERT' then perform commerce_row_counts_add(tg_table_name, old.store_id, old.mode, old_part, old.id, -1); end if;
  if tg_op <> 'DELETE' then perform commerce_row_counts_add(tg_table_name, new.store_id, new.mode, new_part, new.id, 1); end if;
  return null;
end
$$;

-- The smaller tables here, each its trigger then the count of the rows it had, in slot 0 (the triggers add to the other
-- slots; only the sum means anything). A trigger's lock holds that table's writers until the migration commits, so no
-- row is counted twice or missed. The big ones, orders and events, follow in migrations of their own (137, 138) so
-- that each holds its table's writers only for its own count (about half a second at a million orders or two million
-- events, measured in docs/manual/13-performance.md): a payment writes both.
create trigger order_refunds_row_counts after insert or delete or update of store_id, mode, status on order_refunds for each row execute function commerce_row_counts();
insert into row_counts (table_name, store_id, mode, part, slot, n)
  select 'order_refunds', store_id, mode, coalesce(status, ''), 0, count(*) from order_refunds group by grouping sets ((store_id, mode), (store_id, mode, status));
create trigger subscriptions_row_counts after insert or delete or update of store_id, mode, status on subscriptions for each row execute function commerce_row_counts();
insert into row_counts (table_name, store_id, mode, part, slot, n)
  select 'subscriptions', store_id, mode, coalesce(status, ''), 0, count(*) from subscriptions group by grouping sets ((store_id, mode), (store_id, mode, status));
create trigger licenses_row_counts after insert or delete or update of store_id, mode on licenses for each row execute function commerce_row_counts();
insert into row_counts (table_name, store_id, mode, part, slot, n) select 'licenses', store_id, mode, '', 0, count(*) from licenses group by store_id, mode;
