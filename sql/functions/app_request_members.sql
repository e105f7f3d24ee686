-- The members each route's request body may hold: a member a route does not take is a
-- 422 unknown_field naming it (app.request_body), so that a client with a typo or an older
-- member name learns that it was not saved rather than losing it without a word. The lists
-- are the request schemas of sql/contract, where every object is additionalProperties:
-- false (a test compares them). A nested member is named by its path: `items[].name` is
-- the name of each item of the list `items`.

-- The members route p_function takes, or null for a route whose body is not checked: the
-- CSV imports (the HTTP layer makes their document) and the Liftbase import, which reads what
-- it knows of a newer export and leaves the rest (docs/export-format.md).
create or replace function app.request_members(p_function text)
returns text[]
language sql
immutable
as $$
  select case p_function
    when 'api_key_create' then array['expires_at', 'name', 'password', 'scope']
    when 'auth_login' then array['email', 'password', 'refreshable']
    when 'auth_login_two_factor' then array['challenge', 'code', 'recovery_code']
    when 'auth_oidc' then array['id_token', 'invitation', 'nonce', 'refreshable']
    when 'auth_password_change' then array['current_password', 'new_password']
    when 'auth_password_forgot' then array['email']
    when 'auth_password_reset' then array['new_password', 'token']
    when 'auth_email_verification' then array['email']
    when 'auth_email_verify' then array['token']
    when 'auth_register' then array['display_name', 'email', 'invitation', 'password', 'refreshable']
    when 'auth_token' then array['refresh_token']
    when 'body_metrics_add' then array['body_fat_pct', 'client_id', 'height_cm', 'recorded_at', 'source', 'weight_kg']
    when 'body_metric_update' then array['body_fat_pct', 'height_cm', 'recorded_at', 'source', 'weight_kg']
    when 'custom_meal_create' then array['client_id', 'items', 'items[].calories', 'items[].carbs_g', 'items[].fat_g',
                                         'items[].food_item_id', 'items[].name', 'items[].portion_id',
                                         'items[].protein_g', 'items[].servings', 'name']
    when 'custom_meal_update' then array['items', 'items[].calories', 'items[].carbs_g', 'items[].fat_g',
                                         'items[].food_item_id', 'items[].name', 'items[].portion_id',
                                         'items[].protein_g', 'items[].servings', 'name']
    when 'entry_create' then array['barcode', 'calories', 'carbs_g', 'client_id', 'custom_meal_id', 'entry_date',
                                   'fat_g', 'favorite_id', 'food_item_id', 'meal_type', 'name', 'portion_id',
                                   'protein_g', 'servings', 'source']
    when 'entry_update' then array['calories', 'carbs_g', 'entry_date', 'fat_g', 'meal_type', 'name', 'protein_g',
                                   'servings']
    when 'equipment_select' then array['equipment_ids']
    when 'exclusions_put' then array['exercise_ids', 'muscles']
    when 'exercise_create' then array['category', 'client_id', 'equipment', 'mechanic', 'name', 'primary_muscles',
                                      'secondary_muscles', 'tracking_type']
    when 'exercise_merge' then array['into_id']
    when 'exercise_update' then array['category', 'equipment', 'mechanic', 'name', 'primary_muscles',
                                      'secondary_muscles', 'tracking_type']
    when 'favorite_create' then array['calories', 'carbs_g', 'client_id', 'entry_id', 'fat_g', 'food_item_id', 'name',
                                      'protein_g', 'servings']
    when 'food_create' then array['barcode', 'brand', 'calories', 'carbs_g', 'client_id', 'fat_g', 'fiber_g', 'name',
                                  'protein_g', 'saturated_fat_g', 'serving_g', 'serving_label', 'sodium_mg',
                                  'sugars_g']
    when 'goals_put' then array['goal_rate_per_week', 'goal_type']
    when 'health_samples_sync' then array['deleted', 'platform', 'samples', 'samples[].device', 'samples[].end',
                                          'samples[].sample_id', 'samples[].source_app', 'samples[].start',
                                          'samples[].type', 'samples[].unit', 'samples[].value']
    when 'me_delete' then array['password']
    when 'me_update' then array['display_name']
    when 'measurement_create' then array['client_id', 'measure', 'recorded_at', 'source', 'type_id', 'value']
    when 'measurement_type_create' then array['client_id', 'max_value', 'min_value', 'name', 'unit']
    when 'measurement_type_update' then array['max_value', 'min_value', 'name', 'unit']
    when 'measurement_update' then array['recorded_at', 'source', 'value']
    when 'metrics_acknowledge' then array['metrics_computed_at', 'version']
    when 'onboarding_complete' then array['activity_level', 'age_years', 'body_fat_pct', 'date_of_birth',
                                          'display_name', 'goal_rate_per_week', 'goal_type', 'height_cm', 'sex',
                                          'timezone', 'unit_system', 'weight_kg']
    when 'plan_create' then array['client_id', 'exercises', 'exercises[].assistance_kg', 'exercises[].distance_m',
                                  'exercises[].duration_seconds', 'exercises[].exercise_id',
                                  'exercises[].exercise_name', 'exercises[].group', 'exercises[].group_rest_seconds',
                                  'exercises[].name', 'exercises[].reps', 'exercises[].reps_max',
                                  'exercises[].rest_seconds', 'exercises[].sets', 'exercises[].weight_kg', 'name']
    when 'plan_rename' then array['name']
    when 'profile_put' then array['activity_level', 'age_years', 'date_of_birth', 'display_name', 'height_cm', 'sex',
                                  'timezone', 'unit_system']
    when 'program_create' then array['client_id', 'days_per_week', 'goal', 'split', 'training_age']
    when 'program_session_skip' then array['combine']
    when 'session_update' then array['finished_at', 'name', 'notes', 'status']
    when 'settings_update' then array['biometric_enabled', 'health_sync', 'health_sync.apple_health',
                                      'health_sync.google_fit', 'health_sync.health_connect', 'reminders',
                                      'reminders.meals', 'reminders.meals.enabled', 'reminders.meals.times',
                                      'reminders.workouts',
                                      'reminders.workouts.days', 'reminders.workouts.enabled',
                                      'reminders.workouts.time', 'timezone', 'unit_system']
    when 'progress_photo_update' then array['measurement_id', 'pose', 'taken_on']
    when 'targets_put' then array['calories', 'carbs_g', 'fat_g', 'protein_g', 'water_ml']
    when 'two_factor_confirm' then array['code']
    when 'two_factor_disable' then array['code', 'password']
    when 'two_factor_enrol' then array['password']
    when 'water_create' then array['amount_ml', 'client_id', 'entry_date', 'recorded_at', 'source']
    when 'water_update' then array['amount_ml', 'entry_date', 'recorded_at', 'source']
    when 'webhook_create' then array['client_id', 'events', 'url']
    when 'sessions_create' then app.session_body_members()
    when 'session_replace' then app.session_body_members()
    when 'program_session_log' then app.session_body_members()
  end
