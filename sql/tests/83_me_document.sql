-- GET /me's kept answer (0063): after each write of one of its sources (the account's
-- display name, email and disabled state; the settings; whether a goal exists), GET /me
-- answers what those sources say, built as api.me built it before the answer was kept. The
-- kept answer is what GET /me serves (so a source whose upkeep is missing shows here as a
-- stale answer); one of another shape or none at all is built on read instead.
begin;
\ir support/helpers.psql
select plan(30);
-- As the server's sessions run (the answer's timestamps are written in UTC).
set local timezone = 'UTC';

select pg_temp.sign_up('m', 'me-document@example.com', 'me document password', 'Me');
create temporary table answers (step text primary key, answer jsonb);
grant all on answers to liftbase_api;

-- GET /me's answer built from its sources, as api.me built it before 0063.
create function pg_temp.built() returns jsonb language sql as $$
  select jsonb_build_object('user', auth.user_json(u), 'settings', app.settings_json(u.id),
                            'needs_onboarding', not exists (select from app.goals as g where g.user_id = u.id))
    from auth.users as u
   where u.id = (select user_id from tokens where name = 'm') $$;
-- The kept answer.
create function pg_temp.kept() returns jsonb language sql as $$
  select s.me_document from app.sync_state as s where s.user_id = (select user_id from tokens where name = 'm') $$;
-- GET /me, as the API role, remembered under p_step.
create function pg_temp.me(p_step text) returns jsonb language plpgsql as $$
declare
  v_answer jsonb;
begin
  set local role liftbase_api;
  v_answer := pg_temp.call('me', 'm', null);
  reset role;
  insert into answers values (p_step, v_answer);
  return v_answer;
end $$;

select is(pg_temp.me('signed up'), pg_temp.built(), 'a new account: GET /me answers its sources');
select is(pg_temp.kept(), pg_temp.built(), 'a new account has its answer kept');
select is((select answer ->> 'needs_onboarding' from answers where step = 'signed up'), 'true', 'no goal yet');

