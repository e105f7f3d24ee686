-- Supersets: the exercises of a session or a plan that share a superset_group (a small
-- number, unique within the session or plan) are done as one group, in position order;
-- group_rest_seconds is the rest after the whole group (on the group's last exercise).
-- Imported workout rows carry a duration, a distance and the source's superset key.

create domain app.superset_group as integer check (value between 1 and 100);
comment on domain app.superset_group is 'must be a whole number from 1 to 100';

alter table app.session_exercises
  add column superset_group app.superset_group,
  add column group_rest_seconds app.rest_seconds;
alter table app.plan_exercises
  add column superset_group app.superset_group,
  add column group_rest_seconds app.rest_seconds;

alter type app.import_set_row
  add attribute duration_seconds integer,
  add attribute distance_m numeric,
  add attribute superset_key text;

-- app.import_set_problems names the measures a row's exercise type does not take, so it
-- takes the user (sql/functions/app_import_write.sql).
drop function if exists app.import_set_problems(app.import_set_row[]);
drop function if exists app.import_exercise_positions(app.import_set_row[]);