$$;

-- A session's body: POST /training/sessions, PUT /training/sessions/{id} and a program's
-- logged session take the same one.
create or replace function app.session_body_members()
returns text[]
language sql
immutable
as $$
  select array['client_id', 'exercises', 'exercises[].exercise_id', 'exercises[].exercise_name', 'exercises[].group',
               'exercises[].group_rest_seconds', 'exercises[].name', 'exercises[].notes', 'exercises[].sets',
               'exercises[].sets[].assistance_kg', 'exercises[].sets[].distance_m', 'exercises[].sets[].duration_seconds',
               'exercises[].sets[].reps', 'exercises[].sets[].rest_seconds', 'exercises[].sets[].rir', 'exercises[].sets[].rpe',
               'exercises[].sets[].set_type', 'exercises[].sets[].tempo', 'exercises[].sets[].weight_kg', 'finished_at', 'name',
               'notes', 'session_date', 'started_at', 'status']
$$;

-- The members of p_body that p_members does not name, each by its path in the body
-- (`exercises[1].sets[0].weight`), in the body's order. A member that is not taken is not
-- looked into, nor is a member taken whose value is not an object of members (`{"display_name":
-- {"a": 1}}` is display_name's reader's to refuse: it must be a string).
create or replace function app.unknown_members(p_body jsonb, p_members text[])
returns text[]
language plpgsql
immutable
as $$
declare
  v_containers text[];
  v_object text;
  v_unknown boolean := false;
begin
  -- First the keys of each object that holds members taken (the body, each exercise, each set),
  -- by jsonpath: a body of members taken only, as nearly every one is, costs no walk.
  foreach v_object in array array(select distinct regexp_replace(m.member, '\.[^.]*$', '')
                                    from unnest(p_members) as m (member) where strpos(m.member, '.') > 0)
                              || '{""}'::text[] loop
    v_unknown := exists (
      select from jsonb_path_query(p_body, ('$' || replace(case when v_object = '' then '' else '.' || v_object end,
                                                            '[]', '[*]')
                                            || ' ? (@.type() == "object").keyvalue().key')::jsonpath) as k (key)
       where not (case when v_object = '' then '' else v_object || '.' end || (k.key #>> '{}')) = any (p_members));
    exit when v_unknown;
  end loop;
  if not v_unknown then
    return '{}';
  end if;
  -- Then where each one is: a walk of what holds members taken, naming a member by its path.
  -- It goes into each member's prefixes before a `.` or a `[]` (`exercises[].sets[].reps`:
  -- `exercises`, `exercises[]`, `exercises[].sets`, `exercises[].sets[]`).
  v_containers := array(select distinct left(m.member, i - 1)
                          from unnest(p_members) as m (member)
                         cross join generate_series(2, length(m.member)) as i
                         where substr(m.member, i, 1) = '.' or substr(m.member, i, 2) = '[]');
  return (
  with recursive walk (pattern, path, value, is_member, n) as (
    select ''::text, ''::text, p_body, false, array[]::bigint[]
    union all
    select c.pattern, c.path, c.value, c.is_member, w.n || c.k
      from walk as w
     cross join lateral (
           select case when w.pattern = '' then m.key else w.pattern || '.' || m.key end as pattern,
                  case when w.path = '' then m.key else w.path || '.' || m.key end as path,
                  m.value, true as is_member, m.k
             from jsonb_each(case when jsonb_typeof(w.value) = 'object' then w.value else '{}' end)
                  with ordinality as m (key, value, k)
           union all
           select w.pattern || '[]', w.path || format('[%s]', a.k - 1), a.value, false, a.k
             from jsonb_array_elements(case when jsonb_typeof(w.value) = 'array' then w.value else '[]' end)
                  with ordinality as a (value, k)) as c
     -- Into what holds members taken only: the root, and an object or list whose members
     -- or items' members are named (a member of another kind is its reader's to refuse).
     where w.pattern = '' or w.pattern = any (v_containers)
  )
  select coalesce(array_agg(w.path order by w.n), '{}')
    from walk as w
   where w.is_member and not w.pattern = any (p_members));
end
$$;

grant execute on function app.request_members(text), app.session_body_members(), app.unknown_members(jsonb, text[])
to liftbase_api;
