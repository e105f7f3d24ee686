-- Row-level security as the API role: user B reads none of user A's rows and cannot
-- change them, whatever the query says.
begin;
\ir support/helpers.psql
select plan(9);

create temporary table ids (name text primary key, id uuid);
grant select on ids to liftbase_api;
insert into ids select 'a', (auth.register('rls-a@example.com', 'password a1', null) -> 'user' ->> 'id')::uuid;
insert into ids select 'b', (auth.register('rls-b@example.com', 'password b1', null) -> 'user' ->> 'id')::uuid;
-- As the owner (who is subject to forced RLS too), write A's goal as A.
select auth.act_as((select id from ids where name = 'a'));
insert into app.goals (user_id, goal_type, goal_rate_per_week) values ((select id from ids where name = 'a'), 'cutting', -0.5);

set local role liftbase_api;

select set_config('liftbase.user_id', (select id from ids where name = 'b')::text, true);
select is((select count(*)::integer from app.user_settings), 1, 'B sees only its own settings row');
select is((select count(*)::integer from app.goals), 0, 'B sees none of A''s goals');
select is((select count(*)::integer from app.user_settings where user_id = (select id from ids where name = 'a')), 0,
  'B cannot read A''s settings even by id');

update app.goals set goal_rate_per_week = 0 where user_id = (select id from ids where name = 'a');
update app.user_settings set unit_system = 'imperial' where user_id = (select id from ids where name = 'a');
delete from app.user_settings where user_id = (select id from ids where name = 'a');

select throws_ok(
  format('insert into app.goals (user_id, goal_type, goal_rate_per_week) values (%L, ''bulking'', 0.25)',
         (select id from ids where name = 'a')),
  '42501', null, 'B cannot write a row owned by A');

select throws_ok(
  format('update app.user_settings set user_id = %L', (select id from ids where name = 'a')),
  '42501', null, 'B cannot move its row to A');

select is((select count(*)::integer from app.user_settings), 1, 'B''s own row is still there');

select set_config('liftbase.user_id', (select id from ids where name = 'a')::text, true);
select is((select goal_rate_per_week::numeric from app.goals), -0.5, 'A''s goal is unchanged by B''s update');
select is((select unit_system from app.user_settings), 'metric', 'A''s settings are unchanged by B''s update');

select set_config('liftbase.user_id', '', true);
select is((select count(*)::integer from app.user_settings), 0, 'without a user the API role sees nothing');

select * from finish();
rollback;
