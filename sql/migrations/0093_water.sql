-- Water (docs/health.md): what a person drank, in ml, on a day of their own, and a daily
-- target from their weight that they may override.

create domain app.water_ml as numeric check (value > 0 and value <= 5000);
comment on domain app.water_ml is 'must be more than 0 and at most 5000 (ml in one entry)';
create domain app.water_target_ml as integer check (value between 500 and 10000);
comment on domain app.water_target_ml is 'must be a whole number between 500 and 10000';

-- entry_date is the day the drink counts on: the local date of recorded_at in the account's
-- time zone when it was logged (or the day the client names), kept as it is when the zone
-- changes later, as a diary entry keeps its date.
create table app.water_entries (
  user_id     uuid not null references auth.users (id) on delete cascade,
  id          bigint generated always as identity,
  client_id   uuid,
  entry_date  date not null,
  recorded_at timestamptz not null default now(),
  amount_ml   app.water_ml not null,
  source      app.measurement_source not null default 'manual',
  created_at  timestamptz not null default now(),
  updated_at  timestamptz,
  primary key (user_id, id)
);
comment on table app.water_entries is 'What a person drank: ml, the day it counts on, when and from where (docs/health.md)';
create unique index water_entries_client_key on app.water_entries (user_id, client_id);
-- A day's total and its entries.
create index water_entries_day_idx on app.water_entries (user_id, entry_date, recorded_at);
alter table app.water_entries enable row level security;
alter table app.water_entries force row level security;
create policy own_rows on app.water_entries using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));

alter table app.target_overrides add column water_ml app.water_target_ml;
