-- Programs: a periodized plan (blocks of phases over weeks) built from the built-in
-- templates, its schedule of planned sessions, and the progression state of each exercise.
-- The rules (phase plans, strategies, skipping, trimming) are functions in
-- sql/functions/app_programs.sql and app_progression.sql.

create domain app.program_goal as text check (value in ('strength', 'hypertrophy'));
comment on domain app.program_goal is 'must be strength or hypertrophy';
create domain app.training_age as text check (value in ('novice', 'intermediate', 'advanced'));
comment on domain app.training_age is 'must be novice, intermediate or advanced';
create domain app.days_per_week as integer check (value between 2 and 6);
comment on domain app.days_per_week is 'must be a whole number from 2 to 6';
create domain app.program_mode as text check (value in ('normal', 'short_on_time'));
comment on domain app.program_mode is 'must be normal or short_on_time';

-- Every element names a built-in template.
create function app.are_templates(p_ids text[]) returns boolean
language sql stable as $$
  select coalesce(bool_and(exists (select from app.templates as t where t.id = n)), true) from unnest(p_ids) as n
$$;
grant execute on function app.are_templates(text[]) to liftbase_api;

-- The rotation of templates the sessions cycle through.
create domain app.program_split as text[]
  check (cardinality(value) between 1 and 6 and app.are_templates(value));
comment on domain app.program_split is 'must be a list of 1 to 6 template ids (push, pull, legs, upper, lower, full_body)';

create table app.programs (
  user_id       uuid not null references auth.users (id) on delete cascade,
  id            uuid not null default gen_random_uuid(),
  goal          app.program_goal not null,
  training_age  app.training_age not null,
  days_per_week app.days_per_week not null,
  split         app.program_split not null,
  status        text not null default 'active' check (status in ('active', 'ended')),
  started_on    date not null,
  created_at    timestamptz not null default now(),
  ended_at      timestamptz,
  primary key (user_id, id)
);
-- One active program per user: a new one ends the previous.
create unique index programs_one_active on app.programs (user_id) where status = 'active';

-- Blocks are groups of consecutive phases (block_position); a phase sets the rep ranges,
-- RPE targets and volume of its weeks. Main lifts (priority tier 1 or competition lifts)
-- take main_reps; every other exercise climbs the accessory range.
create table app.program_phases (
  user_id             uuid not null,
  program_id          uuid not null,
  position            integer not null,
  block_position      integer not null,
  block               text not null,
  phase               text not null check (phase in ('linear', 'accumulation', 'intensification', 'realization', 'deload')),
  first_week          integer not null,
  last_week           integer not null,
  main_reps           integer not null check (main_reps between 1 and 30),
  main_rpe            numeric not null,
  accessory_reps_low  integer not null,
  accessory_reps_high integer not null,
  accessory_rpe       numeric not null,
  set_factor          numeric not null check (set_factor > 0),
  load_factor         numeric not null check (load_factor > 0),
  primary key (user_id, program_id, position),
  foreign key (user_id, program_id) references app.programs (user_id, id) on delete cascade,
  check (first_week <= last_week and accessory_reps_low <= accessory_reps_high and main_reps < accessory_reps_high)
);

-- The schedule: one row per training slot, in order. A skipped workout leaves a 'skipped'
-- row in its slot and moves on (successor_id points at it); a workout combined into the
-- next one is 'combined' with successor_id naming the session that absorbed it.
create table app.program_sessions (
  user_id             uuid not null,
  program_id          uuid not null,
  id                  uuid not null default gen_random_uuid(),
  slot                integer not null check (slot >= 1),
  templates           text[] not null check (cardinality(templates) >= 1),
  status              text not null default 'planned' check (status in ('planned', 'completed', 'skipped', 'combined')),
  volume_factor       numeric not null default 1 check (volume_factor > 0 and volume_factor <= 1),
  shifted             integer not null default 0,
  successor_id        uuid,
  mode                app.program_mode not null default 'normal',
  dropped_sets        jsonb not null default '[]',
  training_session_id uuid,
  done_at             timestamptz,
  primary key (user_id, id),
  -- Deferred: a skip moves every later slot up by one in one statement.
  constraint program_sessions_slot_key unique (user_id, program_id, slot) deferrable initially deferred,
  foreign key (user_id, program_id) references app.programs (user_id, id) on delete cascade,
  foreign key (user_id, training_session_id) references app.training_sessions (user_id, id)
    on delete set null (training_session_id)
);
-- "The next planned session" is the hot read: the first planned slot of the program.
create index program_sessions_planned_idx on app.program_sessions (user_id, program_id, slot) where status = 'planned';

-- Where each exercise stands: the load (at reps[1] for main lifts, per set target reps for
-- double progression), consecutive misses (novice), and the week being collected for
-- the RPE-driven weekly rule (top-set RPE so far, against rpe_target).
create table app.program_exercise_state (
  user_id      uuid not null,
  program_id   uuid not null,
  exercise_id  uuid not null references app.exercises (id),
  load_kg      numeric check (load_kg >= 0),
  reps         integer[] not null default '{}',
  misses       integer not null default 0,
  rpe_week     integer,
  rpe_week_top numeric,
  rpe_target   numeric,
  updated_at   timestamptz not null default now(),
  primary key (user_id, program_id, exercise_id),
  foreign key (user_id, program_id) references app.programs (user_id, id) on delete cascade
);

do $$
declare
  v_table text;
begin
  foreach v_table in array array['programs', 'program_phases', 'program_sessions', 'program_exercise_state']
  loop
    execute format('alter table app.%I enable row level security', v_table);
    execute format('alter table app.%I force row level security', v_table);
    execute format('create policy own_rows on app.%I using (user_id = (select app.current_user_id()))
                    with check (user_id = (select app.current_user_id()))', v_table);
  end loop;
end
$$;
