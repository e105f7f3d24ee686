-- POST /exercises/{id}/merge (docs/imports.md, "Merging two exercises"): a person moves
-- everything of one exercise to another, and the name of the one merged away is remembered
-- for them: their later imports of that name land on the exercise it was merged into
-- (app.resolve_exercise_names asks these before anything else).
create table app.exercise_name_aliases (
  user_id          uuid not null references auth.users (id) on delete cascade,
  -- The name, lower case.
  alias            text not null,
  exercise_id      uuid references app.exercises (id) on delete cascade,
  user_exercise_id uuid,
  created_at       timestamptz not null default now(),
  primary key (user_id, alias),
  foreign key (user_id, user_exercise_id) references app.user_exercises (user_id, id) on delete cascade,
  constraint exercise_name_aliases_one_exercise check ((exercise_id is null) <> (user_exercise_id is null)),
  constraint exercise_name_aliases_lower_case check (alias = lower(btrim(alias)) and alias <> '')
);
comment on table app.exercise_name_aliases is
  'Names a user merged into another exercise (POST /exercises/{id}/merge): their imports of the name land there';

alter table app.exercise_name_aliases enable row level security;
alter table app.exercise_name_aliases force row level security;
create policy own_rows on app.exercise_name_aliases using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));
