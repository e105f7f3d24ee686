-- What Apple Health and Health Connect record (docs/health.md): samples an app reads on the
-- phone and sends in batches, kept by the platform's own sample id, and a day's value per
-- type, kept as each batch writes (so that a year of steps is read as 365 rows, not as the
-- hundreds of samples a phone records each day).

create domain app.health_platform as text check (value in ('apple_health', 'health_connect'));
comment on domain app.health_platform is 'must be apple_health or health_connect';
create domain app.health_sample_type as text
  check (value in ('steps', 'active_energy', 'resting_energy', 'sleep', 'resting_heart_rate', 'heart_rate_variability',
                   'weight', 'body_fat'));
comment on domain app.health_sample_type is
  'must be one of steps, active_energy, resting_energy, sleep, resting_heart_rate, heart_rate_variability, weight, body_fat';

create table app.health_samples (
  user_id     uuid not null references auth.users (id) on delete cascade,
  id          bigint generated always as identity,
  platform    app.health_platform not null,
  -- The platform's id of the sample (HealthKit's UUID, Health Connect's metadata id).
  sample_id   text not null check (length(sample_id) between 1 and 200),
  type        app.health_sample_type not null,
  -- In the type's unit (docs/health.md): a count, kcal, minutes, bpm, ms, kg or %.
  value       numeric not null,
  start_at    timestamptz not null,
  end_at      timestamptz not null,
  -- Who recorded it: the app and the device, as the platform names them.
  source_app  text check (length(source_app) <= 200),
  device      text check (length(device) <= 200),
  -- The local day it counts on (of end_at for sleep, of start_at otherwise), in the
  -- account's zone when it arrived.
  day         date not null,
  created_at  timestamptz not null default now(),
  updated_at  timestamptz,
  primary key (user_id, id),
  constraint health_samples_times check (end_at >= start_at)
);
comment on table app.health_samples is
  'Samples from Apple Health and Health Connect, by the platform''s sample id (docs/health.md)';
create unique index health_samples_sample_key on app.health_samples (user_id, platform, sample_id);
-- A day's samples of a type, to compute the day again.
create index health_samples_day_idx on app.health_samples (user_id, type, day);
alter table app.health_samples enable row level security;
alter table app.health_samples force row level security;
create policy own_rows on app.health_samples using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));

-- A day's value of a type, from the winning source (docs/health.md), written by the batch
-- that changed the day's samples.
create table app.health_days (
  user_id uuid not null references auth.users (id) on delete cascade,
  type    app.health_sample_type not null,
  day     date not null,
  value   numeric not null,
  -- The source whose samples make the value (app and device), or 'all' for an average.
  source  text not null,
  samples integer not null check (samples > 0),
  primary key (user_id, type, day)
);
comment on table app.health_days is 'Each day''s value per health type, kept by POST /health/samples (docs/health.md)';
alter table app.health_days enable row level security;
alter table app.health_days force row level security;
create policy own_rows on app.health_days using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));
