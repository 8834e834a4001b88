-- Toss's settlements in the books (issue 32): a reconciliation run also reads what Toss settles for the day it compares
-- (GET /v1/settlements by soldDate, under each MID of the mode: https://docs.tosspayments.com/reference#정산-조회) and
-- keeps each record: what Toss will pay out, when, and what it kept (the fee, split into supply amount and VAT), so a
-- seller can match the payouts on their bank statement. Read once per run, stored with it like its differences.

-- 'read': the records below are all Toss settles for the day; 'unavailable': Toss refused or did not answer the
-- settlements query (the comparison itself still completed; settlements_failure says why); null: the run has not
-- read them (still running, failed, or made before this migration).
alter table reconciliations add column settlements_status text check (settlements_status in ('read', 'unavailable'));
alter table reconciliations add column settlements_failure text;

create table reconciliation_settlements (
  reconciliation_id text not null references reconciliations(id) on delete cascade,
  seq integer not null,
  -- which of the mode's Toss key pairs (MIDs) the record was read under: 'payments' or 'billing' (migration 068)
  toss_key_pair text not null check (toss_key_pair in ('payments', 'billing')),
  payment_key text not null,
  transaction_key text,
  -- Toss's orderId (ours: the order's id)
  order_id text not null,
  method text,
  -- won, as Toss reports them; a cancel's record carries the canceled amount (and the fee given back) as Toss signs it
  amount bigint not null,
  fee bigint not null,
  fee_supply_amount bigint not null,
  fee_vat bigint not null,
  pay_out_amount bigint not null,
  sold_date text not null,
  paid_out_date text not null,
  canceled boolean not null,
  primary key (reconciliation_id, seq)
);
