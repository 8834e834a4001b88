-- 할부: the months the gateway approved for a card payment (0 = 일시불), kept on the order so the buyer's receipt
-- and the seller's dashboard can say how the card was charged. NULL where the gateway did not say (not a card,
-- a renewal charged with a billing key, an order paid before this column).
alter table orders add column installment_months integer;
