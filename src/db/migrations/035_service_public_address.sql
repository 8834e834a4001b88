-- The service's public address as the running server knows it (PUBLIC_BASE_URL, or http://localhost:PORT), recorded
-- at every `commerce start`. CLI commands run beside the server (`commerce setup`, `member create`, …) put links in
-- what they send and print; without PUBLIC_BASE_URL in their own environment they use this address rather than a
-- guessed http://localhost:3000. One row.
create table service_public_address (
  id smallint primary key default 1 check (id = 1),
  url text not null,
  -- true: PUBLIC_BASE_URL was set; false: derived from PORT (a development server on this machine)
  configured boolean not null,
  recorded_at timestamptz not null
);
