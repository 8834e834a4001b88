-- A settlement round is filled in batches of orders, one transaction each (issue 43: one transaction over a big
-- store's ~95,000 orders held every row locked for 30 s). closed_at is null while the round is being filled and is set
-- by the batch that finds nothing more to settle; an open round is resumed by the next run (its cutoff kept) and is
-- not shown until it closes. Rounds made before this migration were written whole: closed when made.
alter table settlement_rounds add column closed_at timestamptz;
update settlement_rounds set closed_at = created_at;
