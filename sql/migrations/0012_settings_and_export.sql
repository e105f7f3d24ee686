-- Settings beyond units and time zone (reminders, biometric unlock, health sync), each a
-- column of app.user_settings so /me, /user/profile, /settings and the export read one row.

create domain app.clock_time as text check (value ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$');
comment on domain app.clock_time is 'must be a time of day as HH:MM (00:00 to 23:59)';
create domain app.weekday as text
  check (value in ('monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'));
comment on domain app.weekday is 'must be a day name, monday to sunday';

alter table app.user_settings
  add column meal_reminders_enabled    boolean not null default false,
  add column meal_reminder_times       app.clock_time[] not null default '{}'
    check (cardinality(meal_reminder_times) <= 10),
  add column workout_reminders_enabled boolean not null default false,
  add column workout_reminder_days     app.weekday[] not null default '{}',
  add column workout_reminder_time     app.clock_time,
  add column biometric_enabled         boolean not null default false,
  add column apple_health_sync         boolean not null default false,
  add column google_fit_sync           boolean not null default false;
