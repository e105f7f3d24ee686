-- One row per data import (POST /import/{format}), dry runs included: what the user sent,
-- how many rows were imported or skipped as duplicates, how many problems were found.
-- The reporting schema reads it for import outcomes.

create table app.import_runs (
  user_id            uuid not null references auth.users (id) on delete cascade,
  id                 uuid not null default gen_random_uuid(),
  format             text not null check (format in ('strong', 'hevy', 'cronometer', 'liftbase')),
  -- SHA-256 of the body, hex: lets support tell a re-upload of the same file.
  file_sha256        text not null,
  dry_run            boolean not null,
  imported           integer not null check (imported >= 0),
  skipped_duplicates integer not null check (skipped_duplicates >= 0),
  error_count        integer not null check (error_count >= 0),
  created_at         timestamptz not null default now(),
  primary key (user_id, id)
);
create index import_runs_created_idx on app.import_runs (created_at);

alter table app.import_runs enable row level security;
alter table app.import_runs force row level security;
create policy own_rows on app.import_runs
  using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));
