-- Owner tokens can be rotated and revoked. A revoked token leaves the store without one (null) until the operator
-- issues a new one (`commerce store token rotate` or POST /admin/v1/stores/{id}/owner-token/rotate).
-- Tokens stay stored as SHA-256 hashes only.
alter table stores alter column owner_token_hash drop not null;
