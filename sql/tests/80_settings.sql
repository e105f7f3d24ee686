-- Settings: PATCH merges (only named members change, nested objects member by member),
-- 422 lists every bad member at once and writes nothing, /me and /user/profile read the
-- same row.
begin;
\ir support/helpers.psql
select plan(17);

select pg_temp.sign_up('a', 'settings-a@example.com', 'settings a');

set local role liftbase_api;

select is(pg_temp.call('settings_get', 'a', null),
  '{"unit_system": "metric", "timezone": "UTC",
    "reminders": {"meals": {"enabled": false, "times": []}, "workouts": {"enabled": false, "days": [], "time": null}},
    "biometric_enabled": false, "health_sync": {"apple_health": false, "health_connect": false, "google_fit": false}}',
  'a new account has the default settings');

select is(pg_temp.call('settings_update', 'a',
    '{"reminders": {"meals": {"enabled": true, "times": ["19:00", "07:30", "12:00", "07:30"]}}, "health_sync": {"apple_health": true}}'),
  '{"unit_system": "metric", "timezone": "UTC",
    "reminders": {"meals": {"enabled": true, "times": ["07:30", "12:00", "19:00"]}, "workouts": {"enabled": false, "days": [], "time": null}},
    "biometric_enabled": false, "health_sync": {"apple_health": true, "health_connect": false, "google_fit": false}}',
  'PATCH changes only the named members; times are stored sorted without repeats');

select is(pg_temp.call('settings_update', 'a',
    '{"reminders": {"workouts": {"enabled": true, "days": ["friday", "monday", "wednesday"], "time": "18:15"}}, "unit_system": "imperial"}')
    -> 'reminders',
  '{"meals": {"enabled": true, "times": ["07:30", "12:00", "19:00"]}, "workouts": {"enabled": true, "days": ["monday", "wednesday", "friday"], "time": "18:15"}}',
  'nested objects merge: the meal reminders stay when only workouts are sent; days in calendar order');

select is(pg_temp.call('settings_update', 'a', '{"reminders": {"meals": {"enabled": false}}}') -> 'reminders' -> 'meals',
  '{"enabled": false, "times": ["07:30", "12:00", "19:00"]}', 'enabled alone keeps the times');

select is(pg_temp.call('settings_update', 'a', '{"reminders": {"workouts": {"time": null}}, "biometric_enabled": true, "timezone": "Europe/Berlin"}'),
  '{"unit_system": "imperial", "timezone": "Europe/Berlin",
    "reminders": {"meals": {"enabled": false, "times": ["07:30", "12:00", "19:00"]}, "workouts": {"enabled": true, "days": ["monday", "wednesday", "friday"], "time": null}},
    "biometric_enabled": true, "health_sync": {"apple_health": true, "health_connect": false, "google_fit": false}}',
  'the workout reminder time can be cleared with null; other members are kept');

select is(pg_temp.call('settings_update', 'a', '{}'), pg_temp.call('settings_get', 'a', null), 'an empty PATCH changes nothing');

select is(pg_temp.error_of('settings_update', 'a',
    '{"unit_system": "furlongs", "timezone": "Mars/Olympus", "biometric_enabled": "yes",
      "reminders": {"meals": {"enabled": 1, "times": ["7:30"]}, "workouts": {"days": ["someday"], "time": "24:00"}},
      "health_sync": {"apple_health": null, "google_fit": "on"}}'),
  '{"state": "LB422", "code": "validation_failed", "fields": {
     "unit_system": "must be metric or imperial",
     "timezone": "must be an IANA time zone name such as Europe/Berlin",
     "biometric_enabled": "must be true or false",
     "reminders.meals.enabled": "must be true or false",
     "reminders.meals.times": "each item must be a time of day as HH:MM (00:00 to 23:59)",
     "reminders.workouts.days": "each item must be a day name, monday to sunday",
     "reminders.workouts.time": "must be a time of day as HH:MM (00:00 to 23:59)",
     "health_sync.apple_health": "must be true or false",
     "health_sync.google_fit": "must be true or false"}}',
  'every bad member is listed at once, with the domain comments as messages');

-- Health Connect replaced Google Fit: google_fit is its old name, taken and shown as such.
select is(pg_temp.call('settings_update', 'a', '{"health_sync": {"google_fit": true}}') -> 'health_sync',
  '{"apple_health": true, "health_connect": true, "google_fit": true}', 'google_fit sets the Health Connect switch');
select is(pg_temp.call('settings_update', 'a', '{"health_sync": {"health_connect": false}}') -> 'health_sync',
  '{"apple_health": true, "health_connect": false, "google_fit": false}', 'and health_connect is shown under both names');
select is(pg_temp.error_of('settings_update', 'a', '{"health_sync": {"health_connect": true, "google_fit": false}}') -> 'fields',
  '{"health_sync.google_fit": "is the old name of health_connect: send health_connect alone"}',
  'both names with different values are refused');

select is(pg_temp.error_of('settings_update', 'a', '{"reminders": "daily", "health_sync": [], "unit_system": null}') -> 'fields',
  '{"reminders": "must be an object", "health_sync": "must be an object", "unit_system": "is required"}',
  'objects must be objects; a setting that always has a value cannot be null');

select is(pg_temp.error_of('settings_update', 'a',
    '{"reminders": {"meals": {"times": "07:00"}, "workouts": {"days": [1, 2]}}}') -> 'fields',
  '{"reminders.meals.times": "must be a list", "reminders.workouts.days": "each item must be a string"}',
  'lists must be lists of strings (days are names, not numbers)');

select is(pg_temp.error_of('settings_update', 'a',
    '{"reminders": {"meals": {"times": ["01:00","02:00","03:00","04:00","05:00","06:00","07:00","08:00","09:00","10:00","11:00"]}}}') -> 'fields',
  '{"reminders.meals.times": "must have at most 10 items"}', 'at most ten meal reminders');

select is(pg_temp.call('settings_get', 'a', null) ->> 'unit_system', 'imperial', 'a refused PATCH wrote nothing');

select is(pg_temp.call('me', 'a', null) -> 'settings', pg_temp.call('settings_get', 'a', null), '/me shows the same settings object');
select is(pg_temp.call('profile_get', 'a', null) ->> 'timezone', 'Europe/Berlin', '/user/profile reads the time zone PATCH /settings set');
select is(pg_temp.error_of('settings_update', 'nobody', '{"unit_system": "metric"}') ->> 'state', 'LB401', 'settings need a session');

rollback;