-- Onboarding: the goal (and the settings' time zone).
set local role liftbase_api;
select pg_temp.call('onboarding_complete', 'm', '{"goal_type": "cutting", "goal_rate_per_week": -0.5, "height_cm": 170,
  "weight_kg": 70, "age_years": 30, "sex": "female", "activity_level": "light", "timezone": "Europe/Berlin"}');
reset role;
select is(pg_temp.me('onboarded'), pg_temp.built(), 'after onboarding GET /me answers its sources');
select is((select answer ->> 'needs_onboarding' from answers where step = 'onboarded'), 'false',
  'a goal: onboarding is done');
select is((select answer -> 'settings' ->> 'timezone' from answers where step = 'onboarded'), 'Europe/Berlin',
  'the time zone onboarding set');

-- PATCH /me: the display name.
set local role liftbase_api;
select pg_temp.call('me_update', 'm', '{"display_name": "Renamed"}');
reset role;
select is(pg_temp.me('renamed'), pg_temp.built(), 'after PATCH /me GET /me answers its sources');
select is((select answer -> 'user' ->> 'display_name' from answers where step = 'renamed'), 'Renamed',
  'the new display name');

-- PUT /user/profile: the display name and the settings' units too.
set local role liftbase_api;
select pg_temp.call('profile_put', 'm', '{"sex": "female", "age_years": 31, "height_cm": 171, "activity_level": "light",
  "display_name": "From the profile", "unit_system": "imperial"}');
reset role;
select is(pg_temp.me('profile'), pg_temp.built(), 'after PUT /user/profile GET /me answers its sources');
select is((select answer -> 'user' ->> 'display_name' from answers where step = 'profile'), 'From the profile',
  'the display name PUT /user/profile set');

-- PATCH /settings.
set local role liftbase_api;
insert into answers select 'settings answer', pg_temp.call('settings_update', 'm',
  '{"unit_system": "imperial", "biometric_enabled": true, "reminders": {"meals": {"enabled": true, "times": ["08:00", "12:30"]}}}');
reset role;
select is(pg_temp.me('settings'), pg_temp.built(), 'after PATCH /settings GET /me answers its sources');
select is((select answer -> 'settings' from answers where step = 'settings'),
          (select answer from answers where step = 'settings answer'), 'the settings PATCH /settings answered');

-- The email, changed by an operator (no acting user).
update auth.users set email = 'changed-by-operator@example.com' where id = (select user_id from tokens where name = 'm');
select is(pg_temp.me('email'), pg_temp.built(), 'after an email change GET /me answers its sources');
select is((select answer -> 'user' ->> 'email' from answers where step = 'email'), 'changed-by-operator@example.com',
  'the new email');

-- A password change does not change the answer (and does not need to build it).
select is((select answer from answers where step = 'email'), pg_temp.me('password before'), 'unchanged before');
select auth.set_password((select user_id from tokens where name = 'm'), 'another long password');
update tokens set token = auth.start_session(user_id) where name = 'm';  -- the change ended the sessions
select is(pg_temp.kept(), pg_temp.built(), 'after a password change the kept answer still answers its sources');

-- The goal deleted, then made again (alone: onboarding writes the settings too).
delete from app.goals where user_id = (select user_id from tokens where name = 'm');
select is(pg_temp.me('goal deleted'), pg_temp.built(), 'after the goal is deleted GET /me answers its sources');
select is((select answer ->> 'needs_onboarding' from answers where step = 'goal deleted'), 'true',
  'no goal: onboarding is to do');
insert into app.goals (user_id, goal_type, goal_rate_per_week) select user_id, 'bulking', 0.25 from tokens where name = 'm';
select is((pg_temp.me('goal again') ->> 'needs_onboarding'), 'false', 'a goal again: onboarding is done');

-- The settings row deleted, then made again.
delete from app.user_settings where user_id = (select user_id from tokens where name = 'm');
select is(pg_temp.me('settings deleted'), pg_temp.built(), 'after the settings are deleted GET /me answers its sources');
insert into app.user_settings (user_id) select user_id from tokens where name = 'm';
select is(pg_temp.me('settings again'), pg_temp.built(), 'after the settings are made again GET /me answers its sources');

-- Disabled (its sessions end, so only the kept answer can show it), then enabled.
select auth.admin_set_disabled('changed-by-operator@example.com', true);
select is(pg_temp.kept(), pg_temp.built(), 'a disabled account: the kept answer answers its sources');
select is(pg_temp.kept() -> 'user' ->> 'disabled', 'true', 'and says disabled');
select auth.admin_set_disabled('changed-by-operator@example.com', false);
update tokens set token = auth.start_session(user_id) where name = 'm';
select is(pg_temp.me('enabled again'), pg_temp.built(), 'enabled again: GET /me answers its sources');

-- The kept answer is what GET /me serves: api.me and app.me_document_shape agree.
update app.sync_state set me_document = me_document || '{"kept": true}'
 where user_id = (select user_id from tokens where name = 'm');
select is(pg_temp.me('tampered') ->> 'kept', 'true', 'GET /me serves the kept answer');
-- One of another shape (an earlier release's) is not served.
update app.sync_state set me_document_shape = 'another definition'
 where user_id = (select user_id from tokens where name = 'm');
select is(pg_temp.me('other shape'), pg_temp.built(), 'a kept answer of another shape is not served');
-- None (an account from before 0063): built on read.
update app.sync_state set me_document = null, me_document_shape = null
 where user_id = (select user_id from tokens where name = 'm');
select is(pg_temp.me('none kept'), pg_temp.built(), 'without a kept answer GET /me builds it');
-- No counter row at all: version 0, and the answer built on read.
delete from app.sync_state where user_id = (select user_id from tokens where name = 'm');
select is(pg_temp.me('no counter'), pg_temp.built(), 'without a counter row GET /me builds its answer');

-- Deleting the account leaves no counter row behind (the cascade's deletes build nothing).
select auth.admin_delete_user('changed-by-operator@example.com');
select is((select count(*)::integer from app.sync_state where user_id = (select user_id from tokens where name = 'm')), 0,
  'a deleted account keeps no answer');
select is((select count(*)::integer from answers where answer is null), 0, 'every GET /me above answered');

select * from finish();
rollback;
